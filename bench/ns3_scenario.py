"""Translates a congsim scenario of DropTail links and persistent TCP flows into the input of
bench/ns3_dumbbell.cc (ns-3), for side-by-side runs. Like ns2_script.py it covers what the
benchmark scenario uses and refuses anything else rather than translating it wrongly."""

from __future__ import annotations

from pathlib import Path

import tomllib
from ns2_script import bits_per_second, expand_counts, seconds

SOURCE = Path(__file__).resolve().parent / "ns3_dumbbell.cc"


def ns3_input(scenario_path: Path) -> str:
    sc = tomllib.loads(scenario_path.read_text())
    tcp = sc.get("tcp", {})
    if tcp.get("variant", "reno") != "reno" or tcp.get("congestion_marks", "off") != "off":
        raise ValueError("only Reno without congestion marks is translated")
    out = [
        f"param duration_s {seconds(sc['simulation']['duration'])}",
        f"param packet_bytes {int(tcp.get('packet_size', '1000B').rstrip('B'))}",
        f"param window {int(tcp.get('window', 20))}",
    ]
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
        if flow.get("tcp", {}).get("variant", "reno") != "reno" or "stop" in flow or "size" in flow:
            raise ValueError("only persistent Reno flows are translated")
        if seconds(flow.get("start", "0s")) != 0:
            raise ValueError("only flows starting at 0 are translated")
        out.append(f"flow {flow['from']} {flow['to']}")
    return "\n".join(out) + "\n"
