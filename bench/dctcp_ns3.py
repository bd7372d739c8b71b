"""DCTCP (RFC 8257) in congsim beside ns-3.37's TcpDctcp: the same dumbbells in both, one table.

    .venv/bin/python bench/dctcp_ns3.py [--out bench/results/dctcp_ns3.csv] [--only 2,10,40]
        [--congsim-cc dctcp | aimd] [--ns3-only] [--ns3-as-shipped-only] [--jobs 1]

Builds bench/ns3_dctcp.cc with g++ against Debian's ns-3 (`apt-get install ns3 libns3-dev`)
when the binary is missing or older than the source (or bench/ns3_common.h), writes each
configuration as a congsim scenario into a temporary folder, runs both, and prints per case the
per-flow goodput, alpha, mean cwnd and ECN window reductions, and the bottleneck queue (mean,
99th percentile, maximum), marks, drops and Jain's index of the goodputs; the CSV (`--out`)
holds one row per flow with the case's columns repeated.

`--congsim-cc aimd` runs congsim's RFC 3168 ECN AIMD in place of its DCTCP (for comparison: its
rows are labelled by the `congsim_cc` column, have no congsim alpha, and are not written unless
`--out` is given); `--ns3-only` leaves congsim out (default CSV
bench/results/dctcp_ns3_ns3only.csv).

The network (both simulators; fixed before any run): N senders, each -- 10 Gbps, 10 us -- r1 --
bottleneck 10 Gbps, 20 us -- r2 -- 10 Gbps, 10 us -- its own receiver (one receiving node per
sender). Link rates count IP bytes (ns-3's devices run faster by its 2-byte PPP header); every
queue but the bottleneck's holds 100 000 packets (congsim `semantics = "waiting"`, ns-3 device
queues with no queue disc). The bottleneck marks as a step on the instantaneous queue at K = 65
packets, limit 1000 packets: ns-3 RedQueueDisc MinTh = MaxTh = 65, QW = 1, UseEcn, no hard drop,
MeanPktSize 1500, MaxSize 1000p, over a device queue of 1 packet; congsim RED with w_q = 1,
mark_above_max_th, ns2_quirks off, min_th = max_th = 65 (a step: with w_q = 1 the average is the
number of packets waiting). Both mark an arrival that finds the RED queue at K or more; ns-3's
RED queue does not count the packet waiting in the device queue, so with a backlog ns-3 marks at
K + 1 = 66 packets waiting in all (the queue columns count all packets waiting, the one in
transmission excluded, in both; ns3_qdisc_* count ns-3's queue disc alone).

TCP: ns-3 TcpDctcp on every node (ECT(0), its receiver CE state machine), congsim `rfc` with
`congestion_control = "dctcp"`, `congestion_marks = "ecn"`. Matched: 1460-byte segments
(1500-byte IP packets, no timestamps), window scaling, SACK (congsim `variant = "sack"`),
initial window 10, delayed ACKs every second segment or after 200 ms (ns-3 DelAckCount 2, the
ns-3 default, which its DCTCP receiver's delayed-ACK state machine is written for; congsim
`rfc`'s `delayed_ack = "ns2"`), 16 MiB buffers (ns-3 send and receive; congsim receive), RTO
floor 1 s, clock granularity 1 ms (both defaults). Not matched: ns-3 opens with a SYN, congsim's
`rfc` flows send at once; ns-3 paces its reduction in CA_CWR with PRR (its default recovery).
Two more ns-3 runs per case change one thing each: `ns3_classic_*` with TcpClassicRecovery, which
sets cwnd to the new ssthresh at once (RFC 8257's cut), and `ns3_floor2_*` with a floor of 2
segments under the DCTCP cut, as Linux's dctcp_ssthresh has: ns-3.37's TcpDctcp has none, and a
window below one segment stops a flow for good (ns-3 sends whole segments only and, with nothing
in flight, arms no timer), which starves many of 40 flows. Flow i starts at i us in both.

Measured over the second half of 1 s (0.5-1 s): goodput is payload delivered to the application;
the bottleneck queue is sampled every 10 us; ns-3's alpha and cwnd, and congsim's cwnd, every
100 us. Alpha: ns-3's is the last value of TcpDctcp's CongestionEstimate trace (1 before the
first), `ns3_alpha_mean` its mean over the samples of the window and `ns3_alpha_last` its value
at the end of the run; congsim's (`congsim_alpha`) is its flows table's `dctcp_alpha`, the value
at the end of the run, to set beside `ns3_alpha_last` (the table has the column when a flow runs
DCTCP; empty with `--congsim-cc aimd`). Marks and drops are counted in the window. Window cuts
are ns-3's entries into CA_CWR and congsim's `ecn_responses`.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ns3_cross_check as common
from ns3_cross_check import ROOT, fmt

SOURCE = ROOT / "bench" / "ns3_dctcp.cc"
DEFAULT_OUT = ROOT / "bench" / "results" / "dctcp_ns3.csv"
NS3_ONLY_OUT = ROOT / "bench" / "results" / "dctcp_ns3_ns3only.csv"

RATE = "10Gbps"
RATE_BPS = 10e9
ACCESS_DELAY_US = 10
BOTTLENECK_DELAY_US = 20
PACKET_BYTES = 1500
SEGMENT_BYTES = PACKET_BYTES - 40
K_PACKETS = 65
LIMIT_PACKETS = 1000
OTHER_QUEUE = 100_000
INITIAL_WINDOW = 10
BUFFERS_BYTES = 16 << 20
DURATION_S = 1.0
FROM_S = 0.5
STAGGER_US = 1
QUEUE_SAMPLE_US = 10
FLOW_SAMPLE_US = 100
BOTTLENECK = "r1->r2"


# ns-3 runs per case: column prefix -> (recovery, floor under the DCTCP cut in segments).
NS3_VARIANTS = {"ns3_": ("prr", 0), "ns3_classic_": ("classic", 0), "ns3_floor2_": ("prr", 2)}


@dataclass(frozen=True)
class Config:
    name: str
    flows: int


# Fixed before any run: 2, 10 and 40 long-lived DCTCP flows.
CONFIGS = (Config("n2", 2), Config("n10", 10), Config("n40", 40))


def run_ns3(binary: Path, config: Config, recovery: str, floor: int) -> dict[str, Any]:
    command = [
        str(binary),
        f"--flows={config.flows}",
        f"--bottleneckDelayUs={BOTTLENECK_DELAY_US}",
        f"--accessDelayUs={ACCESS_DELAY_US}",
        f"--k={K_PACKETS}",
        f"--limit={LIMIT_PACKETS}",
        "--deviceQueue=1",
        f"--recovery={recovery}",
        f"--floorSegments={floor}",
        f"--staggerUs={STAGGER_US}",
        f"--sampleUs={FLOW_SAMPLE_US}",
        f"--queueSampleUs={QUEUE_SAMPLE_US}",
        *common.run_flags(RATE_BPS, RATE_BPS, OTHER_QUEUE, DURATION_S, FROM_S),
        *common.tcp_flags(SEGMENT_BYTES, INITIAL_WINDOW, BUFFERS_BYTES, sack=True),
    ]
    out, wall = common.run_program(command)
    flows: dict[int, dict[str, float]] = {}
    result: dict[str, Any] = {"flows": flows, "wall_s": wall}
    for line in out.splitlines():
        words = line.split()
        if words[0] == "flow":
            fields = common.pairs(words[2:])
            flows[int(words[1])] = {
                "goodput_bps": float(fields["goodput_bps"]),
                "alpha": float(fields["alpha_mean"]),
                "alpha_last": float(fields["alpha_last"]),
                "marked_fraction": float(fields["marked_fraction"]),
                "mean_cwnd": float(fields["mean_cwnd"]),
                "cuts": int(fields["cwr"]),
                "recoveries": int(fields["recoveries"]),
                "rtos": int(fields["rtos"]),
            }
        elif words[0] == "queue":
            fields = common.pairs(words[1:])
            result["queue"] = {key: float(value) for key, value in fields.items()}
        elif words[0] == "bottleneck":
            fields = common.pairs(words[1:])
            result["marks"] = int(fields["marks"])
            result["drops"] = int(fields["drops"])
            result["other_drops"] = int(fields["other_drops"])
    return result


def congsim_toml(config: Config, cc: str) -> str:
    senders = [f"s{i}" for i in range(config.flows)]
    receivers = [f"d{i}" for i in range(config.flows)]
    nodes = ", ".join(f'"{n}"' for n in [*senders, "r1", "r2", *receivers])
    lines = [
        f'name = "dctcp-ns3-{config.name}"',
        f"nodes = [{nodes}]",
        "",
        "[simulation]",
        f'duration = "{DURATION_S:g}s"',
        f'measure_from = "{FROM_S:g}s"',
        "seed = 1",
        "",
        "[metrics]",
        f'series_interval = "{QUEUE_SAMPLE_US}us"',
        "",
        "[tcp]",
        'profile = "rfc"',
        f'congestion_control = "{cc}"',
        'congestion_marks = "ecn"',
        f'packet_size = "{SEGMENT_BYTES}B"',
        f'receiver_buffer = "{BUFFERS_BYTES}B"',
        f"initial_window = {INITIAL_WINDOW}",
        'variant = "sack"',
        "",
    ]

    def link(a: str, b: str, delay_us: float, queue: str) -> list[str]:
        return common.toml_link(a, b, RATE, f"{delay_us:g}us", queue)

    red = (
        f'{{ kind = "red", limit_packets = {LIMIT_PACKETS}, min_th = {K_PACKETS}, '
        f"max_th = {K_PACKETS}, w_q = 1.0, ecn_marking = true, mark_above_max_th = true, "
        "ns2_quirks = false }"
    )
    other = f'{{ limit_packets = {OTHER_QUEUE}, semantics = "waiting" }}'
    lines += link("r1", "r2", BOTTLENECK_DELAY_US, red)
    for s, d in zip(senders, receivers, strict=True):
        lines += link(s, "r1", ACCESS_DELAY_US, other)
        lines += link("r2", d, ACCESS_DELAY_US, other)
    for i, (s, d) in enumerate(zip(senders, receivers, strict=True)):
        lines += ["[[flows]]", f'name = "f{i}"', f'from = "{s}"', f'to = "{d}"']
        lines += [f'start = "{i * STAGGER_US}us"', ""]
    return "\n".join(lines)


def on_grid(times: Any, step_us: int) -> Any:
    """Which sample times lie in the window [FROM_S, DURATION_S) and on the grid of step_us."""
    ticks = (times * 1e6 / QUEUE_SAMPLE_US).round().astype("int64")
    every = step_us // QUEUE_SAMPLE_US
    first = round(FROM_S * 1e6 / QUEUE_SAMPLE_US)
    last = round(DURATION_S * 1e6 / QUEUE_SAMPLE_US)
    return (ticks >= first) & (ticks < last) & (ticks % every == 0)


def run_congsim(config: Config, cc: str, folder: Path) -> dict[str, Any]:
    import congsim

    # 40 flows: 100 001 samples of 202 series (flows and link directions) pass congsim's
    # default budget of 20 million series rows.
    os.environ.setdefault("CONGSIM_LIMITS", "series_rows=30000000")
    path = folder / f"dctcp-ns3-{config.name}.toml"
    path.write_text(congsim_toml(config, cc))
    started = time.monotonic()
    results = congsim.run(congsim.load(path))
    wall = time.monotonic() - started
    flows = results.flows.set_index("flow")
    links = results.links.set_index("link")
    series = results.table("flow_series")
    series = series[on_grid(series["time_s"], FLOW_SAMPLE_US)]
    cwnd = series.groupby("flow")["cwnd"].mean()
    queue_series = results.table("link_series")
    queue_series = queue_series[queue_series["link"] == BOTTLENECK]
    in_window = on_grid(queue_series["time_s"], QUEUE_SAMPLE_US)
    queue = [float(q) for q in queue_series[in_window]["queue_packets"]]
    out: dict[int, dict[str, float]] = {}
    for i in range(config.flows):
        row = flows.loc[f"f{i}"]
        out[i] = {
            "goodput_bps": float(row["goodput_bps"]),
            "alpha": float(row["dctcp_alpha"]) if "dctcp_alpha" in flows.columns else math.nan,
            "mean_cwnd": float(cwnd[f"f{i}"]),
            "cuts": int(row["ecn_responses"]),
            "recoveries": int(row["fast_recoveries"]),
            "rtos": int(row["timeouts_all"]),
        }
    bottleneck_drops = int(links.loc[BOTTLENECK, "drops"])
    return {
        "flows": out,
        "wall_s": wall,
        "queue": {
            "mean": sum(queue) / len(queue),
            "p99": common.nearest_rank(queue, 0.99),
            "max": max(queue),
            "samples": len(queue),
        },
        "marks": int(links.loc[BOTTLENECK, "marks"]),
        "drops": bottleneck_drops,
        "other_drops": int(links["drops"].sum()) - bottleneck_drops,
    }


COLUMNS = (
    "case",
    "flows",
    "flow",
    "congsim_cc",
    "ns3_goodput_mbps",
    "congsim_goodput_mbps",
    "ratio",
    "ns3_jain",
    "congsim_jain",
    "ns3_alpha_mean",
    "congsim_alpha",
    "ns3_alpha_last",
    "ns3_marked_fraction",
    "ns3_mean_cwnd",
    "congsim_mean_cwnd",
    "ns3_cuts",
    "congsim_cuts",
    "ns3_queue_mean",
    "congsim_queue_mean",
    "ns3_queue_p99",
    "congsim_queue_p99",
    "ns3_queue_max",
    "congsim_queue_max",
    "ns3_qdisc_mean",
    "ns3_qdisc_p99",
    "ns3_qdisc_max",
    "ns3_marks",
    "congsim_marks",
    "ns3_drops",
    "congsim_drops",
    "ns3_other_drops",
    "congsim_other_drops",
    "ns3_recoveries",
    "congsim_recoveries",
    "ns3_rtos",
    "congsim_rtos",
    "ns3_classic_goodput_mbps",
    "ns3_classic_jain",
    "ns3_classic_alpha_mean",
    "ns3_classic_mean_cwnd",
    "ns3_classic_cuts",
    "ns3_classic_queue_mean",
    "ns3_classic_queue_p99",
    "ns3_classic_queue_max",
    "ns3_classic_marks",
    "ns3_classic_drops",
    "ns3_floor2_goodput_mbps",
    "ns3_floor2_jain",
    "ns3_floor2_alpha_mean",
    "ns3_floor2_mean_cwnd",
    "ns3_floor2_cuts",
    "ns3_floor2_queue_mean",
    "ns3_floor2_queue_p99",
    "ns3_floor2_queue_max",
    "ns3_floor2_marks",
    "ns3_floor2_drops",
    "ns3_wall_s",
    "ns3_classic_wall_s",
    "ns3_floor2_wall_s",
    "congsim_wall_s",
)


def rows_of(
    config: Config, cc: str, ns3: dict[str, dict[str, Any]], ours: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """One row per flow; `ns3` maps NS3_VARIANTS' prefixes to their runs ("ns3_" at least)."""

    def goodputs(run: dict[str, Any]) -> list[float]:
        return [run["flows"][i]["goodput_bps"] for i in range(config.flows)]

    rows = []
    for i in range(config.flows):
        n = ns3["ns3_"]["flows"][i]
        row: dict[str, Any] = {
            "case": config.name,
            "flows": config.flows,
            "flow": i,
            "congsim_cc": cc if ours else "",
            "ns3_alpha_last": fmt(n["alpha_last"], 4),
            "ns3_marked_fraction": fmt(n["marked_fraction"], 4),
            "ns3_qdisc_mean": fmt(ns3["ns3_"]["queue"]["qdisc_mean"], 2),
            "ns3_qdisc_p99": fmt(ns3["ns3_"]["queue"]["qdisc_p99"], 0),
            "ns3_qdisc_max": fmt(ns3["ns3_"]["queue"]["qdisc_max"], 0),
            "ns3_other_drops": ns3["ns3_"]["other_drops"],
            "ns3_recoveries": n["recoveries"],
            "ns3_rtos": n["rtos"],
        }
        for prefix, run in ns3.items():
            k = run["flows"][i]
            row |= {
                f"{prefix}goodput_mbps": fmt(k["goodput_bps"] / 1e6, 2),
                f"{prefix}jain": fmt(common.jain(goodputs(run)), 5),
                f"{prefix}alpha_mean": fmt(k["alpha"], 4),
                f"{prefix}mean_cwnd": fmt(k["mean_cwnd"], 2),
                f"{prefix}cuts": k["cuts"],
                f"{prefix}queue_mean": fmt(run["queue"]["mean"], 2),
                f"{prefix}queue_p99": fmt(run["queue"]["p99"], 0),
                f"{prefix}queue_max": fmt(run["queue"]["max"], 0),
                f"{prefix}marks": run["marks"],
                f"{prefix}drops": run["drops"],
                f"{prefix}wall_s": fmt(run["wall_s"], 1),
            }
        if ours:
            c = ours["flows"][i]
            row |= {
                "congsim_goodput_mbps": fmt(c["goodput_bps"] / 1e6, 2),
                "ratio": fmt(c["goodput_bps"] / n["goodput_bps"], 3) if n["goodput_bps"] else "",
                "congsim_jain": fmt(common.jain(goodputs(ours)), 5),
                "congsim_alpha": fmt(c["alpha"], 4),
                "congsim_mean_cwnd": fmt(c["mean_cwnd"], 2),
                "congsim_cuts": c["cuts"],
                "congsim_queue_mean": fmt(ours["queue"]["mean"], 2),
                "congsim_queue_p99": fmt(ours["queue"]["p99"], 0),
                "congsim_queue_max": fmt(ours["queue"]["max"], 0),
                "congsim_marks": ours["marks"],
                "congsim_drops": ours["drops"],
                "congsim_other_drops": ours["other_drops"],
                "congsim_recoveries": c["recoveries"],
                "congsim_rtos": c["rtos"],
                "congsim_wall_s": fmt(ours["wall_s"], 1),
            }
        rows.append({column: row.get(column, "") for column in COLUMNS})
    return rows


