"""Seed 003: binary congestion notification against Reno and Tahoe, over a RED gateway and over ABR."""

from __future__ import annotations

from congsim.studies.declare import Claim, Metric, Study

#: The seed keeps only the reference list and its context sentences: the claims on drops,
#: throughput and UNI losses are congsim's expectations of what the title promises, checked as
#: its own; those with a sentence are the paper's.
RED_FAIR = (
    "Compared to the drop tail scheme higher utilization can be reached with this scheme, fairer "
    "bandwidth distribution is achieved and global synchronization can be avoided"
)
TAHOE_ABR = (
    "Secondly, on the contrary to the results achieved in Section 5, Tahoe-TCP achieves higher "
    "throughput than Reno-TCP. This was caused by the packet drop behavior noticed at the user "
    "network interfaces."
)


def _sisalem_claims(variant: str) -> list[Claim]:
    """Seed 003's claims for one TCP variant: marking gateways cut the drops to near zero and
    keep the link busy; DropTail is less fair than RED."""

    def config(gateway: str, marks: str) -> dict[str, str]:
        return {"tcp.variant": variant, "tcp.congestion_marks": marks, "links[0].queue.kind": gateway}

    red_drop = config("red", "off")
    claims = []
    for marks, name in (("ecn", "ECN (Floyd 1994)"), ("bcn", "BCN-TCP")):
        claims += [
            Claim(
                f"{variant}: {name} at a marking RED gateway drops under a tenth of what a "
                "dropping RED gateway drops",
                "drops",
                config("red", marks),
                red_drop,
                10.0,
                origin="check",
            ),
            Claim(
                f"{variant}: {name} keeps at least 95 % of the dropping gateway's throughput",
                "throughput_mbps",
                red_drop,
                config("red", marks),
                0.95,
                origin="check",
            ),
        ]
    claims.append(
        Claim(
            f"{variant}: DropTail is less fair than RED (lock-out and RTT bias)",
            "jain",
            config("droptail", "off"),
            red_drop,
            source=RED_FAIR,
        )
    )
    return claims


def _sisalem_abr_claims(variant: str) -> list[Claim]:
    """Seed 003's ABR claims for one TCP variant: a small UNI buffer loses more TCP packets than
    a large one, and BCN-TCP (answering the EPRCA switch's CI) avoids the UNI losses."""

    def config(uni: str, marks: str) -> dict[str, str]:
        return {"tcp.variant": variant, "tcp.congestion_marks": marks, "atm.uni_buffer": uni}

    return [
        Claim(
            f"{variant} over ABR: a 5 KB UNI buffer loses more packets than a 25 KB one",
            "uni_drops",
            config("25000B", "off"),
            config("5000B", "off"),
            origin="check",
        ),
        *(
            Claim(
                f"{variant} over ABR, {uni[:-4]} KB UNI buffer: BCN-TCP loses under a tenth of "
                "the packets plain TCP loses there",
                "uni_drops",
                config(uni, "bcn"),
                config(uni, "off"),
                10.0,
                origin="check",
            )
            for uni in ("25000B", "5000B")
        ),
    ]


STUDY = Study(
    name="sisalem1995",
    title="Binary congestion notification vs Reno and Tahoe over a RED gateway (seed 003, IP part)",
    plan="sisalem1995.toml",
    reference=None,
    metrics={
        "throughput_mbps": Metric("summary", "total_goodput_bps", 1e-6, "total goodput after 5 s"),
        "jain": Metric("summary", "jain_index", 1.0, "Jain fairness index of the ten flows", upper=1.0),
        "drops": Metric("summary", "drops", 1.0, "packets dropped in the network"),
        "timeouts": Metric("summary", "timeouts", 1.0, "retransmission timeouts, all flows"),
        "uni_drops": Metric("summary", "atm_uni_drops", 1.0, "datagrams lost at the UNI buffers"),
    },
    claims=(
        *(
            claim
            for variant in ("tahoe", "reno")
            for claim in (*_sisalem_claims(variant), *_sisalem_abr_claims(variant))
        ),
        Claim(
            "over ABR with a 25 KB UNI buffer, Tahoe gets more throughput than Reno",
            "throughput_mbps",
            {"tcp.variant": "reno", "tcp.congestion_marks": "off", "atm.uni_buffer": "25000B"},
            {"tcp.variant": "tahoe", "tcp.congestion_marks": "off", "atm.uni_buffer": "25000B"},
            source=TAHOE_ABR,
            note="the 10 Mbps ATM link runs full whichever variant recovers the UNI losses",
        ),
    ),
    notes=(
        "Only the reference list of seed 003 survives, so the study checks the paper's "
        "claims rather than its lost figures; the configuration is chosen in "
        "sisalem1995-network.toml and sisalem1995.toml (ten sources, 10 Mbps, 500-byte "
        "packets, the RED paper's parameters, a marking gateway that marks every "
        "ECN-capable packet above max_th, 4.3BSD TCP with a 10 ms clock and a 200 ms RTO "
        "floor so that the 200 ms delayed-ACK timer does not cause spurious timeouts). "
        "The one published number, a Jain index of 0.89, belongs to a multi-hop "
        "configuration with a larger decrease factor that cannot be reconstructed. The ABR "
        "part runs the same sources over ATM with an EPRCA switch and binary feedback "
        "(choices in sisalem1995-network.toml): UNI buffers lose TCP packets although the "
        "ATM network loses none, and BCN-TCP answering the switch's CI avoids those losses. "
        "The paper's Tahoe-over-Reno result over ABR does not show here: the 10 Mbps ATM "
        "link runs full whichever variant recovers the UNI losses."
    ),
)
