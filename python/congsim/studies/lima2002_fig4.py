"""Seed 002's Fig. 4: Reno, NewReno and SACK with Limited Transmit sharing one bottleneck."""

from __future__ import annotations

from congsim.studies.declare import Claim, Metric, Study

#: The seed's words the claims check (its Fig. 4 itself did not survive extraction).
FAIR_SHARE = (
    "As can be seen in the Fig. 4, the obtained bandwidth value is very similar, which means that "
    "they share fairly the available bandwidth."
)
NEWRENO_BEST = "However, newreno-lt presents better results for the mean number of RTO."
SACK_WORST = "Again, Sack performance was the worst among them."

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


def _claims() -> list[Claim]:
    """Over the four loads together (the paper's statements are about Fig. 4 as a whole)."""
    claims = [
        Claim(
            f"every load: {variant}-lt's mean bandwidth is within 10 % of reno-lt's",
            f"bandwidth_kbps_{variant}",
            {},
            {},
            rhs_metric="bandwidth_kbps_reno",
            ratio_between=(0.9, 1.1),
            source=FAIR_SHARE,
        )
        for variant in ("newreno", "sack")
    ]
    claims += [
        Claim(
            f"every load: newreno-lt has fewer RTOs than {other}-lt",
            "rtos_newreno",
            {},
            {},
            rhs_metric=f"rtos_{other}",
            source=NEWRENO_BEST,
        )
        for other in ("reno", "sack")
    ]
    claims.append(
        Claim(
            "every load: sack-lt has more RTOs than reno-lt",
            "rtos_reno",
            {},
            {},
            rhs_metric="rtos_sack",
            source=SACK_WORST,
            note=(
                "reason not found: as in lima2002's runs of one variant at a time, SACK-LT times "
                "out less often than Reno-LT here"
            ),
        )
    )
    return claims


STUDY = Study(
    name="lima2002-fig4",
    title="Reno, NewReno and SACK with Limited Transmit sharing a RED bottleneck (seed 002, Fig. 4)",
    plan="lima2002-fig4.toml",
    reference=None,
    metrics=_metrics(),
    claims=tuple(_claims()),
    notes=(
        "Fig. 4's curves did not survive extraction; the study checks the three statements the "
        "text makes about them. The network is lima2002's (its assumptions: 10 Mbps / 20 ms RED "
        "bottleneck, 2 x 5 % CBR, 200 s with 20 s warm-up, 10 replications); S1's web traffic is "
        "split into three groups of equal load, one per variant, each with Limited Transmit, at "
        "total loads 0.3 to 0.9. Each claim pools the four loads, replication by replication."
    ),
)