SHOWN = (("ns-3", "ns3_"), ("classic", "ns3_classic_"), ("floor 2", "ns3_floor2_"), ("congsim", "congsim_"))


# Alpha: ns-3's means over the window, then ns-3's and congsim's values at the end of the run.
ALPHAS = (
    ("ns-3", "ns3_alpha_mean"),
    ("classic", "ns3_classic_alpha_mean"),
    ("floor 2", "ns3_floor2_alpha_mean"),
    ("ns3 end", "ns3_alpha_last"),
    ("cs end", "congsim_alpha"),
)


def print_table(rows: list[dict[str, Any]]) -> None:
    """Per case: one line per flow (ns-3 as it ships | with classic recovery | with the floor
    of 2 segments | congsim; alpha as ALPHAS has it), then the case's queue, marks, drops and
    fairness."""
    names = [name for name, _ in SHOWN]

    def group(width: int, values: list[str]) -> str:
        return " ".join(f"{v:>{width}}" for v in values)

    head = (
        f"{'case':4} {'flow':>4} | {'goodput Mbps':^35} | {'alpha':^39} | {'mean cwnd':^27} | "
        f"{'window cuts':^19}"
    )
    sub = (
        f"{'':4} {'':>4} | {group(8, names)} | {group(7, [name for name, _ in ALPHAS])} | "
        f"{group(6, [n[:6] for n in names])} | {group(4, [n[:4] for n in names])}"
    )
    print(head)
    print(sub)
    print("-" * len(sub))
    cases: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        cases.setdefault(r["case"], []).append(r)
    for case_rows in cases.values():
        for r in case_rows:
            print(
                f"{r['case']:4} {r['flow']:>4} | "
                f"{group(8, [r[p + 'goodput_mbps'] for _, p in SHOWN])} | "
                f"{group(7, [r[column] for _, column in ALPHAS])} | "
                f"{group(6, [r[p + 'mean_cwnd'] for _, p in SHOWN])} | "
                f"{group(4, [str(r[p + 'cuts']) for _, p in SHOWN])}"
            )
        print_case(case_rows)


