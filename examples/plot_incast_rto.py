"""
TCP incast and the retransmission timer's floor
===============================================

``scenarios/incast.toml``: servers answer one client at the same instant, 64 KB each, through
a 1 Gbps switch port that holds 32 packets; the round trip is about 0.1 ms. The number of
servers goes from 1 to 48, with the retransmission timeout's floor at 200 ms (Linux's, the
file's setting) and at 1 ms (the fix Vasudevan et al. proposed in 2009). What counts is
when the last response arrives: the client waits for all of them.
"""

# %%
# Twenty-six runs of one scenario file
# ------------------------------------
# ``[topology] kind = "incast"`` generates the network from ``senders``; overrides set it and
# the RTO floor (``tcp.min_rto``). Each run takes a few milliseconds.
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import congsim

root = Path(congsim.__file__).resolve().parents[2]
scenario_file = root / "scenarios" / "incast.toml"
rows = []
for min_rto in ("200ms", "1ms"):
    for senders in (1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48):
        overrides = {"topology.senders": senders, "tcp.min_rto": min_rto}
        flows = congsim.run(congsim.load(scenario_file, overrides=overrides)).flows
        last = flows["completion_time_s"].max()
        rows.append(
            {
                "RTO floor": min_rto,
                "senders": senders,
                "last response (ms)": 1000 * last,
                "goodput (Mbps)": senders * 64 * 1024 * 8 / last / 1e6,
                "timeouts": int(flows["timeouts"].sum()),
                "after 1 or 2 dup ACKs": int(flows["timeouts_few_dupacks"].sum()),
                "after no dup ACK": int(flows["timeouts_no_dupacks"].sum()),
            }
        )
table = pd.DataFrame(rows)
table.round(1)

# %%
# When the last response arrives
# ------------------------------
# With the 200 ms floor a single timeout makes the client wait 200 ms: so it is from 10
# senders on, and already with 2, whose two timeouts both came after too few duplicate ACKs
# for a fast retransmit. 4 to 8 senders finish in under 5 ms. With a 1 ms floor the same
# timeouts cost a few milliseconds, and 32 senders finish in 19 ms. From 40 senders on, the
# last response takes a second or more whatever the floor (below).
fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 5.5), sharex=True)
for min_rto, group in table.groupby("RTO floor", sort=False):
    top.plot(group["senders"], group["last response (ms)"], marker="o", label=f"RTO floor {min_rto}")
    bottom.plot(group["senders"], group["goodput (Mbps)"], marker="o", label=f"RTO floor {min_rto}")
top.set_yscale("log")
top.set_ylabel("last response (ms)")
top.legend(loc="upper left")
bottom.set_ylabel("goodput (Mbps)")
bottom.set_xlabel("servers answering at once")
fig.tight_layout()

# %%
# Forty senders: the initial timeout
# ----------------------------------
# The 40-sender run with the 1 ms floor again, recording every change of every flow's timer
# and window (``tcp_changes``). The eight flows that finish late start with the initial RTO
# of 1 s and time out at exactly 1 s, before they have measured a single round trip (a
# smoothed RTT of 0): no ACK came back for their first window, and until a round trip is
# measured the floor does not shorten the timeout.
names = [f"tcp{i}" for i in range(1, 41)]
overrides = {"topology.senders": 40, "tcp.min_rto": "1ms", "metrics.tcp_changes": names}
forty = congsim.run(congsim.load(scenario_file, overrides=overrides))
late = forty.flows[forty.flows["completion_time_s"] > 0.5]["flow"]
changes = forty.table("tcp_changes")
changes = changes[changes["flow"].isin(late)]
first_timeout = changes[changes["state"] == "loss"].groupby("flow", sort=False).first()
pd.DataFrame(
    {
        "RTO at the start (s)": changes.groupby("flow", sort=False)["rto_s"].first(),
        "first timeout (s)": first_timeout["time_s"],
        "smoothed RTT then (s)": first_timeout["srtt_s"],
        "response complete (s)": forty.flows.set_index("flow").loc[late, "completion_time_s"],
    }
)
