"""AQM queue disciplines (CoDel, FQ-CoDel, PIE, FQ-PIE, and DropTail as the baseline) in ns-3.37,
with the same networks written for congsim, one table.

    .venv/bin/python bench/aqm_ns3.py [--out bench/results/aqm_ns3.csv] [--only droptail,codel]
        [--flows 1,5,20] [--seeds 1,2,3] [--congsim] [--diagnostic NAME --out PATH]

Builds bench/ns3_aqm.cc with g++ against Debian's ns-3 (`apt-get install ns3 libns3-dev`) when
the binary is missing or older than the source (or bench/ns3_common.h) and runs every queue kind
with 1, 5 and 20 TCP flows over RngRun 1, 2 and 3, one simulation at a time under `nice -n 10`.
congsim runs its DropTail configurations always (they check the plumbing: the same network, the
same start times, the same seeds); its AQM configurations (`codel`, `fq_codel`, `pie`,
`fq_pie`) only with `--congsim`. FQ-CoDel runs twice in congsim: as Linux (its MTU test on every
queue's bytes) and, as `congsim_mtu_per_queue`, with ns-3's test on the flow queue's own bytes
(spec ip.md 9.6). FQ-PIE runs twice too: with ns-3's overflow (`overflow = "fat_flow"`, the
fattest queue's head) as the main row and, as `congsim_tail`, with Linux's tail drop (spec
ip.md 11.4 #1). The table prints ns-3 and congsim side by side and checks the
cross-check targets (mean queue delay within 10 %, each flow's share of the TCP goodput within
5 %, bench/ns3_cross_check.py's tolerances); the CSV (`--out`, default
bench/results/aqm_ns3.csv) has one row per queue kind, flow count and simulator with the mean
and the standard deviation over the seeds. `--diagnostic NAME` reruns both simulators with one
thing changed on both sides (DIAGNOSTICS below) to confirm what explains a difference; its
rows are labelled `<simulator>+NAME` and go to their own CSV.

Files. bench/results/aqm_ns3_codel.csv: `--only droptail,codel,fq_codel --congsim`.
bench/results/aqm_ns3_pie.csv: `--only pie,fq_pie --congsim` (ns-3 and congsim).
bench/results/aqm_ns3.csv: ns-3 alone for every kind (and congsim's DropTail); its pie and
fq_pie rows are aqm_ns3_pie.csv's ns-3 rows, line for line (merged in when the PIE settings
below replaced the departure-rate ones, every other row left as it was).
bench/results/aqm_ns3_pie_no_burst.csv and aqm_ns3_pie_cbr_1500.csv: the two diagnostics of
docs/validation.md's PIE section (`--only pie,fq_pie --congsim --diagnostic NAME`), and
aqm_ns3_pie_seeds9.csv its check of PIE's 5-flow shares over more seeds (`--only pie --flows 5
--seeds 1,2,3,4,5,6,7,8,9 --congsim`). None of these is the cross-check's result.

PIE settings, fixed before any run with them (both simulators, every parameter explicit): the
delay estimated from each departing packet's timestamp, not from the departure rate (congsim
`use_departure_rate = false`, ns-3 `UseDequeueRateEstimator` false: RFC 8033 Appendix A's
pseudo-code, Linux's and ns-3's default); derandomization on (RFC 8033 §5.4, always on in
Linux; ns-3's default is off: `UseDerandomization` true); the cap on drop adjustment on; ECN
off (FQ-PIE's ns-3 `UseEcn` defaults to true: set false); target and update interval 15 ms,
alpha 0.125, beta 1.25, burst allowance 150 ms, limits 1000 (PIE) and 10240 (FQ-PIE) packets,
congsim's backlog safeguard at 2 x 1514 bytes (ns-3 in packet mode: 2 packets, not settable).
FQ-PIE: the FQ parameters as FQ-CoDel's, overflow as ns-3's (`fat_flow`) in the main row and as
Linux's (`tail`) in `congsim_tail`. An earlier ns-3-only table used the departure-rate
estimator and ns-3's derandomization default (off); it is replaced.

The network (both simulators; fixed before any run): N TCP senders and one CBR sender, each on
its own 100 Mbps, 1 ms access link to r0; r0 -- 10 Mbps, 50 ms -- r1 -- 100 Mbps, 1 ms -- dst,
where every flow ends. Base round trip 104 ms, so one bandwidth-delay product is 130 kB, 87
packets of 1500 bytes. Link rates count IP bytes (ns-3's devices run faster by its 2-byte PPP
header). The bottleneck's r0 side holds the queue under test; every other queue (and the
bottleneck's ACK direction) is 100 000 packets of DropTail, never full.

Queues. ns-3: the queue disc over a 1-packet device queue (see bench/ns3_aqm.cc; a deeper device
queue would hide the backlog from the AQM). DropTail is a FifoQueueDisc of 100 packets (about
1.15 BDP; the issue's "1 BDP or 100 packets") over that device queue, so at most 101 packets
wait: congsim `{ limit_packets = 101, semantics = "waiting" }`. The AQMs with the parameters of
CONGSIM_QUEUES (RFC 8289, RFC 8290, RFC 8033, Linux: congsim's defaults), ECN off.

TCP: ns-3 TcpNewReno with SACK and TcpPrrRecovery (its default recovery, set explicitly);
congsim `rfc` with `congestion_control = "aimd"`, `variant = "sack"`, `sack_sender = "prr"`
(bench/cubic_ns3.py's SACK mapping with PRR). Matched: 1460-byte segments (1500-byte IP
packets, no timestamps), window scaling, initial window 10 (ns-3's default; congsim's `rfc` has
3, so it is set), delayed ACKs every second segment or 200 ms, 16 MiB buffers, RTO floor 1 s,
clock granularity 1 ms. Not matched: ns-3 opens with a SYN, congsim's `rfc` flows send at once.
Flow i starts at 0.1·i s plus a draw from U(0, 0.1 s) of Python's random.Random seeded by (N,
seed): the same start times go to both simulators, so that seed k is one set of phases in both.

Every case runs twice in ns-3: `ns3` rows are TcpNewReno as ns-3.37 ships it, `ns3_flight` rows
cut ssthresh from RFC 5681's FlightSize as congsim's `rfc` profile does (DEVIATIONS D33) instead
of from RFC 6675's pipe, which ns-3 hands its GetSsThresh with SACK (about FlightSize - 4
segments at a fast retransmit, a deeper cut at small windows): the first DropTail comparison
found the ns-3 queue 6-9 % shorter than congsim's and this rule the cause.

CBR ("voice"): 1 Mbps of 200-byte IP packets (160 bytes of G.711 voice per 20 ms frame with
RTP, UDP and IP headers, 12 + 8 + 20 bytes), one every 1.6 ms from t = 0, so both simulators
send the same IP bytes at the same instants (ns-3 UdpClient with 172-byte UDP payloads, its
12-byte SeqTs header carrying the send time; congsim `[[cbr]]` with `packet_size = "200B"`,
`phase = "zero"`).

Measured over 10-60 s of a 60 s run: each TCP flow's goodput (payload delivered to the
application) and its share of the flows' total, Jain's index, the queue delay at r0 (ns-3: per
packet that starts transmission on the bottleneck in the window, enqueue into the queue disc to
start of transmission, the wait congsim's queue counts, mean and 99th percentile; also the queue
disc's own sojourn, enqueue to dequeue, what the AQM sees), drops at r0 by cause (AQM or
overflow) and ECN marks, the CBR's one-way delay (mean, 99th percentile) and loss. congsim's wait
is its `sojourn` table at r0 (`[metrics] sojourn_links`: each packet's arrival at the link to the
start of its transmission, for the packets that start in the window; mean, 99th percentile, per
flow, and the CBR's wait there); it has no end-to-end CBR delay, so those congsim cells stay
empty (the CBR's wait at r0 is the part that differs between the queues).
"""

