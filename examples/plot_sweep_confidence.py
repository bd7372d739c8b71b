"""
A sweep with confidence intervals: four TCPs and five buffers
=============================================================

The tutorial's sweep plan, ``plans/reno-vs-tahoe-buffers.toml``, runs 20 Reno or Tahoe flows
through the 100 Mbps dumbbell of ``scenarios/dumbbell-20.toml`` with five bottleneck buffers.
Here the same plan, built in Python, also runs NewReno and SACK: 4 variants, 5 buffers and 5
replications, 100 runs of 10 s. Replications differ by their random start times (up to
0.5 s); the statistics give each configuration's mean and its 95 % Student-t confidence
interval over the five.
"""

# %%
# The plan, run
# -------------
# ``plan_of`` takes what a plan file holds: the fixed overrides (the file's ``[set]``), the
# axes and the replications. The runs go to a results store, here a temporary folder.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import congsim
from congsim.sweep import plan_of, run_sweep

root = Path(congsim.__file__).resolve().parents[2]
variants = ["tahoe", "reno", "newreno", "sack"]
plan = plan_of(
    congsim.load(root / "scenarios" / "dumbbell-20.toml"),
    fixed={"simulation.duration": "10s", "simulation.start_jitter": "500ms"},
    axes={"tcp.variant": variants, "links[0].queue.limit_packets": [25, 50, 100, 200, 400]},
    replications=5,
)
with tempfile.TemporaryDirectory() as store:
    stats = run_sweep(plan, store, workers=2).statistics()

summary = stats[stats["table"] == "summary"]
columns = ["tcp.variant", "links[0].queue.limit_packets", "n", "mean", "ci_low", "ci_high"]
summary[summary["metric"] == "timeouts"][columns]

# %%
# Means and their intervals
# -------------------------
# Each point is the mean of five replications, each bar its 95 % confidence interval.
# Goodput rises with the buffer for all four; SACK's is the highest at every buffer, by 8 to
# 14 Mbps up to 100 packets and by 4 to 9 at 200 and 400, and its interval overlaps none of
# the others'. Reno times out four to eight times as often as the others, and almost every
# one of its timeouts comes after a fast retransmit (``timeouts_after_fast_retransmit`` in
# the flows table): with several losses in one window, its fast recovery repairs the first
# and the flow then waits for the timeout.
flows = stats[stats["table"] == "flows"]
after_fast = flows[flows["metric"].isin(["timeouts", "timeouts_after_fast_retransmit"])]
after_fast.groupby(["tcp.variant", "metric"])["mean"].sum().unstack().round(1)

# %%
fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.5, 6), sharex=True)
for offset, variant in zip((-0.06, -0.02, 0.02, 0.06), variants, strict=True):
    for ax, metric, scale in ((top, "total_goodput_bps", 1e-6), (bottom, "timeouts", 1.0)):
        rows = summary[(summary["metric"] == metric) & (summary["tcp.variant"] == variant)]
        buffers = rows["links[0].queue.limit_packets"].astype(float) * 2**offset
        mean = rows["mean"] * scale
        errors = [mean - rows["ci_low"] * scale, rows["ci_high"] * scale - mean]
        ax.errorbar(buffers, mean, yerr=errors, marker="o", capsize=3, label=variant)
top.set_ylabel("total goodput (Mbps)")
bottom.set_ylabel("timeouts (all 20 flows)")
bottom.set_xscale("log", base=2)
bottom.set_xticks([25, 50, 100, 200, 400], ["25", "50", "100", "200", "400"])
bottom.set_xlabel("bottleneck buffer (packets)")
top.legend(ncols=4, loc="lower right")
fig.tight_layout()
