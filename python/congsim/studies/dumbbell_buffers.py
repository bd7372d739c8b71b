"""The platform study: Reno and Tahoe on dumbbell-20 across bottleneck buffers, against ns-2.35
on the same scenario."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study

STUDY = Study(
    name="dumbbell-buffers",
    title="Reno vs Tahoe on dumbbell-20 across bottleneck buffers, against ns-2 (platform study)",
    plan="dumbbell-buffers.toml",
    reference="dumbbell-buffers.csv",
    metrics={
        "total_throughput_mbps": Metric(
            "summary", "total_goodput_bps", 1e-6, "total throughput (ns2_2000: wire = payload)"
        ),
        "timeouts": Metric("summary", "timeouts", 1.0, "retransmission timeouts, all flows"),
    },
    capture_links=("s1->r1", "r1->s1"),
)