from __future__ import annotations

import csv
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ns3_cross_check as common
from ns3_cross_check import ROOT, fmt

SOURCE = ROOT / "bench" / "ns3_aqm.cc"
DEFAULT_OUT = ROOT / "bench" / "results" / "aqm_ns3.csv"
CONGSIM = ROOT / ".venv" / "bin" / "congsim"

RATE_BPS = 10e6
ACCESS_RATE_BPS = 100e6
BOTTLENECK_DELAY_MS = 50
ACCESS_DELAY_MS = 1
OTHER_QUEUE_PACKETS = 100_000
DEVICE_QUEUE_PACKETS = 1
DROPTAIL_QDISC_PACKETS = 100
PACKET_BYTES = 1500
SEGMENT_BYTES = PACKET_BYTES - 40
INITIAL_WINDOW = 10
BUFFERS_BYTES = 16 << 20
DURATION_S = 60
FROM_S = 10
STAGGER_S = 0.1
CBR_RATE_BPS = 1e6
CBR_PACKET_BYTES = 200
BOTTLENECK = "r0->r1"

KINDS = ("droptail", "codel", "fq_codel", "pie", "fq_pie")
FLOW_COUNTS = (1, 5, 20)
SEEDS = (1, 2, 3)

# The bottleneck queue as congsim's scenario writes it. DropTail: the ns-3 FIFO's 100 packets
# plus the 1 in the device queue, all of which wait beside the packet in transmission.
DROPTAIL_WAITING_PACKETS = DROPTAIL_QDISC_PACKETS + DEVICE_QUEUE_PACKETS
CONGSIM_QUEUES = {
    "droptail": f'{{ limit_packets = {DROPTAIL_WAITING_PACKETS}, semantics = "waiting" }}',
    "codel": '{ kind = "codel", limit_packets = 1000, target = "5ms", interval = "100ms" }',
    "fq_codel": (
        '{ kind = "fq_codel", limit_packets = 10240, flows = 1024, quantum = "1514B", '
        'target = "5ms", interval = "100ms", drop_batch_size = 64 }'
    ),
    "pie": (
        '{ kind = "pie", limit_packets = 1000, target = "15ms", update_interval = "15ms", '
        'alpha = 0.125, beta = 1.25, max_burst = "150ms", dequeue_threshold = "16384B", '
        "use_departure_rate = false, use_derandomization = true, cap_drop_adjustment = true, "
        'ecn_marking = false, mtu = "1514B" }'
    ),
    "fq_pie": (
        '{ kind = "fq_pie", limit_packets = 10240, flows = 1024, quantum = "1514B", '
        'drop_batch_size = 64, overflow = "fat_flow", target = "15ms", update_interval = "15ms", '
        'alpha = 0.125, beta = 1.25, max_burst = "150ms", dequeue_threshold = "16384B", '
        "use_departure_rate = false, use_derandomization = true, cap_drop_adjustment = true, "
        'ecn_marking = false, mtu = "1514B" }'
    ),
}

