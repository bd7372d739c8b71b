"""Seed 003's multi-hop BCN-TCP: decrease factors and max-min fairness across marking gateways."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, load_claims

#: How each metric the claims test is computed from a run.
METRICS = {
    "maxmin": Metric(
        "summary", "maxmin_index", 1.0, "max-min fairness index (TM 4.0) of the four flows", upper=1.0
    ),
    "jain": Metric("summary", "jain_index", 1.0, "Jain fairness index of the four flows", upper=1.0),
    "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total goodput after 5 s"),
}

STUDY = Study(
    name="sisalem1995-multihop",
    title="BCN-TCP across three marking gateways: decrease factors and max-min fairness (seed 003)",
    plan="sisalem1995-multihop.toml",
    reference=None,
    metrics=METRICS,
    claims=load_claims("sisalem1995-multihop-claims.toml", METRICS),
    notes=(
        "Only sentences of the multi-hop experiment survive (its switches are RED gateways: the "
        "seed says 'The switch is a random early drop (RED) gateway'; a line of EPRCA ATM "
        "switches is not run): a larger reduction factor gave a better "
        "fairness index, at the price of more oscillation and possibly lower throughput, "
        "and a second approach scaled each connection's factor by the switches it crosses (its "
        "outcome is lost, so that claim is congsim's own check). The network is chosen in "
        "sisalem1995-multihop-network.toml: a three-hop parking lot of RED marking gateways at "
        "10 Mbps, one long flow and one cross flow per hop, whose max-min rates are equal. The "
        "fairness index is the max-min one the seed names (summary maxmin_index: Jain's index "
        "of each flow's rate over its max-min fair rate). Calhoun's scheme, which the seed cites "
        "(decrease by 0.625 once per round trip with a mark, one segment more after two clean "
        'round trips: `bcn_reaction = "calhoun"`), runs beside; the seed reports no result '
        "for it, so its two claims are congsim's checks."
    ),
)
