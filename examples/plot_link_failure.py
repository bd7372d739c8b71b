"""
A link failure and reroute
==========================

Three TCP flows go from a sender site to ``dst`` over a 2-hop primary path (20 ms round trip)
while a 3-hop backup (30 ms) stands by. At 10 s the primary's first hop goes down (both
directions, as ns-2's ``rtmodel-at`` does): what the link held is lost, routes are recomputed
at once, and the flows move to the backup. At 20 s the link comes back up and the traffic
returns. The events are ``[[events]]`` entries of the scenario file; which path each packet
took comes from the ``sojourn`` table (``[metrics] sojourn_links`` on the first hop of each
path), the window from the ``tcp_changes`` table, the instants from the ``link_changes`` table.
"""

# %%
# One run of the scenario file
# ----------------------------
# ``scenarios/link-failure.toml`` holds the network, the flows and the four events (down and
# up, each in both directions). 30 s of simulated time take a fraction of a second.
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import congsim

root = Path(congsim.__file__).resolve().parents[2]
results = congsim.run(congsim.load(root / "scenarios" / "link-failure.toml"))

# %%
# When the link went down and came up
# -----------------------------------
# The ``link_changes`` table lists every link that went down or came up, with the index of the
# ``[[events]]`` entry that did it: here the primary's first hop, both directions.
link_changes = results.table("link_changes")
print(link_changes.to_string(index=False))
failure_s = link_changes.loc[link_changes["state"] == "down", "time_s"].min()
repair_s = link_changes.loc[link_changes["state"] == "up", "time_s"].min()


def mark_events(ax: plt.Axes) -> None:
    """The outage shaded, the failure and the repair instants as lines."""
    ax.axvspan(failure_s, repair_s, color="0.92", zorder=0)
    for t, what in ((failure_s, "link down"), (repair_s, "link up")):
        ax.axvline(t, color="0.3", linestyle="--", linewidth=1)
        ax.annotate(
            what, (t, 1), xycoords=("data", "axes fraction"), xytext=(3, -12), textcoords="offset points"
        )


# %%
# Which path the packets took
# ---------------------------
# Every row of ``sojourn`` is a packet leaving the queue of ``site->p1`` (the primary path) or
# ``site->b1`` (the backup); counted in 100 ms bins they give each path's packet rate. The
# routes switch at once, both ways. The link's loss costs a few hundred milliseconds at the
# failure: each flow lost what it had in flight on the primary, and the three recover from it
# differently (ftp2 hardly pauses, ftp3 resumes within 0.2 s, ftp1 waits for a
# retransmission timeout, below). The repair has a smaller cost: new packets on the shorter
# primary overtake those still queued on the backup, and the duplicate ACKs of this reordering
# make ftp3 cut its window at 20.03 s although none of its packets was lost.
sojourn = results.table("sojourn")
bins = np.arange(0.0, 30.0 + 1e-9, 0.1)
fig, ax = plt.subplots(figsize=(7, 3.2))
for link, name in (("site->p1", "primary (site->p1)"), ("site->b1", "backup (site->b1)")):
    counts, _ = np.histogram(sojourn.loc[sojourn["link"] == link, "time_s"], bins=bins)
    ax.step(bins[:-1], counts / 0.1, where="post", label=name)
mark_events(ax)
ax.set_xlabel("time (s)")
ax.set_ylabel("data packets per second")
ax.set_xlim(0, 30)
ax.legend(loc="center left", bbox_to_anchor=(0.0, 0.3))
fig.tight_layout()

# %%
# The traced flow's window
# ------------------------
# ``tcp_changes`` has a row for every change of ``ftp1``'s state, so a step plot shows the
# window exactly, every cut and every increase. At the failure ftp1 hears nothing back: its
# window holds for a second, falls to one segment at the retransmission timeout (the RTO is
# at least 1 s), and slow start brings it back over the backup, whose extra hop shows as a
# longer smoothed round trip.
changes = results.table("tcp_changes")
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.step(changes["time_s"], changes["cwnd"], where="post", label="cwnd")
ax.step(changes["time_s"], changes["ssthresh"].clip(upper=120), where="post", linestyle=":", label="ssthresh")
mark_events(ax)
ax.set_xlabel("time (s)")
ax.set_ylabel("ftp1's window (segments)")
ax.set_xlim(0, 30)
ax.set_ylim(0, 110)
ax.legend(loc="upper right")
fig.tight_layout()

# A timeout is a change into the state "loss" (the rows after it, still in "loss", are the
# window growing again in slow start).
timeouts = changes[(changes["state"] == "loss") & changes["changed"].str.contains("state")]
print("ftp1's timeouts at (s):", ", ".join(f"{t:.3f}" for t in timeouts["time_s"]))
# (2 s after each event: the window and the queue settled on the new path)
periods = {"before": (0, failure_s), "during": (failure_s + 2, repair_s), "after": (repair_s + 2, 30)}
for label, (lo, hi) in periods.items():
    window = changes[(changes["time_s"] >= lo) & (changes["time_s"] < hi)]
    print(f"ftp1's smoothed RTT {label} the outage: {1000 * window['srtt_s'].mean():.1f} ms")

# %%
# What the failure cost
# ---------------------
# The ``links`` table's ``drops_link_down`` column counts the packets lost because a link was
# down: those in its queue, in transmission and propagating when it went down, and any that
# reached it while down. ``site->p1`` lost its queue of data; ``p1->site`` the ACKs on their
# way back.
print(results.links[["link", "drops", "drops_link_down"]].to_string(index=False))
print(results.flows[["flow", "goodput_bps", "retx_pkts"]].to_string(index=False))
