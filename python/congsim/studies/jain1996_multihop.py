"""Seed 001's multi-hop fairness case: ERICA against modified ERICA when flows are bottlenecked
at different switches and one arrives late."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, Variant, load_claims
from congsim.studies.jain1996 import CCR_CAP

#: How each metric the claims test is computed from a run.
METRICS = {
    "maxmin": Metric("summary", "maxmin_index", 1.0, "max-min fairness index of the ten flows", upper=1.0),
    "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total TCP goodput from 4 s"),
}

STUDY = Study(
    name="jain1996-multihop",
    title="ERICA and modified ERICA on a multi-hop ABR network: max-min fairness (seed 001)",
    plan="jain1996-multihop.toml",
    reference=None,
    metrics=METRICS,
    claims=load_claims("jain1996-multihop-claims.toml", METRICS),
    variants=(
        CCR_CAP,
        Variant(
            "replications-10",
            {},
            "exploratory, not pre-registered (deviation D32): 10 replications were once taken "
            "because 3 left ERICA against modified ERICA not significant.",
            replications=10,
        ),
    ),
    notes=(
        "The seed states that modified ERICA achieves better fairness in many cases (some flows "
        "bottlenecked earlier, other flows with ACR >= FS, overload 1) without a configuration or "
        "a number. The network, chosen in jain1996-multihop-network.toml, has exactly those: B "
        "flows held to an eighth of the first trunk, A flows free to take the rest of the "
        "second, and A flow a2 starting 2 s late while a1 holds the trunk. Fairness is the "
        "max-min index (each flow's rate over its max-min fair rate, so flows with different "
        "fair rates are fair when each gets its own). With the flows starting together, both "
        "algorithms reach max-min rates (index 0.9999). 3 replications, fixed with the other "
        "seed-001 studies; the 10 once run because 3 were not significant are an exploratory "
        "variant."
    ),
)
