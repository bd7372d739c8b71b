"""Seeing the network of a scenario: each flow's route as text, and the topology as a Graphviz
drawing. Both take `Scenario.network()`, what the simulator resolved (routes are by hop count,
ties to the link declared first, so an added link can silently carry a flow)."""

from __future__ import annotations

from typing import Any

#: Rate units, largest first (scenario files write powers of 1000).
_RATE_UNITS = (("Gbps", 10**9), ("Mbps", 10**6), ("Kbps", 10**3), ("bps", 1))


def rate_text(bps: int) -> str:
    """`10000000` → `10Mbps`, `155520000` → `155.52Mbps`."""
    for unit, per in _RATE_UNITS:
        if bps >= per:
            return f"{bps / per:.6g}{unit}"
    return f"{bps}bps"


def delay_text(seconds: float) -> str:
    """`0.01` → `10ms`, `2.5e-06` → `2.5us`."""
    for unit, per in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= per:
            return f"{seconds / per:.6g}{unit}"
    return "0s" if seconds == 0 else f"{seconds * 1e12:.6g}ps"


def route_lines(network: dict[str, Any]) -> list[str]:
    """One line per flow direction: the nodes it passes, each hop's rate and delay, its
    bottleneck rate and one-way propagation delay."""
    links = network["links"]
    lines = []
    for path in network["paths"]:
        hops = [links[i] for i in path["links"]]
        label = f"{path['name']} ({path['kind']} {path['direction']})"
        if not hops:
            lines.append(f"{label}: no route")
            continue
        text = hops[0]["from"]
        for hop in hops:
            text += f" -[{rate_text(hop['rate_bps'])} {delay_text(hop['delay_s'])}]-> {hop['to']}"
        bottleneck = min(hop["rate_bps"] for hop in hops)
        delay = sum(hop["delay_s"] for hop in hops)
        lines.append(
            f"{label}: {text}  (bottleneck {rate_text(bottleneck)}, propagation {delay_text(delay)})"
        )
    return lines


def _quoted(text: str) -> str:
    """A DOT string: quotes and backslashes escaped, line breaks as DOT's `\\n`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def dot(network: dict[str, Any], name: str) -> str:
    """The topology in Graphviz's language: traffic endpoints as ellipses, other nodes as
    boxes, a link pair with equal settings as one two-headed edge labelled rate, delay, queue."""
    links = network["links"]
    endpoints = set()
    for path in network["paths"]:
        for i in path["links"][:1]:
            endpoints.add(links[i]["from"])
        for i in path["links"][-1:]:
            endpoints.add(links[i]["to"])
    out = [f"digraph {_quoted(name)} {{", "  rankdir=LR;"]
    for node in network["nodes"]:
        shape = "ellipse" if node in endpoints else "box"
        out.append(f"  {_quoted(node)} [shape={shape}];")
    drawn: set[int] = set()
    for i, link in enumerate(links):
        if i in drawn:
            continue
        settings = (link["rate_bps"], link["delay_s"], link["queue"], link["atm"])
        reverse = next(
            (
                j
                for j, other in enumerate(links)
                if j not in drawn
                and j != i
                and (other["from"], other["to"]) == (link["to"], link["from"])
                and (other["rate_bps"], other["delay_s"], other["queue"], other["atm"]) == settings
            ),
            None,
        )
        drawn.add(i)
        kind = "ATM" if link["atm"] else link["queue"]
        label = f"{rate_text(link['rate_bps'])}\n{delay_text(link['delay_s'])}\n{kind}"
        both = ""
        if reverse is not None:
            drawn.add(reverse)
            both = ", dir=both"
        out.append(f"  {_quoted(link['from'])} -> {_quoted(link['to'])} [label={_quoted(label)}{both}];")
    out.append("}")
    return "\n".join(out) + "\n"
