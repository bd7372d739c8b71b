"""
BBR against CUBIC by buffer size
================================

One BBR v1 flow and one CUBIC flow share a 10 Mbps bottleneck with a 40 ms round trip (a
bandwidth-delay product, BDP, of about 33 packets). BBR paces at its estimate of the
bottleneck's bandwidth and keeps about two BDPs in flight whatever the losses; CUBIC fills the
buffer and cuts its window at each loss. The well-known result for BBR v1: in a shallow buffer
it takes most of the link, in a deep one CUBIC's standing queue inflates the round trip BBR
sizes its window by, and the shares turn.
"""

# %%
# One scenario file, six buffers
# ------------------------------
# ``scenarios/bbr-vs-cubic.toml`` has half a BDP of buffer; an override sets the bottleneck's
# (the second ``[[links]]`` entry) from a quarter of a BDP to eight.
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import congsim

root = Path(congsim.__file__).resolve().parents[2]
scenario_file = root / "scenarios" / "bbr-vs-cubic.toml"
bdp_packets = 10e6 * 0.040 / (1500 * 8)
buffers_bdp = [0.25, 0.5, 1, 2, 4, 8]
rows = []
for bdps in buffers_bdp:
    limit = round(bdps * bdp_packets)
    scenario = congsim.load(scenario_file, overrides={"links[1].queue": {"limit_packets": limit}})
    flows = congsim.run(scenario).flows.set_index("flow")
    rows.append(
        {
            "buffer (BDP)": bdps,
            "buffer (packets)": limit,
            "BBR (Mbps)": flows.loc["bbr", "goodput_bps"] / 1e6,
            "CUBIC (Mbps)": flows.loc["cubic", "goodput_bps"] / 1e6,
            "BBR retransmissions": int(flows.loc["bbr", "retx_pkts"]),
            "BBR's RTprop (ms)": 1000 * flows.loc["bbr", "bbr_min_rtt_s"],
        }
    )
shares = pd.DataFrame(rows)
shares

# %%
# The shares
# ----------
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(shares["buffer (BDP)"], shares["BBR (Mbps)"], marker="o", label="BBR v1")
ax.plot(shares["buffer (BDP)"], shares["CUBIC (Mbps)"], marker="s", label="CUBIC")
ax.set_xscale("log", base=2)
ax.set_xlabel("bottleneck buffer (bandwidth-delay products)")
ax.set_ylabel("goodput over 20-60 s (Mbps)")
ax.legend()
fig.tight_layout()
