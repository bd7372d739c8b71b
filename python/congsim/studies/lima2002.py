"""Seed 002: TCP loss recovery with web and FTP traffic over RED, and Limited Transmit."""

from __future__ import annotations

from congsim.studies.framework import Claim, Metric, Study


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

    published = {
        ("web", "reno"): 26,
        ("web", "newreno"): 30,
        ("exponential", "reno"): 26,
        ("exponential", "newreno"): 29,
    }
    claims = []
    for (sizes, variant), cut in published.items():
        traffic = "web" if sizes == "web" else "FTP"
        for load, total in (("0.6", "0.7"), ("0.8", "0.9")):
            claims.append(
                Claim(
                    f"{traffic}, load {total}: {variant}-lt has fewer RTOs than {variant} "
                    f"(paper: {cut} % fewer)",
                    "rtos",
                    config(sizes, load, variant, True),
                    config(sizes, load, variant, False),
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
        ),
        Claim(
            "FTP, load 0.9 (mechanism): reno-lt has more timeouts than reno in windows a fast "
            "retransmit began to repair",
            "rtos_after_fast_retransmit",
            config("exponential", "0.8", "reno", False),
            config("exponential", "0.8", "reno", True),
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
