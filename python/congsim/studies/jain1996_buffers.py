"""Seed 001's finite-buffer ABR case: drop policies and buffers of a round trip or less."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, load_claims
from congsim.studies.jain1996 import CCR_CAP

#: How each metric the claims test is computed from a run.
METRICS = {
    "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total TCP goodput"),
    "cells_dropped": Metric("summary", "atm_cells_dropped", 1.0, "cells dropped at the switches"),
    "max_queue_rtts": Metric(
        "summary", "atm_max_queue_rtts", 1.0, "maximum queue, in round trips of the path"
    ),
}

STUDY = Study(
    name="jain1996-buffers",
    title="TCP over ABR with finite switch buffers: tail drop and EPD (seed 001)",
    plan="jain1996-buffers.toml",
    reference=None,
    metrics=METRICS,
    claims=load_claims("jain1996-buffers-claims.toml", METRICS),
    variants=(CCR_CAP,),
    notes=(
        "The seed's tables are for infinite buffers; of finite ones it says that one round trip of "
        "buffer suffices with a small number of sources and no VBR but not with a large number, "
        "that one round trip may do, and that drop policies improve throughput but are not "
        "critical. The study runs its N = 15 row (30 ms round trip, 15 TCP sources, modified "
        "ERICA) with switch buffers of one and half a round trip under tail drop and EPD "
        "(threshold 0.9), and its N = 5 row with one round trip under tail drop, each beside "
        "infinite buffers; 5 replications. Words without a number ('may do', 'not critical') are "
        "read by the one band rule (data/jain1996-buffers-claims.toml)."
    ),
)
