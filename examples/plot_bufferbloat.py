"""
Bufferbloat: DropTail, CoDel and FQ-CoDel
=========================================

Four bulk TCP flows and a voice call (0.5 Mbps of 200-byte packets) share a 10 Mbps, 20 ms
bottleneck whose router holds 1000 packets, 1.2 s at the line rate. The same network runs with
three queues at the bottleneck: the bloated DropTail, CoDel (RFC 8289) and FQ-CoDel (RFC 8290).
Each packet's wait there comes from the ``sojourn`` table (``[metrics] sojourn_links``).
"""

# %%
# Three runs of one scenario file
# -------------------------------
# ``scenarios/bufferbloat.toml`` has the DropTail buffer; an override replaces the bottleneck's
# queue (``links[0]``) for the other two runs.
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import congsim

root = Path(congsim.__file__).resolve().parents[2]
scenario_file = root / "scenarios" / "bufferbloat.toml"
queues = {
    "DropTail, 1000 packets": {},
    "CoDel": {"links[0].queue": {"kind": "codel"}},
    "FQ-CoDel": {"links[0].queue": {"kind": "fq_codel"}},
}
results = {name: congsim.run(congsim.load(scenario_file, overrides=o)) for name, o in queues.items()}

# %%
# Goodput and the voice call's wait
# ---------------------------------
# The bulk flows keep the link full under all three queues; what changes is how long a voice
# packet waits at the bottleneck (after the 5 s warm-up).
rows = []
for name, r in results.items():
    waits = r.table("sojourn")
    waits = waits[waits["time_s"] >= 5.0]
    voice = 1000 * waits[waits["flow"] == "voice"]["sojourn_s"]
    bulk = 1000 * waits[waits["flow"] != "voice"]["sojourn_s"]
    rows.append(
        {
            "queue": name,
            "bulk goodput (Mbps)": r.flows["goodput_bps"].sum() / 1e6,
            "voice wait mean (ms)": voice.mean(),
            "voice wait p99 (ms)": np.percentile(voice, 99),
            "bulk wait mean (ms)": bulk.mean(),
            "voice loss (%)": 100 * r.table("cbr")["loss_ratio"].iloc[0],
        }
    )
summary = pd.DataFrame(rows).round(2)
summary

# %%
# The voice packets' waits
# ------------------------
fig, ax = plt.subplots(figsize=(6, 3.5))
for name, r in results.items():
    waits = r.table("sojourn")
    voice = np.sort(1000 * waits[(waits["flow"] == "voice") & (waits["time_s"] >= 5.0)]["sojourn_s"])
    ax.step(voice, np.arange(1, len(voice) + 1) / len(voice), where="post", label=name)
ax.set_xscale("symlog", linthresh=1.0)
ax.set_xlabel("voice packet's wait at the bottleneck (ms)")
ax.set_ylabel("fraction of voice packets")
ax.legend()
fig.tight_layout()
