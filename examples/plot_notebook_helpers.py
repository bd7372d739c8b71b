"""
A run in a notebook: summaries and one-line plots
=================================================

In Jupyter (and on this page) a scenario and its results show themselves as compact HTML: the
links and flows, the run's flows, the links that dropped packets and a small cwnd plot. The
``results.plot`` helpers draw a run's time series with labelled axes and a legend by name,
and return the matplotlib ``Axes`` to refine further. The network is the parking lot of
``scenarios/parking-lot.toml``: a long Reno flow across three RED hops, a cross flow on each.
"""

# %%
# The scenario
# ------------
# The time series are recorded only when ``[metrics] series_interval`` is set; an override
# turns them on for this run. A cell that ends with the scenario shows its summary.
from pathlib import Path

import matplotlib.pyplot as plt

import congsim

root = Path(congsim.__file__).resolve().parents[2]
scenario_file = root / "scenarios" / "parking-lot.toml"
scenario = congsim.load(scenario_file, overrides={"metrics.series_interval": "50ms"})
scenario

# %%
# The results
# -----------
# Ending a cell with the results shows the run's summary, its flows, the links that dropped
# packets and each flow's congestion window.
results = congsim.run(scenario)
results

# %%
# The congestion windows
# ----------------------
# ``results.plot.cwnd()`` draws every flow (cwnd in segments); ``flows=`` picks some.
ax = results.plot.cwnd(flows=["long", "cross0"])
ax.set_title("the long flow against the first hop's cross flow")
ax.figure.tight_layout()

# %%
# Goodput and the bottleneck queues
# ---------------------------------
# With ``ax=`` the helpers draw into a figure of your own. ``plot.queue()`` draws by default the
# links where a queue built up (more than one packet): here the three RED hops, in the direction
# of the data. Goodput counts data delivered in order, so a retransmission that fills a hole
# releases everything queued behind it at once: the spikes above the 10 Mbps link rate.
fig, (top, bottom) = plt.subplots(2, 1, figsize=(6, 5), sharex=True)
results.plot.throughput(ax=top)
results.plot.queue(ax=bottom)
fig.tight_layout()

# %%
# A run without the series
# ------------------------
# The helpers say which series is missing and which setting records it.
plain = congsim.run(congsim.load(scenario_file))
try:
    plain.plot.queue()
except ValueError as e:
    print(e)
