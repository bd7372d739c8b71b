"""Seed 002: TCP loss recovery with web and FTP traffic over RED, and Limited Transmit."""

from __future__ import annotations

import csv

from congsim.studies.declare import DATA, Claim, Metric, Study

#: The seed's words each claim checks.
WEB_LT = (
    "The decrease of RTT given by reno-lt is 9% of the RTT value given by Reno, and 26% of the "
    "number of RTO's given by Reno. The decrease of the duration of RTT and of the number of "
    "RTO's given by new-reno-lt when compared to the corresponding values given by NewReno is "
    "respectively 10% and 30%."
)
FTP_LT = (
    "However, the use of reno-lt and newreno-lt also reduces the number of RTO by 26% and 29% "
    "when compared to results given by Reno and NewReno, respectively."
)
FTP_WEB = (
    "It can be seen that the mean number of RTO produced under FTP traffic can be seven times "
    "greater than the number of RTO under web traffic."
)
SACK_LT = (
    "The joint use of Sack with Limited Transmit does not imply in significant improvement. It "
    "performs worst than do reno-lt and newreno-lt."
)
BANDWIDTH = (
    "From Fig. 2, it can be noticed that for loads greater than 0,6 there is no significant "
    "difference on the obtained bandwidth by different TCP extensions."
)
RENO_FTP = (
    "Reno's Limited Transmit removes most timeouts with one or two duplicate ACKs, but most of "
    "Reno's FTP timeouts here are second losses in a window a fast retransmit began to repair "
    "(ns-2 bugFix_), and those grow as the others shrink; ns-2.35 finds the same "
    "(bench/lima_ns2.py)"
)


def _lima_claims() -> list[Claim]:
    """Seed 002's claims: Limited Transmit cuts the RTOs of Reno and NewReno under web and FTP
    traffic; FTP transfers suffer several times the RTOs of web objects."""

    def config(sizes: str, load: str, variant: str, lt: bool) -> dict[str, str]:
        return {
            "transfers[0].sizes": sizes,
            "transfers[0].load": load,
            "tcp.variant": variant,
            "tcp.limited_transmit": str(lt),
        }

    # The paper's cuts are data (a table beside the reference values), quoted in the labels.
    rows = csv.DictReader((DATA / "lima2002-lt-cuts.csv").read_text(encoding="utf-8").splitlines())
    published = [(row["sizes"], row["variant"], row["published_cut_percent"]) for row in rows]
    claims = []
    for sizes, variant, cut in published:
        traffic = "web" if sizes == "web" else "FTP"
        for load, total in (("0.6", "0.7"), ("0.8", "0.9")):
            claims.append(
                Claim(
                    f"{traffic}, load {total}: {variant}-lt has fewer RTOs than {variant} "
                    f"(paper: {cut} % fewer)",
                    "rtos",
                    config(sizes, load, variant, True),
                    config(sizes, load, variant, False),
                    source=WEB_LT if sizes == "web" else FTP_LT,
                    note=RENO_FTP if (sizes, variant) == ("exponential", "reno") else "",
                )
            )
    # congsim's account of the FTP result, not the paper's claims: Limited Transmit does what
    # it is for, but Reno's next loss in the same window then times out anyway.
    claims += [
        Claim(
            "FTP, load 0.9 (mechanism): reno-lt has under half reno's timeouts with one or two "
            "duplicate ACKs",
            "rtos_few_dupacks",
            config("exponential", "0.8", "reno", True),
            config("exponential", "0.8", "reno", False),
            2.0,
            origin="check",
        ),
        Claim(
            "FTP, load 0.9 (mechanism): reno-lt has more timeouts than reno in windows a fast "
            "retransmit began to repair",
            "rtos_after_fast_retransmit",
            config("exponential", "0.8", "reno", False),
            config("exponential", "0.8", "reno", True),
            origin="check",
        ),
    ]
    claims.append(
        Claim(
            "load 0.9: FTP transfers suffer at least twice the RTOs of web objects "
            "(paper: up to seven times)",
            "rtos",
            config("web", "0.8", "reno", False),
            config("exponential", "0.8", "reno", False),
            2.0,
            source=FTP_WEB,
        )
    )
    claims += [
        Claim(
            f"web, load 0.9: {variant}-lt has a shorter mean RTT than {variant} (paper: {cut} % shorter)",
            "rtt_ms",
            config("web", "0.8", variant, True),
            config("web", "0.8", variant, False),
            source=WEB_LT,
            note=(
                "an unknown set-up: the mean RTT per transfer is the same with and without "
                "Limited Transmit here (56 ms at load 0.9); the paper averages over loads and "
                "does not say how it measures RTT"
            ),
        )
        for variant, cut in (("reno", 9), ("newreno", 10))
    ]
    claims += [
        Claim(
            f"web, load 0.9: sack-lt has more RTOs than {variant}-lt",
            "rtos",
            config("web", "0.8", variant, True),
            config("web", "0.8", "sack", True),
            source=SACK_LT,
            note="reason not found: here SACK-LT has fewer RTOs than Reno-LT, as many as NewReno-LT",
        )
        for variant in ("reno", "newreno")
    ]
    claims.append(
        Claim(
            "web, load 0.9: sack's mean bandwidth is within 10 % of reno's",
            "bandwidth_kbps",
            config("web", "0.8", "sack", False),
            config("web", "0.8", "reno", False),
            ratio_between=(0.9, 1.1),
            source=BANDWIDTH,
        )
    )
    return claims


