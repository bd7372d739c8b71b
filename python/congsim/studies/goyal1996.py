"""Seed 000: TCP over UBR+ with fast retransmit and recovery (Tables 1-4, efficiency and fairness)."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, Variant, load_claims

#: How each reference metric is computed from a run.
METRICS = {
    "efficiency": Metric("summary", "efficiency", 1.0, "total throughput / 125.2 Mbps (the cell ceiling)"),
    "fairness": Metric("summary", "jain_index", 1.0, "Jain fairness index of the N flows", upper=1.0),
}

STUDY = Study(
    name="goyal1996",
    title="TCP over UBR+ with fast retransmit and recovery (seed 000)",
    plan="goyal1996.toml",
    reference="goyal1996.csv",
    metrics=METRICS,
    claims=load_claims("goyal1996-claims.toml", METRICS),
    layout=("label", "atm.policy"),
    variants=(
        Variant(
            "no-jitter",
            {"simulation.start_jitter": "0s"},
            "the paper started every source at 0 (deviation D19 staggers them by up to 1 ms so "
            "that replications differ); without it the replications are identical.",
        ),
        Variant(
            "random-contention",
            {"atm.contention": "random"},
            "deviation D25, once the default because it reproduced plain UBR's LAN numbers: the "
            "VCs whose cells arrived within the last cell time draw for a freed buffer place, as "
            "a fabric serving its inputs in random order would (spec atm.md 1.3, the default, "
            "gives it to the next cell to arrive).",
        ),
        Variant(
            "threshold-0.8",
            {"atm.threshold": 0.8},
            "sensitivity to guess G2, fixed before running: the paper prints R only for FBA; R = 0.8 "
            "of the buffer is the sensitivity point the specification fixed for EPD (it moves "
            "FBA's printed R too, so those cells show sensitivity, not the paper).",
        ),
        Variant(
            "z-1.0",
            {"atm.z": 1.0},
            "sensitivity to guess G3, fixed before running: the paper prints Z only for FBA; Z = 1 "
            "cuts a VC only above its equal share of the buffer (it moves FBA's printed Z too).",
        ),
    ),
    average_label="average",
    notes=(
        "The N-source configuration as spec atm.md 8.1 reads seed 000: 155.52 Mbps cells "
        "without SONET overhead, 4.3BSD Reno with a 100 ms clock and a 2-tick RTO floor, "
        "EPD/Selective Drop/FBA at R = 0.9 K and Z = 0.8 with partial packet discard after "
        "an overflow, plain UBR without it; a full buffer's freed place goes to the "
        "next cell to arrive (spec atm.md 1.3; deviation D25's draw is a variant). The paper "
        "starts every source at once with nothing random, which synchronises them; here each "
        "replication starts each source "
        "up to 1 ms late (deviation D19), so a table cell is a mean over 5 runs of a "
        "chaotic system the paper sampled once. Column averages are the mean of the eight "
        "rows, per replication."
    ),
)
