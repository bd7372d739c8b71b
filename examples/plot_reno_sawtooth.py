"""
The tutorial's sawtooth
=======================

The first scenario of :doc:`the tutorial </tutorial>`, ``scenarios/reno-sawtooth.toml``: one ns-2
Reno flow through a 10 Mbps, 10 ms bottleneck whose buffer holds 15 packets. The path holds
about 28 packets (10 Mbps over a 22 ms round trip, in 1000-byte packets), so a window of 100
overflows the buffer: a loss, fast retransmit halves the window, it grows again by one packet
per round trip, and the buffer overflows again. The first figure is the one the tutorial
shows; the second adds the bottleneck's queue.
"""

# %%
# One run, every change of the window
# -----------------------------------
# ``[metrics] tcp_changes = ["ftp"]`` records every change of the flow's cwnd, ssthresh and
# congestion state with its time, so a step plot draws the window exactly. The overrides add
# the list of congestion events, the time-sequence trace (every send, ACK and drop) and sample
# the queues every 10 ms instead of the file's 100.
from pathlib import Path

import matplotlib.pyplot as plt

import congsim

root = Path(congsim.__file__).resolve().parents[2]
overrides = {"metrics.tcp_events": True, "metrics.sequence_trace": True, "metrics.series_interval": "10ms"}
scenario = congsim.load(root / "scenarios" / "reno-sawtooth.toml", overrides=overrides)
results = congsim.run(scenario)
flows = results.flows[["flow", "goodput_bps", "timeouts", "fast_retransmits", "retx_pkts"]]
print(flows.to_string(index=False))

changes = results.table("tcp_changes")
fig, ax = plt.subplots(figsize=(7, 3))
ax.step(changes["time_s"], changes["cwnd"], where="post", label="cwnd")
ax.step(changes["time_s"], changes["ssthresh"], where="post", label="ssthresh")
ax.set_xlabel("time (s)")
ax.set_ylabel("packets")
ax.set_ylim(0, 65)
ax.legend(loc="upper right")
fig.tight_layout()

# %%
# The congestion events
# ---------------------
# ``tcp_events`` lists every fast retransmit and timeout. The slow start at the beginning
# overshoots: many packets of one window are lost, fast retransmit repairs the first, and
# Reno, which recovers one loss per window, waits for a retransmission timeout for the rest.
# From then on every overflow costs one packet (the ``sequence`` table's drops), and one fast
# retransmit halves the window.
events = results.table("tcp_events")
cuts = events[events["event"].isin(["fast_retransmit", "timeout"])]
print(cuts[["time_s", "event", "cwnd", "ssthresh"]].to_string(index=False))
steady = cuts[(cuts["event"] == "fast_retransmit") & (cuts["time_s"] > 1.0)]
print(f"one fast retransmit every {steady['time_s'].diff().mean():.3f} s after the timeout")
drops = results.table("sequence").query("event == 'drop'")["time_s"]
print(f"packets dropped before 1 s: {(drops < 1).sum()}, after: {(drops >= 1).sum()}")

# %%
# The window and the queue
# ------------------------
# The bottleneck's queue (``link_series``, sampled every ``series_interval``) fills as the
# window grows past what the path holds and drains after each cut.
queue = results.link_series
queue = queue[queue["link"] == "router->dst"]
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 4.5), sharex=True)
top.step(changes["time_s"], changes["cwnd"], where="post")
top.plot(cuts["time_s"], cuts["cwnd"], "v", color="C3", label="after a cut")
top.set_ylabel("cwnd (packets)")
top.legend(loc="upper right")
bottom.plot(queue["time_s"], queue["queue_packets"], drawstyle="steps-post")
bottom.axhline(15, color="grey", linestyle=":", label="buffer (15 packets)")
bottom.set_ylabel("queue (packets)")
bottom.set_xlabel("time (s)")
bottom.legend(loc="lower right")
fig.tight_layout()
