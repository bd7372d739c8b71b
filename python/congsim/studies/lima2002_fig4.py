"""Seed 002's Fig. 4: Reno, NewReno and SACK with Limited Transmit sharing one bottleneck."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, Variant, load_claims

VARIANTS = ("reno", "newreno", "sack")


def _metrics() -> dict[str, Metric]:
    metrics = {}
    for variant in VARIANTS:
        group = f"{variant}_lt"
        metrics[f"bandwidth_kbps_{variant}"] = Metric(
            "summary",
            f"transfer_bandwidth_mean_bps_{group}",
            1e-3,
            f"mean bandwidth per {variant}-lt transfer",
        )
        metrics[f"rtos_{variant}"] = Metric(
            "summary",
            f"transfer_timeouts_mean_{group}",
            1.0,
            f"retransmission timeouts per {variant}-lt transfer",
        )
    return metrics


#: Each variant's bandwidth and RTOs per transfer.
METRICS = _metrics()

STUDY = Study(
    name="lima2002-fig4",
    title="Reno, NewReno and SACK with Limited Transmit sharing a RED bottleneck (seed 002, Fig. 4)",
    plan="lima2002-fig4.toml",
    reference=None,
    metrics=METRICS,
    claims=load_claims("lima2002-fig4-claims.toml", METRICS),
    notes=(
        "Fig. 4's curves did not survive extraction; the study checks the three statements the "
        "text makes about them. The network is lima2002's (its assumptions: 10 Mbps / 20 ms RED "
        "bottleneck, 2 x 5 % CBR, 200 s with 20 s warm-up, 10 replications); S1's web traffic is "
        "split into three groups of equal load, one per variant, each with Limited Transmit, at "
        "total loads 0.3 to 0.9. Each claim pools the four loads, replication by replication."
    ),
    # lima2002's sensitivity variants for the web law's guessed shapes, fixed before running and
    # applied to all three groups.
    variants=(
        Variant(
            "web-sigma-1",
            {f"transfers[{g}].web_sigma": 1.0 for g in range(len(VARIANTS))},
            "sensitivity to guess G21, as lima2002's: the web body's sigma at 1.0, ns-2's "
            "RandomVariable/LogNormal default, instead of SURGE's 1.318 (the printed means kept).",
        ),
        Variant(
            "web-alpha-1.5",
            {f"transfers[{g}].web_alpha": 1.5 for g in range(len(VARIANTS))},
            "sensitivity to guess G22, as lima2002's: the web tail's alpha at 1.5, ns-2's "
            "RandomVariable/Pareto default, instead of SURGE's 1.1 (the printed means kept).",
        ),
    ),
)