# ns3_aqm.cc's PIE options for `pie` and `fq_pie`, passed explicitly (they are also its
# defaults): timestamps, not the departure rate; derandomization on (ns-3's default is off);
# the cap on. FQ-PIE's UseEcn false is set by ns3_aqm.cc for every FQ kind.
NS3_PIE_FLAGS = ("--pieDqRate=false", "--pieDerandomize=true", "--pieCapDrop=true")

# congsim's runs of a kind: the queue as CONGSIM_QUEUES has it, and beside it the other choice
# where congsim follows Linux and ns-3 does not (spec ip.md 9.6 #2: FQ-CoDel's MTU test on every
# queue's bytes in Linux, on the flow queue's own in ns-3).
# FQ-PIE's main row has ns-3's overflow (the fattest queue's head, spec ip.md 11.4 #1); its
# variant Linux's tail drop. A variant's `key = value` replaces the queue's own `key` if it has one.
CONGSIM_VARIANTS: dict[str, dict[str, str]] = {
    "fq_codel": {"congsim_mtu_per_queue": "mtu_per_queue = true"},
    "fq_pie": {"congsim_tail": 'overflow = "tail"'},
}


# Diagnostics (`--diagnostic NAME`): a run of both simulators with one thing changed on both
# sides, to confirm what explains a difference the cross-check shows. Their rows are labelled
# `<sim>+NAME` and go to their own CSV (`--out`), never the cross-check's: they are not the result.
@dataclass(frozen=True)
class Diagnostic:
    about: str
    ns3_flags: tuple[str, ...] = ()  # ns3_aqm.cc options
    congsim_settings: tuple[str, ...] = ()  # `key = value`s of congsim's bottleneck queue
    cbr_packet_bytes: int = CBR_PACKET_BYTES  # the CBR's IP packets, at the same bit rate


DIAGNOSTICS = {
    "no_burst": Diagnostic(
        "burst allowance 0 on both sides: ns-3's burst rule (spec ip.md 10.6 #1) cannot act",
        ns3_flags=("--pieMaxBurstMs=0",),
        congsim_settings=('max_burst = "0ms"',),
    ),
    "cbr_1500": Diagnostic(
        "the CBR's 1 Mbps in 1500-byte packets (one every 12 ms): every packet is 1500 bytes, so "
        "congsim's backlog safeguard (at most 2 x 1514 bytes queued) and ns-3's (at most 2 packets) "
        "are one test (spec ip.md 10.6 #2)",
        cbr_packet_bytes=1500,
    ),
}

# ns-3's drop reasons (QueueDisc drop traces; a child queue disc's reason comes prefixed with
# "(Dropped by child queue disc) ") that are the AQM's own decision; every other one is a full
# queue (Fifo "Queue disc limit exceeded", CoDel/FQ "Overlimit drop", PIE "Forced drop").
AQM_DROP_REASONS = ("Target_exceeded_drop", "Unforced_drop")


def start_times_s(flows: int, seed: int) -> list[float]:
    """Flow i's start: 0.1·i s plus U(0, 0.1 s), whole microseconds (both simulators take them
    exactly), from a stream of its own per (N, seed)."""
    draw = random.Random(f"aqm-starts-{flows}-{seed}")
    return [round(STAGGER_S * i + draw.uniform(0, STAGGER_S), 6) for i in range(flows)]


