"""
Reading a reproduction: values, bands and verdicts
==================================================

``congsim reproduce STUDY`` runs a registered study and compares it with its reference
numbers; from Python, ``congsim.studies.reproduce`` does the same and returns the comparison
as a DataFrame (what ``comparison.csv`` holds). The smallest study, ``dumbbell-buffers``,
runs Reno and Tahoe on the 20-flow dumbbell with five bottleneck buffers; its reference is
ns-2.35's output on the same scenario, one run per configuration. Here it runs with 3
replications instead of its 5, to keep the page quick.
"""

# %%
# Run the study
# -------------
# ``variants=False`` leaves out the study's variants (this one has none). The runs go to a
# results store, here a temporary folder.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from congsim.studies import STUDIES, reproduce

study = STUDIES["dumbbell-buffers"]
print(study.title)
with tempfile.TemporaryDirectory() as out:
    outcome = reproduce(study, Path(out), replications=3, variants=False)
comparison = outcome.comparison
buffers = "links[0].queue.limit_packets"
columns = ["tcp.variant", buffers, "metric", "reference", "band_low", "band_high"]
columns += ["mean", "ci_low", "ci_high", "verdict"]
comparison[columns].round(2)

# %%
# One row per reference value
# ---------------------------
# Each reference value has a band, the value ± 10 % (or half a unit of its last printed digit,
# if that is larger), and congsim's mean with its 95 % confidence interval over the
# replications. The verdict compares the interval with the band: ``agrees`` when the interval
# lies inside it, ``differs`` when wholly outside, ``inconclusive`` when it crosses an edge.
comparison.groupby("metric")["verdict"].value_counts().unstack(fill_value=0)

# %%
# The comparison drawn
# --------------------
# The band of each reference value is the shaded bar, congsim's mean and interval the point
# and its error bar, coloured by the verdict. Nine of the ten throughput intervals lie inside
# their bands; Reno's at 50 packets is wide and crosses both edges. The timeout counts vary
# more from one replication to the next: with three replications eight of their ten
# intervals cross an edge of the band, and the two that agree are Reno's at 25 and 200
# packets. More replications narrow the intervals; the study's default is 5.
colours = {"agrees": "tab:green", "inconclusive": "tab:orange", "differs": "tab:red"}
metrics = ["total_throughput_mbps", "timeouts"]
variants = ["tahoe", "reno"]
fig, axes = plt.subplots(2, 2, figsize=(8, 5.5), sharex=True)
for row, metric in enumerate(metrics):
    for col, variant in enumerate(variants):
        ax = axes[row, col]
        cells = comparison[(comparison["metric"] == metric) & (comparison["tcp.variant"] == variant)]
        x = range(len(cells))
        ax.bar(x, cells["band_high"] - cells["band_low"], bottom=cells["band_low"], color="0.85", width=0.6)
        ax.scatter(x, cells["reference"], marker="_", s=200, color="0.3")
        for i, (_, cell) in enumerate(cells.iterrows()):
            ax.errorbar(
                i,
                cell["mean"],
                yerr=[[cell["mean"] - cell["ci_low"]], [cell["ci_high"] - cell["mean"]]],
                fmt="o",
                capsize=3,
                color=colours[cell["verdict"]],
            )
        ax.set_xticks(list(x), [str(b) for b in cells[buffers]])
        ax.set_title(f"{variant}: {metric}", fontsize="medium")
for ax in axes[1]:
    ax.set_xlabel("bottleneck buffer (packets)")
handles = [
    plt.Line2D([], [], marker="_", markersize=12, linestyle="", color="0.3", label="reference"),
    plt.Rectangle((0, 0), 1, 1, color="0.85", label="band"),
    *(plt.Line2D([], [], marker="o", linestyle="", color=c, label=v) for v, c in colours.items()),
]
axes[0, 0].legend(handles=handles, loc="lower right", fontsize="small")
fig.tight_layout()
