"""
A parking lot built in Python, swept and plotted
================================================

A parking lot is the classic network for fairness across paths of different lengths: one long
flow crosses every router, and each hop also carries a short flow that crosses it alone. Here
the scenario is built as a Python dictionary, validated exactly as a scenario file would be,
swept over the TCP variant and the router buffer with replications, and the long flow's share
is plotted with 95 % confidence intervals.
"""

# %%
# Build the scenario
# ------------------
# Three bottleneck hops of 10 Mbps between routers r0..r3; the long flow goes from ``long_src``
# to ``long_dst`` through all of them, and cross flow *i* enters at router *i* and leaves at
# router *i+1*. Each host has its own 100 Mbps access link.
import tempfile

import matplotlib.pyplot as plt

import congsim
from congsim.sweep import plan_of, run_sweep

HOPS = 3
routers = [f"r{i}" for i in range(HOPS + 1)]
nodes = [*routers, "long_src", "long_dst"]
links = [
    {"from": "long_src", "to": "r0", "rate": "100Mbps", "delay": "1ms"},
    {"from": f"r{HOPS}", "to": "long_dst", "rate": "100Mbps", "delay": "1ms"},
]
flows = [{"name": "long", "from": "long_src", "to": "long_dst"}]
for i in range(HOPS):
    links.append(
        {"from": f"r{i}", "to": f"r{i + 1}", "rate": "10Mbps", "delay": "5ms", "queue": {"limit_packets": 50}}
    )
    nodes += [f"cross{i}_src", f"cross{i}_dst"]
    links += [
        {"from": f"cross{i}_src", "to": f"r{i}", "rate": "100Mbps", "delay": "1ms"},
        {"from": f"r{i + 1}", "to": f"cross{i}_dst", "rate": "100Mbps", "delay": "1ms"},
    ]
    flows.append({"name": f"cross{i}", "from": f"cross{i}_src", "to": f"cross{i}_dst"})

scenario = congsim.Scenario.from_dict(
    {
        "name": "parking-lot",
        "nodes": nodes,
        "simulation": {"duration": "20s", "measure_from": "5s", "start_jitter": "1s"},
        "links": links,
        "tcp": {"profile": "ns2_2002", "packet_size": "1000B", "window": 1000},
        "flows": flows,
    }
)
print(scenario)

# %%
# Check the routes
# ----------------
# Routes are by hop count; ``network()`` gives each flow's path as link indices, the same
# thing ``congsim validate --routes`` prints.
network = scenario.network()
for path in network["paths"]:
    if path["direction"] == "data":
        hops = [network["links"][i] for i in path["links"]]
        print(path["name"], " -> ".join([hops[0]["from"], *(h["to"] for h in hops)]))

# %%
# One run, analysed with pandas
# -----------------------------
results = congsim.run(scenario)
results.flows[["flow", "goodput_bps", "timeouts", "fast_retransmits"]]

# %%
# The long flow is nearly locked out: it loses a packet in almost every congestion episode of
# every hop it crosses, while each cross flow loses about one per episode of its single hop, so
# its loss rate per packet is a hundred times theirs (``flow_monitor`` counts drops per flow and
# link: see the output table reference).
#
# A sweep with replications
# -------------------------
# DropTail against RED on every link, Reno against SACK, three replications each: 12 runs on
# the local cores. Each run's result is stored as it finishes, so an interrupted sweep resumes
# where it stopped.
plan = plan_of(
    scenario,
    axes={"tcp.variant": ["reno", "sack"], "links[*].queue.kind": ["droptail", "red"]},
    replications=3,
)
with tempfile.TemporaryDirectory() as store:
    outcome = run_sweep(plan, store, workers=2)
    runs = outcome.results()
rows = runs[(runs["table"] == "flows") & (runs["metric"] == "goodput_bps")]
total = rows.groupby("run")["value"].transform("sum")
share = rows.assign(share=rows["value"] / total)
long_share = share[share["flow"] == "long"]
stats = (
    long_share.groupby(["links[*].queue.kind", "tcp.variant"])["share"]
    .agg(["mean", "std", "count"])
    .reset_index()
)
stats

# %%
# Plot the long flow's share
# --------------------------
# An equal split would give it 1/4. The error bars are 95 % Student-t intervals over the
# replications (``start_jitter`` makes them differ).
from congsim.sweep import confidence_half_width

fig, ax = plt.subplots(figsize=(6, 3.5))
width = 0.35
for offset, (variant, group) in zip((-width / 2, width / 2), stats.groupby("tcp.variant"), strict=True):
    half = [confidence_half_width(s, n) for s, n in zip(group["std"], group["count"], strict=True)]
    x = [i + offset for i in range(len(group))]
    ax.bar(x, group["mean"], width, yerr=half, capsize=3, label=variant)
ax.set_xticks(range(len(group)), list(group["links[*].queue.kind"]))
ax.axhline(1 / (HOPS + 1), color="grey", linestyle=":", label="equal split")
ax.set_ylabel("long flow's share of goodput")
ax.legend()
fig.tight_layout()