def print_case(rows: list[dict[str, Any]]) -> None:
    r = rows[0]
    for who, prefix in SHOWN:
        if not r[f"{prefix}queue_mean"]:
            continue
        other = r.get(f"{prefix}other_drops", "")
        print(
            f"     {who:8} queue mean {r[f'{prefix}queue_mean']:>6} p99 {r[f'{prefix}queue_p99']:>4} "
            f"max {r[f'{prefix}queue_max']:>4} | marks {r[f'{prefix}marks']:>7} drops "
            f"{r[f'{prefix}drops']!s:>3} other {other!s:>3} | Jain {r[f'{prefix}jain']} | "
            f"{r[f'{prefix}wall_s']} s wall"
        )
    print()


def main() -> None:
    parser = common.arguments(__doc__, "comma-separated flow counts (default: 2,10,40)", 1)
    parser.add_argument("--congsim-cc", default="dctcp", choices=("dctcp", "aimd"))
    parser.add_argument("--ns3-only", action="store_true", help="leave congsim out")
    parser.add_argument(
        "--ns3-as-shipped-only", action="store_true", help="no classic-recovery or floor-2 ns-3 runs"
    )
    args = parser.parse_args()

    configs = CONFIGS
    if args.only:
        wanted = {int(n) for n in args.only.split(",")}
        configs = tuple(c for c in CONFIGS if c.flows in wanted)
    out = args.out
    if out is None and args.ns3_only:
        out = NS3_ONLY_OUT
    elif out is None and args.congsim_cc == "dctcp":
        out = DEFAULT_OUT
    binary = common.ns3_binary(SOURCE, "dctcp", needs="tcp-dctcp.h")
    version = "not run"
    if not args.ns3_only:
        import congsim

        version = f"{congsim.__version__} ({args.congsim_cc})"
    common.print_versions(version)
    variants = {"ns3_": NS3_VARIANTS["ns3_"]} if args.ns3_as_shipped_only else NS3_VARIANTS
    # congsim first: it takes seconds, ns-3 minutes.
    ours: dict[str, dict[str, Any]] = {}
    if not args.ns3_only:
        with tempfile.TemporaryDirectory() as tmp:
            ours = {c.name: run_congsim(c, args.congsim_cc, Path(tmp)) for c in configs}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        ns3_runs: dict[tuple[str, str], Future[dict[str, Any]]] = {
            (c.name, prefix): pool.submit(run_ns3, binary, c, recovery, floor)
            for c in configs
            for prefix, (recovery, floor) in variants.items()
        }
        rows = []
        for c in configs:
            runs = {prefix: ns3_runs[(c.name, prefix)].result() for prefix in variants}
            rows += rows_of(c, args.congsim_cc, runs, ours.get(c.name))
    print_table(rows)
    if out:
        common.write_csv(out, COLUMNS, rows)


if __name__ == "__main__":
    main()
