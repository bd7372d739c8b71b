"""
Round-trip time unfairness, on a network built in Python
========================================================

Four TCP flows share a 10 Mbps bottleneck, each from its own sender whose access link is
longer than the last: round trips of 16 to 100 ms before any queueing. A TCP window grows by
one packet per round trip, so a flow with a shorter round trip grows faster and takes more
of the link. The network is built in a loop as a Python dictionary, its routes printed with
``congsim.network``, and run five times (random start times) with a DropTail and with a RED
bottleneck.
"""

# %%
# Build the network
# -----------------
# Senders ``s0..s3`` reach router ``r1`` over 100 Mbps links of 2 to 44 ms; the bottleneck
# ``r1 -> r2`` is 10 Mbps and 5 ms with 50 packets of buffer; receivers ``d0..d3`` hang off
# ``r2`` at 1 ms. Each flow is named by its round trip without queueing.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import congsim
from congsim.network import route_lines

access_ms = [2, 8, 20, 44]
nodes = ["r1", "r2"]
links = [{"from": "r1", "to": "r2", "rate": "10Mbps", "delay": "5ms", "queue": {"limit_packets": 50}}]
flows = []
for i, delay in enumerate(access_ms):
    nodes += [f"s{i}", f"d{i}"]
    links += [
        {"from": f"s{i}", "to": "r1", "rate": "100Mbps", "delay": f"{delay}ms"},
        {"from": "r2", "to": f"d{i}", "rate": "100Mbps", "delay": "1ms"},
    ]
    flows.append({"name": f"rtt{2 * (delay + 5 + 1)}ms", "from": f"s{i}", "to": f"d{i}"})
network = {
    "name": "rtt-unfairness",
    "nodes": nodes,
    "simulation": {"duration": "60s", "measure_from": "10s", "start_jitter": "1s"},
    "links": links,
    "tcp": {"profile": "ns2_2000", "variant": "sack", "packet_size": "1000B", "window": 1000},
    "flows": flows,
}
scenario = congsim.Scenario.from_dict(network)
print("\n".join(line for line in route_lines(scenario.network()) if "tcp data" in line))

# %%
# Five replications of each bottleneck queue
# ------------------------------------------
# An override turns the bottleneck's queue into RED with its automatic thresholds; the
# ``flows`` table gives each flow's goodput and the mean of its measured round trips
# (``rtt_mean_s``: propagation, transmission and queueing).
rows = []
for queue, overrides in {"DropTail": {}, "RED": {"links[0].queue.kind": "red"}}.items():
    scenario = congsim.Scenario.from_dict(network, overrides=overrides)
    for replication in range(5):
        flows_out = congsim.run(scenario, replication=replication).flows
        for _, flow in flows_out.iterrows():
            rows.append(
                {
                    "queue": queue,
                    "flow": flow["flow"],
                    "base RTT (ms)": int(flow["flow"][3:-2]),
                    "measured RTT (ms)": 1000 * flow["rtt_mean_s"],
                    "goodput (Mbps)": flow["goodput_bps"] / 1e6,
                }
            )
runs = pd.DataFrame(rows)
means = runs.groupby(["queue", "flow", "base RTT (ms)"], sort=False).mean().reset_index()
means.round(2)

# %%
# Goodput against the round trip
# ------------------------------
# Against the round trip without queueing (left) the shares fall more slowly under DropTail
# than under RED: DropTail's standing queue adds about 25 ms to every flow's round trip (RED's
# about 6), which shrinks the ratio between the shortest and the longest. Against
# the round trips each flow measured (right) both fall with about the same slope, near -1 on
# these logarithmic axes: under either queue a flow's goodput is close to inversely
# proportional to its round trip. The fitted slopes are printed below the figure.
fig, axes = plt.subplots(1, 2, figsize=(8, 3.6), sharey=True)
for ax, x in zip(axes, ["base RTT (ms)", "measured RTT (ms)"], strict=True):
    for queue, group in means.groupby("queue", sort=False):
        ax.plot(group[x], group["goodput (Mbps)"], marker="o", label=queue)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([20, 50, 100], ["20", "50", "100"])
    ax.set_yticks([1, 2, 4], ["1", "2", "4"])
    ax.minorticks_off()
    ax.set_xlabel(x)
axes[0].set_ylabel("goodput (Mbps, mean of 5)")
axes[0].legend()
fig.tight_layout()

for queue, group in means.groupby("queue", sort=False):
    for x in ("base RTT (ms)", "measured RTT (ms)"):
        slope = np.polyfit(np.log(group[x]), np.log(group["goodput (Mbps)"]), 1)[0]
        print(f"{queue}: goodput ~ ({x})^{slope:.2f}")
