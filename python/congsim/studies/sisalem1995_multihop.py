"""Seed 003's multi-hop BCN-TCP: decrease factors and max-min fairness across marking gateways."""

from __future__ import annotations

from congsim.studies.declare import Claim, Metric, Study

#: The seed's words the claims check; what came before "This" (the first approach) is lost.
LARGER_FAIRER = "This resulted in a better fairness performance and a fairness index of 0.89."
LARGER_SLOWER = (
    "However, using larger reduction factors leads to a more oscillating traffic and possibly "
    "lower through put"
)
FACTOR_NOT_PRINTED = (
    "an unknown set-up: the seed does not print the larger factor; 0.9375 (TM 4.0's default "
    "rate decrease for ABR sources, which BCN-TCP imitates) was chosen before running, 0.875 "
    "runs beside it"
)


def _point(factor: float, long_flow: float | None = None, reaction: str = "per_marked_ack") -> dict[str, str]:
    return {
        "tcp.bcn_reaction": reaction,
        "tcp.bcn_factor": str(factor),
        "flows[0].tcp.bcn_factor": str(long_flow or factor),
    }


SEED_FACTOR = _point(0.975)
LARGER = _point(0.9375)
PER_SWITCH = _point(0.975, 0.991596)
CALHOUN = _point(0.625, reaction="calhoun")
#: The seed's words on Calhoun's scheme, which it cites but does not run.
CALHOUN_SCHEME = (
    "In this scheme, the source decreases its window by a factor of 0.625 if within a round trip "
    "time a packet with a set congestion bit is received. If within two round trip times no "
    "congestion indications were received the window can be increased by one."
)

STUDY = Study(
    name="sisalem1995-multihop",
    title="BCN-TCP across three marking gateways: decrease factors and max-min fairness (seed 003)",
    plan="sisalem1995-multihop.toml",
    reference=None,
    metrics={
        "maxmin": Metric(
            "summary", "maxmin_index", 1.0, "max-min fairness index (TM 4.0) of the four flows", upper=1.0
        ),
        "jain": Metric("summary", "jain_index", 1.0, "Jain fairness index of the four flows", upper=1.0),
        "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total goodput after 5 s"),
    },
    claims=(
        Claim(
            "a larger reduction (0.9375) is fairer than the seed's 0.975 (max-min index)",
            "maxmin",
            SEED_FACTOR,
            LARGER,
            source=LARGER_FAIRER,
        ),
        Claim(
            "a larger reduction (0.9375) gives a max-min index of 0.89 (within 10 %)",
            "maxmin",
            LARGER,
            bound=0.89,
            ratio_between=(0.9, 1.1),
            source=LARGER_FAIRER,
            note=FACTOR_NOT_PRINTED,
        ),
        Claim(
            "a larger reduction (0.9375) gives less total throughput than 0.975",
            "throughput_mbps",
            LARGER,
            SEED_FACTOR,
            source=LARGER_SLOWER,
        ),
        Claim(
            "per-switch factors (the long flow 0.975^(1/3)) are fairer than 0.975 for every flow",
            "maxmin",
            SEED_FACTOR,
            PER_SWITCH,
            origin="check",
        ),
        Claim(
            "Calhoun's scheme (0.625 once per round trip) is fairer than 0.975 per marked ACK, "
            "as the seed finds larger reductions to be",
            "maxmin",
            SEED_FACTOR,
            CALHOUN,
            origin="check",
            source=CALHOUN_SCHEME,
        ),
        Claim(
            "Calhoun's scheme keeps at least 90 % of the throughput of 0.975 per marked ACK",
            "throughput_mbps",
            SEED_FACTOR,
            CALHOUN,
            factor=0.9,
            origin="check",
            source=CALHOUN_SCHEME,
        ),
    ),
    notes=(
        "Only sentences of the multi-hop experiment survive (its switches are RED gateways: the "
        "seed says 'The switch is a random early drop (RED) gateway'; a line of EPRCA ATM "
        "switches is not run): a larger reduction factor gave a "
        "fairness index of 0.89, at the price of more oscillation and possibly lower throughput, "
        "and a second approach scaled each connection's factor by the switches it crosses (its "
        "outcome is lost, so that claim is congsim's own check). The network is chosen in "
        "sisalem1995-multihop-network.toml: a three-hop parking lot of RED marking gateways at "
        "10 Mbps, one long flow and one cross flow per hop, whose max-min rates are equal. The "
        "fairness index is the max-min one the seed names (summary maxmin_index: Jain's index "
        "of each flow's rate over its max-min fair rate). Calhoun's scheme, which the seed cites "
        "(decrease by 0.625 once per round trip with a mark, one segment more after two clean "
        'round trips: `bcn_reaction = "calhoun"`), runs beside; the seed reports no result '
        "for it, so its two claims are congsim's checks."
    ),
)
