"""Seed 004: Reno, NewReno and SACK in a CBQ network with CBR traffic (Tables 1-7, Figures 2-10)."""

from __future__ import annotations

from congsim.studies.framework import Claim, Metric, Study


def _koga_claims() -> list[Claim]:
    """Seed 004's orderings in every CBR case: SACK > NewReno > Reno in total throughput, and
    Reno times out many times as often as NewReno."""
    claims = []
    for case in ("only-tcp", "large-cbr", "multiple-cbr", "fluctuation", "burst"):

        def config(variant: str, case: str = case) -> dict[str, str]:
            return {"label": case, "tcp.variant": variant, "flows[10].tcp.variant": ""}

        claims += [
            Claim(
                f"{case}: NewReno gets more throughput than Reno",
                "throughput_mbps",
                config("reno"),
                config("newreno"),
            ),
            Claim(
                f"{case}: SACK gets more throughput than NewReno",
                "throughput_mbps",
                config("newreno"),
                config("sack"),
            ),
            Claim(
                f"{case}: Reno times out more than ten times as often as NewReno",
                "timeouts",
                config("newreno"),
                config("reno"),
                10.0,
            ),
        ]
    return claims


STUDY = Study(
    name="koga2000",
    title="TCP implementations in a QoS network with CBR traffic (seed 004)",
    plan="koga2000.toml",
    reference="koga2000.csv",
    metrics={
        "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total TCP throughput"),
        "cov": Metric("summary", "cov", 1.0, "coefficient of variation of per-flow throughput"),
        "timeouts": Metric("summary", "timeouts", 1.0, "retransmission timeouts, all TCP flows"),
        "fast_recoveries": Metric("summary", "fast_recoveries", 1.0, "fast recoveries, all TCP flows"),
        "reno_mbps": Metric("summary", "total_goodput_bps_reno", 1e-6, "the 10 Reno flows' throughput"),
        "sack_mbps": Metric("summary", "total_goodput_bps_sack", 1e-6, "the 10 SACK flows' throughput"),
    },
    claims=tuple(_koga_claims()),
    trace_points_by="label",
    notes=(
        "Node 1 is ns-2's CBQ as the paper set it up (CBR 30 % at priority 1, TCP 70 % at "
        "priority 2, both borrowing, 200 packets each; spec ip.md 4.4). "
        "Unstated values follow spec tcp.md 7.5 (window 64, access delays 3-7 ms, CBR access "
        "links at 100 Mbps, 500-byte packets, the 'multiple CBR' staircase). As ns-2.35 in "
        "the spec's evidence, Reno makes about half the paper's fast recoveries and a few "
        "more timeouts: the paper's ns-2 allowed a second fast retransmit per window "
        "(bugFix_ off), which the ns2_2000 profile does not. Tables 3 and 6 ('multiple CBR' "
        "and 'hard shaper') describe one configuration with different published values."
    ),
)
