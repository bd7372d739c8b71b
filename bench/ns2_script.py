"""Translates a congsim scenario of DropTail or RED links and persistent ns-2 TCP flows into an
ns-2 Tcl script with the same topology and the ns2_2000 profile's switches, for side-by-side runs.

It covers what the benchmark scenarios use (duplex DropTail links with packet limits, RED links
with pinned parameters, Reno or Tahoe FTP flows, optionally ECN-capable) and refuses anything
else rather than translating it wrongly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomllib

# ns2_2000 (spec tcp.md section 6) expressed as ns-2.35 bindings.
NS2_2000_SETTINGS = """
Agent/TCP set tcpTick_ 0.1
Agent/TCP set minrto_ 0
Agent/TCP set maxrto_ 64
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set windowInit_ 1
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set useHeaders_ false
Agent/TCP set rfc2988_ false
Agent/TCP set precisionReduce_ false
Agent/TCP set singledup_ 0
Agent/TCP set timerfix_ false
Agent/TCP set bugfix_ss_ 0
Agent/TCP set oldCode_ true
Agent/TCP/Reno set exitFastRetrans_ false
Agent/TCP/Newreno set newreno_changes1_ 0
Agent/TCP/Newreno set partial_window_deflation_ 0
"""

AGENTS = {"reno": "Agent/TCP/Reno", "tahoe": "Agent/TCP"}


def _unit(text: str, units: dict[str, float]) -> float:
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * units[suffix]
    raise ValueError(f"cannot translate {text!r}")


def seconds(text: str) -> float:
    return _unit(text, {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9})


def bits_per_second(text: str) -> float:
    return _unit(text, {"bps": 1.0, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9})


RED_OR_DROPTAIL = {"droptail": "DropTail", "red": "RED"}


def red_settings(queue: dict[str, Any], a: str, b: str) -> list[str]:
    """The RED parameters of the queue from `a` to `b`, pinned (ns-2.35's automatic and byte-mode
    defaults switched off, so that the ns-2 ≈2000 behaviour congsim models applies)."""
    q = f"[[$ns link $n({a}) $n({b})] queue]"
    values = {
        "thresh_": queue.get("min_th", 5),
        "maxthresh_": queue.get("max_th", 15),
        "q_weight_": queue.get("w_q", 0.002),
        "linterm_": 1.0 / queue.get("max_p", 0.1),
        "mean_pktsize_": int(str(queue.get("mean_packet_size", "500B")).rstrip("B")),
        "wait_": str(queue.get("wait", True)).lower(),
        "gentle_": str(queue.get("gentle", False)).lower(),
        "bytes_": str(queue.get("bytes", False)).lower(),
        "queue_in_bytes_": str(queue.get("queue_in_bytes", False)).lower(),
        "setbit_": str(queue.get("ecn_marking", False)).lower(),
        "use_mark_p_": "false",
        "adaptive_": 0,
        "cautious_": 0,
    }
    return [f"{q} set {name} {value}" for name, value in values.items()]


def expand_counts(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flows with `count = n` stand for n identical flows (start jitter is not translated)."""
    expanded = []
    for flow in flows:
        if flow.get("start_jitter"):
            raise ValueError("start_jitter is not translated")
        expanded += [flow] * int(flow.get("count", 1))
    return expanded


def ns2_script(scenario_path: Path) -> str:
    """The Tcl script; at the end it prints `total_bytes`, `timeouts` and `retx_pkts`, summed
    over all flows (sink `bytes_`, sender `nrexmit_` and `nrexmitpack_`)."""
    return ns2_script_from_document(tomllib.loads(scenario_path.read_text()))


def ns2_script_from_document(sc: dict[str, Any]) -> str:
    """`ns2_script` for a scenario already parsed (and possibly edited)."""
    tcp = sc.get("tcp", {})
    if tcp.get("profile", "ns2_2000") != "ns2_2000":
        raise ValueError("only the ns2_2000 profile is translated")
    duration = seconds(sc["simulation"]["duration"])
    out = ["set ns [new Simulator]", NS2_2000_SETTINGS]
    out.append(f"Agent/TCP set packetSize_ {int(tcp.get('packet_size', '1000B').rstrip('B'))}")
    out.append(f"Agent/TCP set window_ {int(tcp.get('window', 20))}")
    marks = tcp.get("congestion_marks", "off")
    if marks not in ("off", "ecn"):
        raise ValueError("only congestion_marks = off or ecn is translated")
    out.append(f"Agent/TCP set ecn_ {int(marks == 'ecn')}")
    for name in sc["nodes"]:
        out.append(f"set n({name}) [$ns node]")
    out.append("set monitors {}")
    for link in sc["links"]:
        if not link.get("duplex", True) or link.get("random_loss", 0):
            raise ValueError("only duplex, lossless links are translated")
        queue = link.get("queue", {})
        kind = queue.get("kind", "droptail")
        rate, delay = bits_per_second(link["rate"]), seconds(link["delay"])
        a, b = link["from"], link["to"]
        out.append(f"$ns duplex-link $n({a}) $n({b}) {rate:.0f} {delay:.12f} {RED_OR_DROPTAIL[kind]}")
        limit = int(queue.get("limit_packets", 50))
        out.append(f"$ns queue-limit $n({a}) $n({b}) {limit}")
        out.append(f"$ns queue-limit $n({b}) $n({a}) {limit}")
        if kind == "red":
            out += red_settings(queue, a, b) + red_settings(queue, b, a)
            out.append(f"lappend monitors [$ns monitor-queue $n({a}) $n({b}) [open /dev/null w]]")
    out.append("set sinks {}")
    out.append("set senders {}")
    for i, flow in enumerate(expand_counts(sc["flows"])):
        variant = flow.get("tcp", {}).get("variant", tcp.get("variant", "reno"))
        out += [
            f"set tcp{i} [new {AGENTS[variant]}]",
            f"$tcp{i} set fid_ {i}",
            f"$ns attach-agent $n({flow['from']}) $tcp{i}",
            f"set sink{i} [new Agent/TCPSink]",
            f"$ns attach-agent $n({flow['to']}) $sink{i}",
            f"$ns connect $tcp{i} $sink{i}",
            f"lappend sinks $sink{i}",
            f"lappend senders $tcp{i}",
            f"set ftp{i} [$tcp{i} attach-app FTP]",
            f'$ns at {seconds(flow.get("start", "0s"))} "$ftp{i} start"',
        ]
    out += [
        "proc finish {} {",
        "    global sinks senders monitors",
        "    set total 0",
        "    foreach s $sinks { set total [expr {$total + [$s set bytes_]}] }",
        '    puts "total_bytes $total"',
        "    set timeouts 0",
        "    set retx 0",
        "    foreach t $senders {",
        "        set timeouts [expr {$timeouts + [$t set nrexmit_]}]",
        "        set retx [expr {$retx + [$t set nrexmitpack_]}]",
        "    }",
        '    puts "timeouts $timeouts"',
        '    puts "retx_pkts $retx"',
        "    set responses 0",
        "    foreach t $senders { set responses [expr {$responses + [$t set necnresponses_]}] }",
        '    puts "ecn_responses $responses"',
        "    set drops 0",
        "    foreach m $monitors { set drops [expr {$drops + [$m set pdrops_]}] }",
        '    puts "red_drops $drops"',
        "    exit 0",
        "}",
        f"$ns at {duration} finish",
        "$ns run",
    ]
    return "\n".join(out) + "\n"
