"""
DCTCP incast in a fat tree
==========================

Fifteen hosts of a k = 4 fat tree answer one host at once, 64 KB each (the DCTCP paper's 1 MB
query), through switch ports that hold 100 packets and mark at K = 20 (DCTCP's step marking:
a RED queue with equal thresholds and no averaging). The same responses are sent three ways:
DCTCP, Reno answering the same marks (ECN), and Reno over plain DropTail ports.
"""

# %%
# Three runs of one scenario file
# -------------------------------
# ``scenarios/dctcp-incast.toml`` runs DCTCP; overrides change the controller, turn ECN on for
# Reno, or replace every port's queue with DropTail.
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import congsim

root = Path(congsim.__file__).resolve().parents[2]
scenario_file = root / "scenarios" / "dctcp-incast.toml"
variants = {
    "DCTCP, step at K = 20": {},
    "Reno + ECN, step at K = 20": {"tcp.congestion_control": "aimd", "tcp.congestion_marks": "ecn"},
    "Reno, DropTail": {"tcp.congestion_control": "aimd", "topology.queue": {"limit_packets": 100}},
}
results = {name: congsim.run(congsim.load(scenario_file, overrides=o)) for name, o in variants.items()}

# %%
# What each run cost
# ------------------
# The first round trip sends fifteen initial windows (150 packets) into the receiver's edge
# port whatever the controller; the marking ports then keep the queue near K, where DropTail
# lets it fill and drop.
rows = []
for name, r in results.items():
    flows, links = r.flows, r.links
    rows.append(
        {
            "run": name,
            "last response (ms)": 1000 * flows["completion_time_s"].max(),
            "mean response (ms)": 1000 * flows["completion_time_s"].mean(),
            "timeouts": int(flows["timeouts"].sum()),
            "drops": int(links["drops"].sum()),
            "marks": int(links["marks"].sum()),
        }
    )
summary = pd.DataFrame(rows)
summary

# %%
# When each response completed
# ----------------------------
fig, ax = plt.subplots(figsize=(6, 3.5))
for name, r in results.items():
    times = sorted(1000 * r.flows["completion_time_s"])
    ax.step(times, range(1, len(times) + 1), where="post", label=name)
ax.set_xlabel("completion time (ms)")
ax.set_ylabel("responses complete")
ax.legend()
fig.tight_layout()
