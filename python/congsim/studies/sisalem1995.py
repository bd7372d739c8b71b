"""Seed 003: binary congestion notification against Reno and Tahoe, over a RED gateway and over ABR."""

from __future__ import annotations

from congsim.studies.declare import Metric, Study, load_claims

#: How each metric the claims test is computed from a run.
METRICS = {
    "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total goodput after 5 s"),
    "jain": Metric("summary", "jain_index", 1.0, "Jain fairness index of the ten flows", upper=1.0),
    "drops": Metric("summary", "drops", 1.0, "packets dropped in the network"),
    "timeouts": Metric("summary", "timeouts", 1.0, "retransmission timeouts, all flows"),
    "uni_drops": Metric("summary", "atm_uni_drops", 1.0, "datagrams lost at the UNI buffers"),
}

STUDY = Study(
    name="sisalem1995",
    title="Binary congestion notification vs Reno and Tahoe over a RED gateway (seed 003, IP part)",
    plan="sisalem1995.toml",
    reference=None,
    metrics=METRICS,
    claims=load_claims("sisalem1995-claims.toml", METRICS),
    notes=(
        "Only the reference list of seed 003 survives, so the study checks the paper's "
        "claims rather than its lost figures; the configuration is chosen in "
        "sisalem1995-network.toml and sisalem1995.toml (ten sources, 10 Mbps, 500-byte "
        "packets, the RED paper's parameters, a marking gateway that marks every "
        "ECN-capable packet above max_th, 4.3BSD TCP with a 10 ms clock and a 200 ms RTO "
        "floor so that the 200 ms delayed-ACK timer does not cause spurious timeouts). "
        "The one published result number belongs to the multi-hop configuration "
        "(sisalem1995-multihop). The sentence comparing RED with DropTail restates Floyd and "
        "Jacobson's findings, so it is checked as congsim's own expectation. The ABR "
        "part runs the same sources over ATM with an EPRCA switch and binary feedback "
        "(choices in sisalem1995-network.toml): UNI buffers lose TCP packets although the "
        "ATM network loses none, and BCN-TCP answering the switch's CI avoids those losses. "
        "The paper's Tahoe-over-Reno result over ABR does not show here: the 10 Mbps ATM "
        "link runs full whichever variant recovers the UNI losses."
    ),
)
