"""Seed 001: buffer requirements for TCP over ABR (ERICA, ERICA+, VBR background)."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, Variant, load_claims

#: Deviation D24 beside the a-priori default (ERICA's pseudo-code, no cap): every seed-001 study
#: runs it.
CCR_CAP = Variant(
    "ccr-cap",
    {"atm.erica.ccr_cap": "always"},
    "deviation D24, once the default because it scored better (guess G13): a source slowed by VBR "
    "sends a forward RM cell only every 32 cells, so ERICA's table keeps its old rate and CCR/z "
    "hands it back; the cap counts a VC's CCR as at most the last ER the port gave it.",
)

#: How each reference metric is computed from a run.
METRICS = {
    "max_queue_cells": Metric(
        "summary", "atm_max_queue_cells", 1.0, "maximum queue at the bottleneck, cells"
    ),
    "max_queue_rtts": Metric("summary", "atm_max_queue_rtts", 1.0, "the same in round trips of the path"),
    "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total TCP throughput"),
    "efficiency_percent": Metric(
        "summary", "efficiency", 100.0, "throughput / 125.2 Mbps (75.12 with VBR), %"
    ),
    "fairness": Metric("summary", "jain_index", 1.0, "Jain fairness index", upper=1.0),
}

STUDY = Study(
    name="jain1996",
    title="Buffer requirements for TCP over ABR (seed 001)",
    plan="jain1996.toml",
    reference="jain1996.csv",
    metrics=METRICS,
    claims=load_claims("jain1996-claims.toml", METRICS),
    layout=("label", None),
    variants=(
        CCR_CAP,
        Variant(
            "delta-0",
            {"atm.erica.delta": 0.0},
            "the seed does not print ERICA's overload band delta (deviation D29); the default 0.1 "
            "is the ERICA papers', delta = 0 the formula without the band.",
        ),
        Variant(
            "duration-20s",
            {"simulation.duration": "20s"},
            "sensitivity to guess G7, fixed before running: the seed does not print its run "
            "length; 20 s is the comparison the specification names beside its 10 s default "
            "(a maximum queue can only grow with the run).",
        ),
    ),
    notes=(
        "Seed 001 on spec atm.md 8.2's reading: 155.52 Mbps cells, infinite buffers, modified "
        "ERICA (one ER per VC per interval, the slow-VC clamp, the max-min step inside the "
        "delta band, immediate, bidirectional and decayed VC counting) at U = 0.9 over "
        "min(100 cells, 1 ms), TM 4.0 sources with seed 001's parameters, 4.3BSD TCP with "
        "16 x 64 KB windows, 10 s runs, 15 sources where the seed does not say, VBR at 0.8 "
        "of the link in 50 % on/off from 2 ms. The seed prints only one set of numbers for "
        "each VBR 'solution'; both 30 ms and 10 ms VBR periods run against it. ERICA reads "
        "each VC's rate (CCR) from its forward RM cells, as its pseudo-code. A source slowed "
        "by VBR sends one only every 32 cells, so the table keeps the old rate and CCR/z hands "
        "it back: the queues stay within a few round trips without VBR but pass 4 beside 30 "
        "and 100 ms VBR, ERICA+ does not bound 10 ms VBR, and the long-access rows (FB1, FB3) "
        "queue about 5 round trips. Counting a CCR as at most the last ER given (deviation "
        "D24, once the default, now the ccr-cap variant) bounds them all but 10 ms VBR "
        "without ERICA+, and 1 ms VBR then no longer diverges."
    ),
)
