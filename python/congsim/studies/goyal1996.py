"""Seed 000: TCP over UBR+ with fast retransmit and recovery (Tables 1-4, efficiency and fairness)."""

from __future__ import annotations

from congsim.studies.framework import Claim, Metric, Study


def _goyal_claims() -> list[Claim]:
    """Seed 000's conclusions, on column averages (the eight network configurations): EPD with
    fast retransmit beats plain UBR in efficiency and fairness; plain UBR wastes much of a LAN;
    Selective Drop and FBA are fairer than EPD without fast retransmit."""

    def side(frr: bool, policy: str, labels: tuple[str, ...] = ()) -> dict[str, str | tuple[str, ...]]:
        config: dict[str, str | tuple[str, ...]] = {"tcp.fast_retransmit": str(frr), "atm.policy": policy}
        return config | ({"label": labels} if labels else {})

    lan = ("LAN-5-1000", "LAN-5-3000", "LAN-15-1000", "LAN-15-3000")
    claims = [
        Claim(
            f"with FRR, EPD raises the average {metric} over plain UBR",
            metric,
            side(True, "tail_drop"),
            side(True, "epd"),
        )
        for metric in ("efficiency", "fairness")
    ]
    claims += [
        Claim(
            f"{'with' if frr else 'without'} FRR, plain UBR's average LAN efficiency is below 0.8 "
            f"(paper: {0.69 if frr else 0.34:g})",
            "efficiency",
            side(frr, "tail_drop", lan),
            bound=0.8,
        )
        for frr in (False, True)
    ]
    claims += [
        Claim(
            f"without FRR, {name} is fairer than EPD on average",
            "fairness",
            side(False, "epd"),
            side(False, policy),
        )
        for policy, name in (("selective_drop", "Selective Drop"), ("fba", "FBA"))
    ]
    return claims


STUDY = Study(
    name="goyal1996",
    title="TCP over UBR+ with fast retransmit and recovery (seed 000)",
    plan="goyal1996.toml",
    reference="goyal1996.csv",
    metrics={
        "efficiency": Metric(
            "summary", "efficiency", 1.0, "total throughput / 125.2 Mbps (the cell ceiling)"
        ),
        "fairness": Metric("summary", "jain_index", 1.0, "Jain fairness index of the N flows", upper=1.0),
    },
    claims=tuple(_goyal_claims()),
    average_label="average",
    notes=(
        "The N-source configuration as spec atm.md 8.1 reads seed 000: 155.52 Mbps cells "
        "without SONET overhead, 4.3BSD Reno with a 100 ms clock and a 2-tick RTO floor, "
        "EPD/Selective Drop/FBA at R = 0.9 K and Z = 0.8 with partial packet discard after "
        "an overflow, plain UBR without it; the VCs of one cell time draw for a full "
        "buffer's last free place (deviation D25). The paper starts every source at once with "
        "nothing random, which synchronises them; here each replication starts each source "
        "up to 1 ms late (deviation D19), so a table cell is a mean over 5 runs of a "
        "chaotic system the paper sampled once. Column averages are the mean of the eight "
        "rows, per replication."
    ),
)
