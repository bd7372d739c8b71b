"""
RED against DropTail: the queue a gateway keeps
===============================================

``scenarios/red-gateway.toml``: five Reno flows share a 10 Mbps, 5 ms bottleneck whose RED
gateway (Floyd and Jacobson 1993, ns-2's parameters of about 2000: thresholds of 5 and 15
packets, ``w_q`` 0.002, ``max_p`` 0.1) holds at most 60 packets. The same network runs three
ways: with that RED gateway dropping packets, with the same RED marking them (ECN) instead,
and with a DropTail queue of the same 60 packets.
"""

# %%
# Three runs of one scenario file
# -------------------------------
# Overrides replace the bottleneck's queue (``links[1]``) or turn marking on, sample the
# queue every 10 ms, record each packet's wait there (``sojourn``) and list every flow's
# window cuts (``tcp_events``).
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import congsim

root = Path(congsim.__file__).resolve().parents[2]
scenario_file = root / "scenarios" / "red-gateway.toml"
measure = {"metrics.series_interval": "10ms", "metrics.sojourn_links": ["r->d"], "metrics.tcp_events": True}
gateways = {
    "DropTail, 60 packets": {"links[1].queue": {"limit_packets": 60}},
    "RED, dropping": {},
    "RED, marking (ECN)": {"links[1].queue.ecn_marking": True, "tcp.congestion_marks": "ecn"},
}
results = {
    name: congsim.run(congsim.load(scenario_file, overrides={**o, **measure})) for name, o in gateways.items()
}

# %%
# What each gateway cost
# ----------------------
# All three keep the link nearly full. DropTail lets the queue fill to its limit and holds it
# high; RED keeps it short, so a packet waits a fifth as long, but it drops twice as many
# packets as DropTail, and the flows time out twenty times as often. Marking instead of
# dropping keeps RED's short queue with DropTail's few timeouts.
rows = []
for name, r in results.items():
    link = r.links.set_index("link").loc["r->d"]
    waits = r.table("sojourn")["sojourn_s"]
    rows.append(
        {
            "gateway": name,
            "goodput (Mbps)": r.summary["total_goodput_bps"].iloc[0] / 1e6,
            "mean queue (packets)": link["mean_queue_packets"],
            "mean wait (ms)": 1000 * waits.mean(),
            "drops": int(link["drops"]),
            "marks": int(link["marks"]),
            "timeouts": int(r.summary["timeouts"].iloc[0]),
            "Jain index": r.summary["jain_index"].iloc[0],
        }
    )
pd.DataFrame(rows).round(3)

# %%
# The queue over five seconds
# ---------------------------
# Under DropTail the queue climbs to the limit, drains to 14 or 15 packets and climbs again, a
# regular sawtooth; under RED, dropping or marking, it stays between empty and 20 packets.
fig, ax = plt.subplots(figsize=(7, 3.2))
for name, r in results.items():
    q = r.link_series
    q = q[(q["link"] == "r->d") & (q["time_s"] >= 10) & (q["time_s"] <= 15)]
    ax.plot(q["time_s"], q["queue_packets"], linewidth=1, label=name)
ax.axhline(60, color="grey", linestyle=":", linewidth=1)
ax.set_xlabel("time (s)")
ax.set_ylabel("bottleneck queue (packets)")
ax.set_ylim(0, 65)
ax.legend(loc="upper right", ncols=3, fontsize="small")
fig.tight_layout()

# %%
# Who cuts at once
# ----------------
# For every window cut after the first 2 s (a fast retransmit, a timeout or a response to a
# mark), how many of the other four flows cut theirs within 50 ms. Under DropTail every cut
# comes with all four others: the overflow hits every flow at once and they back off
# together (the global synchronization RED was designed against). Under RED the cuts are
# more frequent and spread out.
rows = []
for name, r in results.items():
    events = r.table("tcp_events")
    cut = events["event"].isin(["fast_retransmit", "timeout", "ecn_response"])
    cuts = events[cut & (events["time_s"] >= 2)]
    times, flows = cuts["time_s"].to_numpy(), cuts["flow"].to_numpy()
    others = [len(set(flows[np.abs(times - t) <= 0.05]) - {f}) for t, f in zip(times, flows, strict=True)]
    counts = np.bincount(others, minlength=5)
    rows.append({"gateway": name, "cuts": len(others), **{f"{k} others": counts[k] for k in range(5)}})
pd.DataFrame(rows)