@dataclass(frozen=True)
class Case:
    kind: str
    flows: int


# ns-3 runs per case and seed: CSV `simulator` label -> ns3_aqm.cc's --ssthresh. "ns3" is
# TcpNewReno as ns-3.37 ships it; "ns3_flight" cuts from RFC 5681's FlightSize as congsim's `rfc`
# profile does (DEVIATIONS D33) instead of from RFC 6675's pipe, the one TCP difference that
# moved the DropTail queue (bench/ns3_aqm.cc's FlightSizeNewReno).
NS3_VARIANTS = {"ns3": "pipe", "ns3_flight": "flight"}


def run_ns3(binary: Path, case: Case, seed: int, ssthresh: str, diagnostic: str = "") -> dict[str, Any]:
    cbr_packet = DIAGNOSTICS[diagnostic].cbr_packet_bytes if diagnostic else CBR_PACKET_BYTES
    starts = ",".join(f"{t:.6f}" for t in start_times_s(case.flows, seed))
    command = [
        "nice",
        "-n",
        "10",
        str(binary),
        f"--queue={case.kind}",
        f"--flows={case.flows}",
        f"--starts={starts}",
        f"--bottleneckDelayMs={BOTTLENECK_DELAY_MS}",
        f"--accessDelayMs={ACCESS_DELAY_MS}",
        f"--deviceQueue={DEVICE_QUEUE_PACKETS}",
        f"--cbrRate={CBR_RATE_BPS:.0f}",
        f"--cbrPacket={cbr_packet}",
        f"--RngRun={seed}",
        f"--ssthresh={ssthresh}",
        *common.run_flags(RATE_BPS, ACCESS_RATE_BPS, OTHER_QUEUE_PACKETS, DURATION_S, FROM_S),
        *common.tcp_flags(SEGMENT_BYTES, INITIAL_WINDOW, BUFFERS_BYTES, sack=True),
    ]
    if case.kind == "droptail":
        command.append(f"--limit={DROPTAIL_QDISC_PACKETS}")
    if case.kind in ("pie", "fq_pie"):
        command += NS3_PIE_FLAGS
    if diagnostic:
        command += DIAGNOSTICS[diagnostic].ns3_flags
    out, wall_s = common.run_program(command)
    goodputs: dict[int, float] = {}
    flow_waits: dict[int, float] = {}
    result: dict[str, Any] = {"attributes": [], "drop_reasons": {}, "wall_s": wall_s}
    recoveries = rtos = 0
    for line in out.splitlines():
        words = line.split()
        if words[0] == "attr":
            result["attributes"].append(f"{words[1]}={words[2]}")
        elif words[0] == "flow":
            fields = common.pairs(words[2:])
            goodputs[int(words[1])] = float(fields["goodput_bps"])
            flow_waits[int(words[1])] = float(fields["wait_mean_s"])
            recoveries += int(fields["recoveries"])
            rtos += int(fields["rtos"])
        elif words[0] == "cbr":
            fields = common.pairs(words[1:])
            result["cbr_delay_mean_s"] = float(fields["delay_mean_s"])
            result["cbr_delay_p99_s"] = float(fields["delay_p99_s"])
            result["cbr_wait_mean_s"] = float(fields["wait_mean_s"])
            result["cbr_loss"] = 1 - int(fields["received"]) / int(fields["sent"])
        elif words[0] == "queue":
            fields = common.pairs(words[1:])
            result["wait_mean_s"] = float(fields["wait_mean_s"])
            result["wait_p99_s"] = float(fields["wait_p99_s"])
            result["qdisc_mean_s"] = float(fields["qdisc_mean_s"])
            result["qdisc_p99_s"] = float(fields["qdisc_p99_s"])
            result["queue_packets"] = float(fields["mean_packets"])
        elif words[0] == "drop":
            result["drop_reasons"][words[1]] = int(words[2])
        elif words[0] == "bottleneck":
            fields = common.pairs(words[1:])
            result["drops"] = int(fields["drops"])
            result["marks"] = int(fields["marks"])
            result["other_drops"] = int(fields["other_drops"]) + int(fields["device_drops"])
            result["fq_queues"] = int(fields["fq_queues"])
    reasons: dict[str, int] = result["drop_reasons"]
    result["aqm_drops"] = sum(n for r, n in reasons.items() if r.endswith(AQM_DROP_REASONS))
    result["overflow_drops"] = result["drops"] - result["aqm_drops"]
    result["goodputs_bps"] = [goodputs[i] for i in range(case.flows)]
    result["flow_waits_s"] = [flow_waits[i] for i in range(case.flows)]
    result["recoveries"] = recoveries
    result["rtos"] = rtos
    result["perturbation"] = next(
        (a.split("=")[1] for a in result["attributes"] if a.startswith("Perturbation=")), ""
    )
    return result