STUDY = Study(
    name="lima2002",
    title="TCP loss recovery with web and FTP traffic over RED: Limited Transmit (seed 002)",
    plan="lima2002.toml",
    reference="lima2002.csv",
    metrics={
        "rtos": Metric("summary", "transfer_timeouts_mean", 1.0, "retransmission timeouts per transfer"),
        "rtos_few_dupacks": Metric(
            "summary",
            "transfer_timeouts_few_dupacks_mean",
            1.0,
            "timeouts per transfer with one or two duplicate ACKs in",
        ),
        "rtos_after_fast_retransmit": Metric(
            "summary",
            "transfer_timeouts_after_fast_retransmit_mean",
            1.0,
            "timeouts per transfer in a window a fast retransmit began to repair",
        ),
        "cwnd": Metric(
            "summary",
            "transfer_cwnd_mean",
            1.0,
            "mean cwnd (segments) over the transfers' transmissions",
        ),
        "rtt_ms": Metric("summary", "transfer_rtt_mean_s", 1e3, "mean RTT per transfer"),
        "bandwidth_kbps": Metric(
            "summary", "transfer_bandwidth_mean_bps", 1e-3, "mean bandwidth per transfer"
        ),
    },
    claims=tuple(_lima_claims()),
    notes=(
        "The paper omits link rates, RED parameters, run length and the CBR rates; the "
        "study uses spec ip.md's assumptions (10 Mbps / 20 ms bottleneck, ns-2.1b9a RED "
        "defaults with automatic parameters, 2 x 5 % CBR, 200 s runs with 20 s warm-up, 10 "
        "replications; loads are the TCP share, total minus 0.1). The paper's reductions of "
        "RTOs by Limited Transmit (26 % Reno and 30 % NewReno for web traffic, 26 % and 29 % "
        "for FTP) are reported beside each claim's ratio; they are averages over loads, "
        "the claims check the two highest loads. The mean cwnd weighs every segment sent "
        "alike (the per-transfer mean of web objects stays near 3 at every load). Under "
        "FTP, Reno's Limited Transmit does not cut RTOs here: it removes most timeouts "
        "with one or two duplicate ACKs, but most of Reno's FTP timeouts are second "
        "losses in a window a fast retransmit began to repair (ns-2 bugFix_ allows one "
        "fast retransmit per window), and those grow as often as the others shrink; "
        "NewReno, which repairs them, keeps the gain. The two mechanism claims check this, "
        "and ns-2.35 on the same network finds the same ratios (bench/lima_ns2.py); the "
        "paper's FTP windows must have lost fewer segments each."
    ),
)
