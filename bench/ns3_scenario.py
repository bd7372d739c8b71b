"""Translates a congsim scenario of DropTail links and persistent TCP flows into the input of
bench/ns3_dumbbell.cc (ns-3), for side-by-side runs. Like ns2_script.py it covers what the
benchmark scenario uses and refuses anything else rather than translating it wrongly.

Two kinds of TCP are translated: Reno (the benchmark's `ns2_2000` Reno, ns-3's TcpLinuxReno)
and BBR (`congestion_control = "bbr"` with the `rfc` profile and SACK, ns-3's TcpBbr: the input
gains `param congestion bbr`). ns3_dumbbell.cc sets the timers, the initial window and the ACK
policy of the benchmark's ns2_2000 profile for either, so a BBR scenario must set them alike in
[tcp] (BBR_REQUIRED); its segment is `packet_size` (the MSS) and its window the receiver buffer
in segments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomllib
from ns2_script import bits_per_second, expand_counts, seconds

SOURCE = Path(__file__).resolve().parent / "ns3_dumbbell.cc"

# The [tcp] switches a BBR scenario must give: BBR with SACK in byte mode, and what
# ns3_dumbbell.cc sets for every flow where the `rfc` profile differs (initial window 1, no
# delayed ACKs, RTT samples on a 100 ms tick as ns-3's ClockGranularity, RTO floor 200 ms).
BBR_REQUIRED: dict[str, Any] = {
    "profile": "rfc",
    "variant": "sack",
    "congestion_control": "bbr",
    "initial_window": 1,
    "delayed_ack": "off",
    "tick": "100ms",
    "min_rto": "200ms",
}
# Switches it may give, with the one value each that ns3_dumbbell.cc matches.
BBR_OPTIONAL: dict[str, Any] = {"pacing": True, "congestion_marks": "off", "header_bytes": 40}
HEADER_BYTES = 40


def byte_count(text: str) -> int:
    if not text.endswith("B") or not text[:-1].isdigit():
        raise ValueError(f"only sizes in whole bytes (like '460B') are translated, not {text!r}")
    return int(text[:-1])


def bbr_tcp(tcp: dict[str, Any]) -> tuple[int, int]:
    """The IP packet size and the window in segments of a BBR [tcp] table that
    ns3_dumbbell.cc's `param congestion bbr` runs as it is."""
    for name, value in BBR_REQUIRED.items():
        if tcp.get(name) != value:
            raise ValueError(f"BBR is translated with [tcp] {name} = {value!r} only")
    for name, value in BBR_OPTIONAL.items():
        if tcp.get(name, value) != value:
            raise ValueError(f"BBR is translated with [tcp] {name} = {value!r} (or left out) only")
    others = set(tcp) - set(BBR_REQUIRED) - set(BBR_OPTIONAL) - {"packet_size", "receiver_buffer"}
    if others:
        raise ValueError(f"[tcp] {', '.join(sorted(others))}: not translated for BBR")
    if "packet_size" not in tcp or "receiver_buffer" not in tcp:
        raise ValueError("BBR is translated with [tcp] packet_size and receiver_buffer given")
    segment, buffer = byte_count(tcp["packet_size"]), byte_count(tcp["receiver_buffer"])
    if buffer % segment:
        raise ValueError("receiver_buffer must be whole segments (ns-3 gets the window in segments)")
    return segment + HEADER_BYTES, buffer // segment


def ns3_input(scenario_path: Path) -> str:
    sc = tomllib.loads(scenario_path.read_text())
    tcp = sc.get("tcp", {})
    bbr = tcp.get("congestion_control", "aimd") == "bbr"
    if bbr:
        packet_bytes, window = bbr_tcp(tcp)
    elif (
        tcp.get("variant", "reno") != "reno"
        or tcp.get("congestion_marks", "off") != "off"
        or tcp.get("congestion_control", "aimd") != "aimd"
    ):
        raise ValueError("only Reno without congestion marks is translated")
    else:
        packet_bytes, window = int(tcp.get("packet_size", "1000B").rstrip("B")), int(tcp.get("window", 20))
    out = [
        f"param duration_s {seconds(sc['simulation']['duration'])}",
        f"param packet_bytes {packet_bytes}",
        f"param window {window}",
    ]
    if bbr:
        out.append("param congestion bbr")
    out += [f"node {name}" for name in sc["nodes"]]
    for link in sc["links"]:
        queue = link.get("queue", {})
        if (
            not link.get("duplex", True)
            or link.get("random_loss", 0)
            or queue.get("kind", "droptail") != "droptail"
        ):
            raise ValueError("only duplex, lossless DropTail links are translated")
        rate, delay_ns = bits_per_second(link["rate"]), round(seconds(link["delay"]) * 1e9)
        out.append(
            f"link {link['from']} {link['to']} {rate:.0f} {delay_ns} {int(queue.get('limit_packets', 50))}"
        )
    for flow in expand_counts(sc["flows"]):
        if bbr and ("stop" in flow or "size" in flow or "tcp" in flow):
            raise ValueError("only persistent BBR flows without a flow's own [tcp] are translated")
        reno = flow.get("tcp", {}).get("variant", "reno") == "reno"
        if not bbr and (not reno or "stop" in flow or "size" in flow):
            raise ValueError("only persistent Reno flows are translated")
        if seconds(flow.get("start", "0s")) != 0:
            raise ValueError("only flows starting at 0 are translated")
        out.append(f"flow {flow['from']} {flow['to']}")
    return "\n".join(out) + "\n"