def with_setting(queue: str, setting: str) -> str:
    """The inline table `queue` with `key = value` in place of its own `key`, or added."""
    key = setting.split("=")[0].strip()
    own = re.search(rf"\b{re.escape(key)} = (\"[^\"]*\"|[^,}}]+?)(?=,| }})", queue)
    if own:
        return f"{queue[: own.start()]}{setting}{queue[own.end() :]}"
    return f"{queue[:-2]}, {setting} }}"


def congsim_queue(case: Case, simulator: str, diagnostic: str = "") -> str:
    """The bottleneck queue of congsim's run `simulator` (`congsim` or a CONGSIM_VARIANTS one),
    with a diagnostic's settings."""
    queue = CONGSIM_QUEUES[case.kind]
    extra = CONGSIM_VARIANTS.get(case.kind, {}).get(simulator)
    settings = [extra] if extra else []
    if diagnostic:
        settings += DIAGNOSTICS[diagnostic].congsim_settings
    for setting in settings:
        queue = with_setting(queue, setting)
    return queue


def congsim_toml(case: Case, seed: int, simulator: str = "congsim", diagnostic: str = "") -> str:
    """The network as a congsim scenario: N TCP senders s<i> and the CBR sender c, r0, r1, dst."""
    cbr_packet = DIAGNOSTICS[diagnostic].cbr_packet_bytes if diagnostic else CBR_PACKET_BYTES
    senders = [f"s{i}" for i in range(case.flows)]
    nodes = ", ".join(f'"{n}"' for n in [*senders, "c", "r0", "r1", "dst"])
    lines = [
        f'name = "aqm-ns3-{case.kind}-{case.flows}"',
        f"nodes = [{nodes}]",
        "",
        "[simulation]",
        f'duration = "{DURATION_S}s"',
        f'measure_from = "{FROM_S}s"',
        f"seed = {seed}",
        "",
        "[tcp]",
        'profile = "rfc"',
        'congestion_control = "aimd"',
        'variant = "sack"',
        'sack_sender = "prr"',
        f'packet_size = "{SEGMENT_BYTES}B"',
        f'receiver_buffer = "{BUFFERS_BYTES}B"',
        f"initial_window = {INITIAL_WINDOW}",
        "",
        "[metrics]",
        f'sojourn_links = ["{BOTTLENECK}"]',
        "",
    ]
    other = f'{{ limit_packets = {OTHER_QUEUE_PACKETS}, semantics = "waiting" }}'
    access = f"{ACCESS_RATE_BPS / 1e6:g}Mbps"
    # The bottleneck one way only: the queue under test on r0's side, a never-full DropTail for
    # the ACKs on r1's, as in ns-3 (its AQM sits on r0's device alone).
    bottleneck = common.toml_link(
        "r0",
        "r1",
        f"{RATE_BPS / 1e6:g}Mbps",
        f"{BOTTLENECK_DELAY_MS}ms",
        congsim_queue(case, simulator, diagnostic),
    )
    lines += [*bottleneck[:-1], "duplex = false", ""]
    reverse = common.toml_link("r1", "r0", f"{RATE_BPS / 1e6:g}Mbps", f"{BOTTLENECK_DELAY_MS}ms", other)
    lines += [*reverse[:-1], "duplex = false", ""]
    lines += common.toml_link("r1", "dst", access, f"{ACCESS_DELAY_MS}ms", other)
    for node in [*senders, "c"]:
        lines += common.toml_link(node, "r0", access, f"{ACCESS_DELAY_MS}ms", other)
    for i, (sender, start_s) in enumerate(zip(senders, start_times_s(case.flows, seed), strict=True)):
        lines += ["[[flows]]", f'name = "f{i}"', f'from = "{sender}"', 'to = "dst"']
        lines += [f'start = "{round(start_s * 1e6)}us"', ""]
    lines += [
        "[[cbr]]",
        'name = "voice"',
        'from = "c"',
        'to = "dst"',
        f'rate = "{CBR_RATE_BPS / 1e6:g}Mbps"',
        f'packet_size = "{cbr_packet}B"',
        'phase = "zero"',
        "",
    ]
    return "\n".join(lines)


