"""Seed 001: buffer requirements for TCP over ABR (ERICA, ERICA+, VBR background)."""

from __future__ import annotations

from congsim.studies.framework import Claim, Metric, Study


def _jain_claims() -> list[Claim]:
    """Seed 001's conclusions: with modified ERICA no cell is lost with a buffer of 4 round
    trips (5, 10, 15 sources, every RTT, VBR at 30 and 100 ms); VBR at 10 ms and 1 ms makes the
    ERICA queue diverge;
    ERICA+ keeps it bounded and below ERICA's. In a finite run a diverging queue ends where the
    TCP windows stop it (15 x 1 MB here, about 34 round trips); a controlled one stays within a
    few round trips, so 10 round trips separates the two."""
    claims = [
        Claim(
            f"{label}: the queue stays below 4 round trips (so a 4 x RTT buffer loses no cell)",
            "max_queue_rtts",
            {"label": label},
            bound=4.0,
        )
        for label in ("A-N5", "A-N10", "A-N15", "A-RTT15", "A-RTT6", "A-RTT1.5", "A-V30", "A-V100")
    ]
    claims += [
        Claim(
            f"{label}: VBR on/off at {period} makes the ERICA queue diverge (beyond 10 round trips)",
            "max_queue_rtts",
            lhs={},
            rhs={"label": label},
            lhs_bound=10.0,
        )
        for label, period in (("A-V10", "10 ms"), ("A-V1", "1 ms"))
    ]
    claims += [
        Claim(
            f"ERICA+ with VBR at {period} keeps its queue bounded (within 10 round trips)",
            "max_queue_rtts",
            {"label": f"A-SOL-E+ (VBR {period})"},
            bound=10.0,
        )
        for period in ("30 ms", "10 ms")
    ]
    claims.append(
        Claim(
            "ERICA+ holds a smaller queue than ERICA with VBR at 30 ms",
            "max_queue_cells",
            {"label": "A-SOL-E+ (VBR 30 ms)"},
            {"label": "A-V30"},
        )
    )
    return claims


STUDY = Study(
    name="jain1996",
    title="Buffer requirements for TCP over ABR (seed 001)",
    plan="jain1996.toml",
    reference="jain1996.csv",
    metrics={
        "max_queue_cells": Metric(
            "summary", "atm_max_queue_cells", 1.0, "maximum queue at the bottleneck, cells"
        ),
        "max_queue_rtts": Metric("summary", "atm_max_queue_rtts", 1.0, "the same in round trips of the path"),
        "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total TCP throughput"),
        "efficiency_percent": Metric(
            "summary", "efficiency", 100.0, "throughput / 125.2 Mbps (75.12 with VBR), %"
        ),
        "fairness": Metric("summary", "jain_index", 1.0, "Jain fairness index", upper=1.0),
    },
    claims=tuple(_jain_claims()),
    notes=(
        "Seed 001 on spec atm.md 8.2's reading: 155.52 Mbps cells, infinite buffers, modified "
        "ERICA (one ER per VC per interval, the slow-VC clamp, the max-min step inside the "
        "delta band, immediate, bidirectional and decayed VC counting) at U = 0.9 over "
        "min(100 cells, 1 ms), TM 4.0 sources with seed 001's parameters, 4.3BSD TCP with "
        "16 x 64 KB windows, 10 s runs, 15 sources where the seed does not say, VBR at 0.8 "
        "of the link in 50 % on/off from 2 ms. The seed prints only one set of numbers for "
        "each VBR 'solution'; both 30 ms and 10 ms VBR periods run against it. A source slowed "
        "by VBR sends a forward RM cell only every 32 cells, so ERICA's CCR table goes "
        "stale and CCR/z would hand the old rate back: modified ERICA counts a CCR as at "
        "most the last ER given until the next FRM, ERICA+ always (deviation D24). The "
        "queues then stay within a few round trips without VBR and beside 30 ms VBR, 10 "
        "and 1 ms VBR diverge, and ERICA+ bounds them, as in the paper; the long-access "
        "rows (FB1, FB3) queue about 5 round trips (paper about 1). The 70 % target "
        "bounds 30 ms VBR, not 10 ms."
    ),
)
