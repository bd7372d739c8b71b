"""Seed 001's finite-buffer ABR case: drop policies and buffers of a round trip or less."""

from __future__ import annotations

from congsim.studies.declare import Claim, Metric, Study

#: The seed's words the claims check (bullets of its "Observations About ABR" slide).
DROP_POLICIES = "Drop policies improve throughput but are not critical."
ONE_RTT = "Under many circumstances, $1 \\times \\text{RTT}$ buffers may do."


def _point(label: str, policy: str) -> dict[str, str]:
    return {"label": label, "atm.policy": policy}


INFINITE = {"label": "infinite"}

STUDY = Study(
    name="jain1996-buffers",
    title="TCP over ABR with finite switch buffers: tail drop and EPD (seed 001)",
    plan="jain1996-buffers.toml",
    reference=None,
    metrics={
        "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total TCP goodput"),
        "cells_dropped": Metric("summary", "atm_cells_dropped", 1.0, "cells dropped at the switches"),
    },
    claims=(
        *(
            Claim(
                f"{label} buffers: EPD gives more throughput than tail drop",
                "throughput_mbps",
                _point(label, "tail_drop"),
                _point(label, "epd"),
                source=DROP_POLICIES,
            )
            for label in ("1 RTT", "0.5 RTT")
        ),
        *(
            Claim(
                f"{label} buffers: tail drop keeps at least 90 % of EPD's throughput (not critical)",
                "throughput_mbps",
                _point(label, "epd"),
                _point(label, "tail_drop"),
                factor=0.9,
                source=DROP_POLICIES,
                note=(
                    "with buffers below the 1.36 round trips 15 sources' queue reaches, tail drop "
                    "carries the rest of every packet it cut a cell from, wasted; the seed does not "
                    "say which buffer sizes its statement covers"
                ),
            )
            for label in ("1 RTT", "0.5 RTT")
        ),
        Claim(
            "1 RTT buffers with EPD keep at least 90 % of the throughput of infinite buffers",
            "throughput_mbps",
            INFINITE,
            _point("1 RTT", "epd"),
            factor=0.9,
            source=ONE_RTT,
            note=(
                "on the edge: one round trip with EPD keeps 90 % of the infinite buffers' "
                "goodput to within a few tenths of a percent, so the verdict rests on congsim's "
                "reading of 'may do' as 90 %"
            ),
        ),
        Claim(
            "1 RTT buffers lose cells with 15 sources (their queue reaches 1.36 round trips)",
            "cells_dropped",
            {},
            _point("1 RTT", "tail_drop"),
            lhs_bound=0.0,
            origin="check",
        ),
    ),
    notes=(
        "The seed's tables are for infinite buffers; of finite ones it says only that drop "
        "policies improve throughput but are not critical, and that one round trip of buffer "
        "may do. The study runs its N = 15 row (30 ms round trip, 15 TCP sources, modified "
        "ERICA) with switch buffers of one and half a round trip under tail drop and EPD "
        "(threshold 0.9), beside infinite buffers; 5 replications. The thresholds of 'not "
        "critical' and 'may do' (90 %) are congsim's reading."
    ),
)