def read_table(folder: Path, name: str) -> list[dict[str, str]]:
    with (folder / f"{name}.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def run_congsim(
    case: Case, seed: int, folder: Path, simulator: str = "congsim", diagnostic: str = ""
) -> dict[str, Any]:
    """congsim's run of the case through its command line, one at a time under `nice -n 10`;
    a scenario congsim refuses stops the script with its message."""
    path = folder / f"aqm-ns3-{case.kind}-{case.flows}-{seed}-{simulator}{diagnostic}.toml"
    path.write_text(congsim_toml(case, seed, simulator, diagnostic))
    out_dir = folder / path.stem
    done = subprocess.run(
        ["nice", "-n", "10", str(CONGSIM), "run", str(path), "--out", str(out_dir)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(
            f"congsim refused {case.kind} (N = {case.flows}, seed {seed}):\n{done.stderr.strip()}\n"
            f"its bottleneck: queue = {congsim_queue(case, simulator, diagnostic)}"
        )
    flows = {row["flow"]: row for row in read_table(out_dir, "flows")}
    links = {row["link"]: row for row in read_table(out_dir, "links")}
    cbr = read_table(out_dir, "cbr")[0]
    bottleneck = links[BOTTLENECK]
    queue_packets = float(bottleneck["mean_queue_packets"])
    # Each packet's wait at the bottleneck, arrival to start of transmission, of the packets
    # that started in the window (what ns-3's per-packet wait measures).
    waits: dict[str, list[float]] = {}
    for row in read_table(out_dir, "sojourn"):
        if float(row["time_s"]) >= FROM_S:
            waits.setdefault(row["flow"], []).append(float(row["sojourn_s"]))
    every_wait = [w for flow_waits in waits.values() for w in flow_waits]
    aqm_drops = sum(
        int(bottleneck.get(column) or 0) for column in ("drops_early", "drops_forced") if column in bottleneck
    )
    drops = int(bottleneck["drops"])
    return {
        "goodputs_bps": [float(flows[f"f{i}"]["goodput_bps"]) for i in range(case.flows)],
        "queue_packets": queue_packets,
        "wait_mean_s": statistics.fmean(every_wait),
        "wait_p99_s": common.nearest_rank(every_wait, 0.99),
        "cbr_wait_mean_s": statistics.fmean(waits["voice"]) if "voice" in waits else math.nan,
        "flow_waits_s": [statistics.fmean(waits.get(f"f{i}", [math.nan])) for i in range(case.flows)],
        "drops": drops,
        "aqm_drops": aqm_drops,
        "overflow_drops": int(bottleneck["drops_overflow"]),
        "marks": int(bottleneck["marks"]),
        "other_drops": sum(int(row["drops"]) for name, row in links.items() if name != BOTTLENECK),
        "cbr_loss": float(cbr["loss_ratio"]),
        "recoveries": sum(int(row["fast_recoveries"]) for row in flows.values()),
        "rtos": sum(int(row["timeouts_all"]) for row in flows.values()),
    }


# CSV: one row per (queue kind, N, simulator); `_mean` and `_sd` over the seeds, lists (one value
# per TCP flow, space-separated) as means over the seeds.
SCALARS = (
    ("total_goodput_mbps", 3),
    ("jain", 4),
    ("share_min", 4),
    ("share_max", 4),
    ("wait_mean_ms", 2),
    ("wait_p99_ms", 2),
    ("qdisc_sojourn_mean_ms", 2),
    ("qdisc_sojourn_p99_ms", 2),
    ("queue_packets", 2),
    ("drops", 1),
    ("aqm_drops", 1),
    ("overflow_drops", 1),
    ("marks", 1),
    ("other_drops", 1),
    ("cbr_delay_mean_ms", 2),
    ("cbr_delay_p99_ms", 2),
    ("cbr_wait_mean_ms", 2),
    ("cbr_loss", 4),
    ("recoveries", 1),
    ("rtos", 1),
    ("fq_queues", 1),
)
COLUMNS = (
    "kind",
    "flows",
    "simulator",
    "seeds",
    *(f"{name}_{stat}" for name, _ in SCALARS for stat in ("mean", "sd")),
    "shares_mean",
    "shares_sd",
    "goodputs_mbps_mean",
    "flow_wait_ms_mean",
    "perturbations",
    "queue_delay_method",
    "queue",
    "wall_s",
)


def scalars_of(run: dict[str, Any]) -> dict[str, float]:
    """One run's numbers under SCALARS' names (NaN where the simulator has none)."""
    goodputs = run["goodputs_bps"]
    total = sum(goodputs)
    shares = [g / total for g in goodputs] if total else [math.nan] * len(goodputs)
    ms = 1e3

    def get(key: str, scale: float = 1.0) -> float:
        value = run.get(key)
        return math.nan if value is None else float(value) * scale

    return {
        "total_goodput_mbps": total / 1e6,
        "jain": common.jain(goodputs),
        "share_min": min(shares),
        "share_max": max(shares),
        "wait_mean_ms": get("wait_mean_s", ms),
        "wait_p99_ms": get("wait_p99_s", ms),
        "qdisc_sojourn_mean_ms": get("qdisc_mean_s", ms),
        "qdisc_sojourn_p99_ms": get("qdisc_p99_s", ms),
        "queue_packets": get("queue_packets"),
        "drops": get("drops"),
        "aqm_drops": get("aqm_drops"),
        "overflow_drops": get("overflow_drops"),
        "marks": get("marks"),
        "other_drops": get("other_drops"),
        "cbr_delay_mean_ms": get("cbr_delay_mean_s", ms),
        "cbr_delay_p99_ms": get("cbr_delay_p99_s", ms),
        "cbr_wait_mean_ms": get("cbr_wait_mean_s", ms),
        "cbr_loss": get("cbr_loss"),
        "recoveries": get("recoveries"),
        "rtos": get("rtos"),
        "fq_queues": get("fq_queues"),
    }


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    if any(math.isnan(v) for v in values):
        return math.nan, math.nan
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def column_means(lists: Sequence[Sequence[float]]) -> list[float]:
    """Element-wise means over the seeds of per-flow lists."""
    return [statistics.fmean(column) for column in zip(*lists, strict=True)]


def aggregate(case: Case, simulator: str, runs: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One CSV row: the runs of one case in one simulator, over the seeds."""
    seeds = sorted(runs)
    per_seed = [scalars_of(runs[s]) for s in seeds]
    row: dict[str, Any] = {
        "kind": case.kind,
        "flows": case.flows,
        "simulator": simulator,
        "seeds": " ".join(map(str, seeds)),
    }
    for name, digits in SCALARS:
        mean, sd = mean_sd([p[name] for p in per_seed])
        row[f"{name}_mean"] = fmt(mean, digits)
        row[f"{name}_sd"] = fmt(sd, digits)
    shares = [[g / sum(runs[s]["goodputs_bps"]) for g in runs[s]["goodputs_bps"]] for s in seeds]
    row["shares_mean"] = " ".join(fmt(v, 4) for v in column_means(shares))
    spreads = [statistics.stdev(column) if len(column) > 1 else 0.0 for column in zip(*shares, strict=True)]
    row["shares_sd"] = " ".join(fmt(v, 4) for v in spreads)
    goodputs = [runs[s]["goodputs_bps"] for s in seeds]
    row["goodputs_mbps_mean"] = " ".join(fmt(v / 1e6, 3) for v in column_means(goodputs))
    if "flow_waits_s" in runs[seeds[0]]:
        waits = column_means([runs[s]["flow_waits_s"] for s in seeds])
        row["flow_wait_ms_mean"] = " ".join(fmt(v * 1e3, 2) for v in waits)
    if simulator.startswith("ns3"):
        row["perturbations"] = " ".join(runs[s]["perturbation"] for s in seeds).strip()
        row["queue_delay_method"] = "per packet: queue disc enqueue to start of transmission"
        row["queue"] = "; ".join(runs[seeds[0]]["attributes"])
        row["wall_s"] = fmt(sum(runs[s]["wall_s"] for s in seeds), 1)
    else:
        row["queue_delay_method"] = "per packet: the sojourn table (arrival to start of transmission)"
        base, _, diagnostic = simulator.partition("+")
        row["queue"] = congsim_queue(case, base, diagnostic)
    return row


def check(ns3: dict[str, Any], ours: dict[str, Any]) -> str:
    """The cross-check targets on the seed means: mean queue delay within 10 % and every TCP
    flow's share within 5 % (relative) of ns-3's; for the flows off by more, how many differ by
    less than two standard errors of the two seed means (with equal round trips a flow's share
    under DropTail is a matter of which flow a tail drop hits: the seed-to-seed spread says how
    far apart two simulators that agree can still land)."""
    n_shares = [float(v) for v in ns3["shares_mean"].split()]
    c_shares = [float(v) for v in ours["shares_mean"].split()]
    n_wait, c_wait = float(ns3["wait_mean_ms_mean"]), float(ours["wait_mean_ms_mean"])
    flows_ok, _, verdict = common.agreement(n_shares, c_shares, n_wait, c_wait)
    seeds = len(ns3["seeds"].split())
    n_sd = [float(v) for v in ns3["shares_sd"].split()]
    c_sd = [float(v) for v in ours["shares_sd"].split()]
    off = [i for i, ok in enumerate(flows_ok) if not ok]
    if off and seeds > 1:
        noise = sum(
            abs(c_shares[i] - n_shares[i]) <= 2 * math.sqrt((n_sd[i] ** 2 + c_sd[i] ** 2) / seeds)
            for i in off
        )
        verdict += f" ({noise} of {len(off)} flows off are within 2 standard errors of the seed means)"
    return verdict


def print_table(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'kind':8} {'N':>2} {'sim':21} | {'Mbps':>6} {'Jain':>6} {'share min-max':>13} | "
        f"{'wait ms mean':>12} {'p99':>6} {'qdisc':>6} {'pkts':>6} | {'drops aqm/ovf':>13} | "
        f"{'CBR ms mean':>11} {'p99':>6} {'loss %':>6} | {'RTOs':>5}"
    )
    print(head)
    print("-" * len(head))
    previous = None
    for r in rows:
        if previous is not None and (r["kind"], r["flows"]) != previous:
            print()
        previous = (r["kind"], r["flows"])
        loss = fmt(100 * float(r["cbr_loss_mean"]), 2) if r["cbr_loss_mean"] else ""
        wait = f"{r['wait_mean_ms_mean']}±{r['wait_mean_ms_sd']}" if r["wait_mean_ms_mean"] else ""
        print(
            f"{r['kind']:8} {r['flows']:>2} {r['simulator']:21} | {r['total_goodput_mbps_mean']:>6} "
            f"{r['jain_mean']:>6} {r['share_min_mean']:>6}-{r['share_max_mean']:<6} | "
            f"{wait:>12} {r['wait_p99_ms_mean']:>6} {r['qdisc_sojourn_mean_ms_mean']:>6} "
            f"{r['queue_packets_mean']:>6} | {r['aqm_drops_mean']:>6}/{r['overflow_drops_mean']:<6} | "
            f"{r['cbr_delay_mean_ms_mean']:>11} {r['cbr_delay_p99_ms_mean']:>6} {loss:>6} | "
            f"{r['rtos_mean']:>5}"
        )
        if r["simulator"].startswith("congsim") and r.get("check"):
            print(f"{'':22}targets (mean wait within 10 %, each share within 5 %):")
            for verdict in r["check"].split(" | "):
                print(f"{'':24}{verdict}")


def main() -> None:
    parser = common.arguments(__doc__, "comma-separated queue kinds (default: all)", 1)
    parser.add_argument("--flows", help="comma-separated TCP flow counts (default 1,5,20)")
    parser.add_argument("--seeds", help="comma-separated RngRun values / congsim seeds (default 1,2,3)")
    parser.add_argument(
        "--congsim",
        action="store_true",
        help="also run congsim's AQM configurations (its DropTail ones always run)",
    )
    parser.add_argument(
        "--diagnostic",
        choices=sorted(DIAGNOSTICS),
        help="run both simulators with a DIAGNOSTICS setting changed (needs --out; rows `<sim>+NAME`)",
    )
    args = parser.parse_args()
    if args.diagnostic and not args.out:
        parser.error("--diagnostic writes its own CSV: give --out")
    if args.jobs != 1:
        parser.error("one simulation at a time (the machine is shared): --jobs 1")
    kinds = tuple(args.only.split(",")) if args.only else KINDS
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown queue kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    counts = tuple(int(n) for n in args.flows.split(",")) if args.flows else FLOW_COUNTS
    seeds = tuple(int(s) for s in args.seeds.split(",")) if args.seeds else SEEDS
    out = args.out or DEFAULT_OUT

    binary = common.ns3_binary(SOURCE, "aqm", needs="fq-pie-queue-disc.h")
    import congsim

    common.print_versions(congsim.__version__)
    cases = [Case(kind, n) for kind in kinds for n in counts]
    diagnostic = args.diagnostic or ""
    suffix = f"+{diagnostic}" if diagnostic else ""
    if diagnostic:
        print(f"diagnostic {diagnostic}: {DIAGNOSTICS[diagnostic].about}")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            ns3_rows = {}
            for name, ssthresh in NS3_VARIANTS.items():
                label = name + suffix
                ns3_runs = {seed: run_ns3(binary, case, seed, ssthresh, diagnostic) for seed in seeds}
                ns3_rows[label] = aggregate(case, label, ns3_runs)
                rows.append(ns3_rows[label])
            if case.kind == "droptail" or args.congsim:
                for variant in ("congsim", *CONGSIM_VARIANTS.get(case.kind, {})):
                    simulator = variant + suffix
                    ours = {seed: run_congsim(case, seed, Path(tmp), variant, diagnostic) for seed in seeds}
                    row = aggregate(case, simulator, ours)
                    checks = (f"vs {label}: {check(r, row)}" for label, r in ns3_rows.items())
                    row["check"] = " | ".join(checks)
                    rows.append(row)
            print(f"done {case.kind} N = {case.flows}", file=sys.stderr)
    print_table(rows)
    common.write_csv(out, (*COLUMNS, "check"), rows)


if __name__ == "__main__":
    main()
