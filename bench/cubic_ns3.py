"""CUBIC in congsim beside ns-3 (issue #29): the same dumbbells in both, one table.

    .venv/bin/python bench/cubic_ns3.py [--out bench/results/cubic_ns3.csv] [--only a,b]
        [--congsim-sack-sender rfc6675|prr] [--ns3-recovery prr|classic]
    .venv/bin/python bench/cubic_ns3.py --recoveries --only a,b,c,d,g,i \
        --out bench/results/cubic_prr_ns3.csv

Builds bench/ns3_cubic.cc with g++ against Debian's ns-3 (`apt-get install ns3 libns3-dev`)
when the binary is missing or older than the source (or bench/ns3_common.h), writes each
configuration as a congsim scenario into a temporary folder, runs both, and prints one row per
flow: goodput, retransmission timeouts, fast recoveries and mean cwnd, for congsim, for ns-3 as
it ships (HyStart on) and for ns-3 with HyStart off (congsim has no HyStart); the CSV (`--out`)
adds drops and the times of every recovery and timeout.

The network (both simulators): sender i -- 1 Gbps, rtt_i/2 - 2 ms -- r1 -- bottleneck, 1 ms --
r2 -- 1 Gbps, 1 ms -- receiver; DropTail queues in packets, counting packets waiting beside the
one being sent (congsim `semantics = "waiting"`, ns-3's point-to-point device queue with no queue
disc). The bottleneck queue holds one bandwidth-delay product of 1500-byte packets; every other
queue 100 000 packets (configurations f to i: congsim's default 50, as on the path of the
"CUBIC's window cut under SACK" section of docs/validation.md, whose 1 MiB receive buffer h and i
keep too).

TCP, matched where both have the switch: 1460-byte segments (1500-byte IP packets), no
timestamps, window scaling, 16 MiB receive buffers (never the limit here; 1 MiB in h and i; ns-3's
send buffer has the receive buffer's size, congsim has none), initial window
3 (congsim `rfc`'s; ns-3's default is 10), delayed ACKs every second segment or after 200 ms
(ns-3 DelAckCount 2, DelAckTimeout 200 ms; congsim `rfc`'s `delayed_ack = "ns2"`, 200 ms), RTO
floor 1 s and clock granularity 1 ms (both defaults), Limited Transmit on (both defaults), SACK
on or off per configuration. Not matched (each simulator's own): loss recovery (congsim RFC 6675
with SACK, RFC 6582 NewReno without; ns-3's default PRR on its scoreboard, with Reno "SACK"
emulation when SACK is off; `--congsim-sack-sender prr` gives congsim's SACK configurations
RFC 6937 PRR, `--ns3-recovery classic` gives ns-3 TcpClassicRecovery), the connection set-up
(ns-3 opens with a SYN, congsim's `rfc` flows send at once), and the CUBIC differences
docs/validation.md registers.

Measured over the whole run (0-30 s), and goodput also over 10-30 s (after the start-up):
goodput is payload delivered in order to the application; mean cwnd samples cwnd every 10 ms;
timeouts are every RTO (congsim `timeouts_all`, ns-3 each call of ReTxTimeout, which reaches the
congestion control as CA_LOSS); recoveries are fast recoveries entered (congsim `fast_recoveries`
and its `fast_retransmit` events, ns-3 the socket's entries into CA_RECOVERY).

`--recoveries` (issue #29, CUBIC with PRR against NewReno-style recovery) runs the selected
configurations with SACK four ways, congsim `rfc6675` or `prr` against ns-3 PRR or classic
recovery (HyStart on and off as above), and prints and writes (`--out`) one row per flow,
configuration, congsim recovery and ns-3 recovery.
"""

from __future__ import annotations

import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ns3_cross_check as common
from ns3_cross_check import ROOT, fmt

SOURCE = ROOT / "bench" / "ns3_cubic.cc"

RATE_BPS = 100e6
PACKET_BYTES = 1500
SEGMENT_BYTES = PACKET_BYTES - 40
DURATION_S = 30
BOTTLENECK_DELAY_MS = 1
SAMPLE_MS = 10
BUFFERS_BYTES = 16 << 20
LATE_FROM_S = 10


def bdp_packets(rtt_ms: float) -> int:
    return round(RATE_BPS * rtt_ms / 1000 / 8 / PACKET_BYTES)


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    flows: tuple[tuple[str, float], ...]  # (cubic | newreno, round trip in ms)
    buffer: int
    sack: bool = True
    access_queue: int = 100_000
    receiver_buffer: int = BUFFERS_BYTES


# Fixed before any run (issue #29); f and g repeat a and e on the path of the colleague's
# D33 measurements, whose 1 Gbps access links keep congsim's default 50-packet queue.
CONFIGS = (
    Config("a", "1 CUBIC, RTT 20 ms, 1 BDP, SACK", (("cubic", 20),), bdp_packets(20)),
    Config("b", "1 CUBIC, RTT 80 ms, 1 BDP, SACK", (("cubic", 80),), bdp_packets(80)),
    Config(
        "c",
        "CUBIC + NewReno, RTT 40 ms, 1 BDP, SACK",
        (("cubic", 40), ("newreno", 40)),
        bdp_packets(40),
    ),
    Config(
        "d",
        "2 CUBIC, RTT 20 + 80 ms, 1 BDP of 50 ms, SACK",
        (("cubic", 20), ("cubic", 80)),
        bdp_packets(50),
    ),
    Config("e", "1 CUBIC, RTT 20 ms, 1 BDP, no SACK", (("cubic", 20),), bdp_packets(20), sack=False),
    Config(
        "f",
        "as e, 50-packet access queues",
        (("cubic", 20),),
        bdp_packets(20),
        sack=False,
        access_queue=50,
    ),
    Config("g", "as a, 50-packet access queues", (("cubic", 20),), bdp_packets(20), access_queue=50),
    # Added after the first run, to put the D33 section's path itself (its `rfc` default 1 MiB
    # receive buffer too) to ns-3: f and g did not show the collapse it reports.
    Config(
        "h",
        "as f, 1 MiB receive buffer (rfc default)",
        (("cubic", 20),),
        bdp_packets(20),
        sack=False,
        access_queue=50,
        receiver_buffer=1 << 20,
    ),
    Config(
        "i",
        "as g, 1 MiB receive buffer (rfc default)",
        (("cubic", 20),),
        bdp_packets(20),
        access_queue=50,
        receiver_buffer=1 << 20,
    ),
)


def run_ns3(binary: Path, config: Config, hystart: bool, recovery: str = "prr") -> dict[str, Any]:
    flows = ",".join(f"{kind}:{rtt:g}" for kind, rtt in config.flows)
    command = [
        str(binary),
        *common.run_flags(RATE_BPS, 1e9, config.access_queue, DURATION_S, LATE_FROM_S),
        *common.tcp_flags(SEGMENT_BYTES, 3, config.receiver_buffer, config.sack),
        f"--bottleneckDelayMs={BOTTLENECK_DELAY_MS}",
        f"--buffer={config.buffer}",
        f"--flows={flows}",
        f"--hystart={str(hystart).lower()}",
        f"--sampleMs={SAMPLE_MS}",
        f"--recovery={recovery}",
    ]
    out, _ = common.run_program(command)
    flows_out: dict[int, dict[str, Any]] = {}
    times: dict[tuple[int, str], list[float]] = {}
    drops = {}
    for line in out.splitlines():
        words = line.split()
        if words[0] == "flow":
            i = int(words[1])
            fields = common.pairs(words[4:])
            flows_out[i] = {
                "goodput_bps": float(fields["goodput_bps"]),
                "late_goodput_bps": float(fields["goodput_from_bps"]),
                "rtos": int(fields["rtos"]),
                "recoveries": int(fields["recoveries"]),
                "mean_cwnd": float(fields["mean_cwnd"]),
            }
        elif words[0] == "event":
            times.setdefault((int(words[2]), words[3]), []).append(float(words[1]))
        elif words[0] == "drops":
            drops = {"bottleneck": int(words[2]), "other": int(words[4])}
    for i, flow in flows_out.items():
        flow["recovery_times"] = sorted(times.get((i, "recovery"), []))
        flow["rto_times"] = sorted(times.get((i, "rto"), []))
    return {"flows": flows_out, "drops": drops}


def congsim_toml(config: Config, sack_sender: str = "rfc6675") -> str:
    lines = [
        f'name = "cubic-ns3-{config.name}"',
        "nodes = [" + ", ".join(f'"s{i}"' for i in range(len(config.flows))) + ', "r1", "r2", "dst"]',
        "",
        "[simulation]",
        f'duration = "{DURATION_S}s"',
        "seed = 1",
        "",
        "[metrics]",
        f'series_interval = "{SAMPLE_MS}ms"',
        "tcp_events = true",
        "",
        "[tcp]",
        'profile = "rfc"',
        f'packet_size = "{SEGMENT_BYTES}B"',
        f'receiver_buffer = "{config.receiver_buffer}B"',
        'variant = "' + ("sack" if config.sack else "newreno") + '"',
        *([f'sack_sender = "{sack_sender}"'] if config.sack else []),
        "",
    ]

    def link(a: str, b: str, rate: str, delay_ms: float, limit: int) -> list[str]:
        queue = f'{{ limit_packets = {limit}, semantics = "waiting" }}'
        return common.toml_link(a, b, rate, f"{delay_ms:g}ms", queue)

    lines += link("r1", "r2", f"{RATE_BPS / 1e6:g}Mbps", BOTTLENECK_DELAY_MS, config.buffer)
    lines += link("r2", "dst", "1Gbps", BOTTLENECK_DELAY_MS, config.access_queue)
    for i, (_, rtt) in enumerate(config.flows):
        access_ms = rtt / 2 - 2 * BOTTLENECK_DELAY_MS
        lines += link(f"s{i}", "r1", "1Gbps", access_ms, config.access_queue)
    for i, (kind, _) in enumerate(config.flows):
        control = "cubic" if kind == "cubic" else "aimd"
        lines += [
            "[[flows]]",
            f'name = "f{i}"',
            f'from = "s{i}"',
            'to = "dst"',
            f'tcp = {{ congestion_control = "{control}" }}',
            "",
        ]
    return "\n".join(lines)


def run_congsim(config: Config, folder: Path, sack_sender: str = "rfc6675") -> dict[str, Any]:
    import congsim

    path = folder / f"cubic-ns3-{config.name}-{sack_sender}.toml"
    path.write_text(congsim_toml(config, sack_sender))
    results = congsim.run(congsim.load(path))
    late = congsim.run(congsim.load(path, {"simulation.measure_from": f"{LATE_FROM_S}s"}))
    late_goodput = late.flows.set_index("flow")["goodput_bps"]
    flows = results.flows.set_index("flow")
    series = results.table("flow_series")
    events = results.table("tcp_events")
    links = results.links.set_index("link")
    out = {}
    for i in range(len(config.flows)):
        name = f"f{i}"
        row = flows.loc[name]
        cwnd = series[(series["flow"] == name) & (series["time_s"] <= DURATION_S + 1e-9)]["cwnd"]
        mine = events[events["flow"] == name]
        out[i] = {
            "goodput_bps": float(row["goodput_bps"]),
            "late_goodput_bps": float(late_goodput[name]),
            "rtos": int(row["timeouts_all"]),
            "recoveries": int(row["fast_recoveries"]),
            "mean_cwnd": float(cwnd.mean()),
            "recovery_times": sorted(mine[mine["event"] == "fast_retransmit"]["time_s"]),
            "rto_times": sorted(mine[mine["event"] == "timeout"]["time_s"]),
        }
    bottleneck = int(links.loc["r1->r2", "drops"])
    other = int(links["drops"].sum()) - bottleneck
    return {"flows": out, "drops": {"bottleneck": bottleneck, "other": other}}


COLUMNS = (
    "config",
    "description",
    "flow",
    "cc",
    "rtt_ms",
    "sack",
    "ns3_goodput_mbps",
    "congsim_goodput_mbps",
    "ratio",
    "ns3_goodput_10_30_mbps",
    "congsim_goodput_10_30_mbps",
    "ratio_10_30",
    "ns3_rtos",
    "congsim_rtos",
    "ns3_recoveries",
    "congsim_recoveries",
    "ns3_mean_cwnd",
    "congsim_mean_cwnd",
    "ns3_bottleneck_drops",
    "congsim_bottleneck_drops",
    "ns3_other_drops",
    "congsim_other_drops",
    "ns3_recovery_times_s",
    "congsim_recovery_times_s",
    "ns3_rto_times_s",
    "congsim_rto_times_s",
    "ns3_nohystart_goodput_mbps",
    "ns3_nohystart_goodput_10_30_mbps",
    "ns3_nohystart_rtos",
    "ns3_nohystart_recoveries",
    "ns3_nohystart_mean_cwnd",
)


# --recoveries: the columns above with the two recoveries after the flow's description, and
# congsim's goodput over ns-3's without HyStart (congsim has none).
RECOVERY_COLUMNS = (
    *COLUMNS[:6],
    "congsim_sack_sender",
    "ns3_recovery",
    *COLUMNS[6:],
    "ratio_nohystart",
    "ratio_nohystart_10_30",
)


def times(values: list[float]) -> str:
    return " ".join(f"{t:.2f}" for t in values)


def rows_of(
    config: Config, ns3: dict[str, Any], ns3_off: dict[str, Any], ours: dict[str, Any]
) -> list[dict[str, Any]]:
    rows = []
    for i, (kind, rtt) in enumerate(config.flows):
        n, n0, c = ns3["flows"][i], ns3_off["flows"][i], ours["flows"][i]
        rows.append(
            {
                "config": config.name,
                "description": config.description,
                "flow": i,
                "cc": kind,
                "rtt_ms": f"{rtt:g}",
                "sack": "on" if config.sack else "off",
                "ns3_goodput_mbps": fmt(n["goodput_bps"] / 1e6, 2),
                "congsim_goodput_mbps": fmt(c["goodput_bps"] / 1e6, 2),
                "ratio": fmt(c["goodput_bps"] / n["goodput_bps"], 3),
                "ns3_goodput_10_30_mbps": fmt(n["late_goodput_bps"] / 1e6, 2),
                "congsim_goodput_10_30_mbps": fmt(c["late_goodput_bps"] / 1e6, 2),
                "ratio_10_30": fmt(c["late_goodput_bps"] / n["late_goodput_bps"], 3),
                "ns3_rtos": n["rtos"],
                "congsim_rtos": c["rtos"],
                "ns3_recoveries": n["recoveries"],
                "congsim_recoveries": c["recoveries"],
                "ns3_mean_cwnd": fmt(n["mean_cwnd"], 1),
                "congsim_mean_cwnd": fmt(c["mean_cwnd"], 1),
                "ns3_bottleneck_drops": ns3["drops"]["bottleneck"],
                "congsim_bottleneck_drops": ours["drops"]["bottleneck"],
                "ns3_other_drops": ns3["drops"]["other"],
                "congsim_other_drops": ours["drops"]["other"],
                "ns3_recovery_times_s": times(n["recovery_times"]),
                "congsim_recovery_times_s": times(c["recovery_times"]),
                "ns3_rto_times_s": times(n["rto_times"]),
                "congsim_rto_times_s": times(c["rto_times"]),
                "ns3_nohystart_goodput_mbps": fmt(n0["goodput_bps"] / 1e6, 2),
                "ns3_nohystart_goodput_10_30_mbps": fmt(n0["late_goodput_bps"] / 1e6, 2),
                "ns3_nohystart_rtos": n0["rtos"],
                "ns3_nohystart_recoveries": n0["recoveries"],
                "ns3_nohystart_mean_cwnd": fmt(n0["mean_cwnd"], 1),
            }
        )
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'cfg':3} {'flow':12} {'SACK':4} | {'Mbps 0-30 s: ns-3 congsim ratio':>31} | "
        f"{'10-30 s: ns-3 congsim':>21} | {'RTOs':>7} | {'recov':>7} | {'mean cwnd':>13} | "
        f"{'ns-3 w/o HyStart: Mbps RTOs cwnd':>32}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        flow = f"{r['cc']} {r['rtt_ms']}ms"
        print(
            f"{r['config']:3} {flow:12} {r['sack']:4} | "
            f"{r['ns3_goodput_mbps']:>14} {r['congsim_goodput_mbps']:>8} {r['ratio']:>7} | "
            f"{r['ns3_goodput_10_30_mbps']:>12} {r['congsim_goodput_10_30_mbps']:>8} | "
            f"{r['ns3_rtos']:>3} {r['congsim_rtos']:>3} | "
            f"{r['ns3_recoveries']:>3} {r['congsim_recoveries']:>3} | "
            f"{r['ns3_mean_cwnd']:>6} {r['congsim_mean_cwnd']:>6} | "
            f"{r['ns3_nohystart_goodput_mbps']:>21} {r['ns3_nohystart_rtos']:>4} "
            f"{r['ns3_nohystart_mean_cwnd']:>6}"
        )


SACK_SENDERS = ("rfc6675", "prr")
NS3_RECOVERIES = ("prr", "classic")


def recovery_rows(configs: tuple[Config, ...], binary: Path, jobs: int) -> list[dict[str, Any]]:
    """--recoveries: every SACK configuration, congsim's two SACK senders against ns-3's two
    recoveries."""
    configs = tuple(c for c in configs if c.sack)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        ns3_runs = {
            (c.name, h, r): pool.submit(run_ns3, binary, c, h, r)
            for c in configs
            for r in NS3_RECOVERIES
            for h in (True, False)
        }
        with tempfile.TemporaryDirectory() as tmp:
            ours = {(c.name, s): run_congsim(c, Path(tmp), s) for c in configs for s in SACK_SENDERS}
        rows = []
        for c in configs:
            for s in SACK_SENDERS:
                for r in NS3_RECOVERIES:
                    on, off = ns3_runs[(c.name, True, r)].result(), ns3_runs[(c.name, False, r)].result()
                    for i, row in enumerate(rows_of(c, on, off, ours[(c.name, s)])):
                        mine, theirs = ours[(c.name, s)]["flows"][i], off["flows"][i]
                        row["congsim_sack_sender"] = s
                        row["ns3_recovery"] = r
                        row["ratio_nohystart"] = fmt(mine["goodput_bps"] / theirs["goodput_bps"], 3)
                        row["ratio_nohystart_10_30"] = fmt(
                            mine["late_goodput_bps"] / theirs["late_goodput_bps"], 3
                        )
                        rows.append({k: row[k] for k in RECOVERY_COLUMNS})
    return rows


def print_recovery_table(rows: list[dict[str, Any]]) -> None:
    head = (
        f"{'cfg':3} {'flow':12} {'congsim':7} {'ns-3':7} | {'Mbps: ns-3 congsim ratio':>24} | "
        f"{'w/o HyStart: ns-3 ratio':>23} | {'RTOs':>7} | {'recov':>7} | {'mean cwnd':>13}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        flow = f"{r['cc']} {r['rtt_ms']}ms"
        print(
            f"{r['config']:3} {flow:12} {r['congsim_sack_sender']:7} {r['ns3_recovery']:7} | "
            f"{r['ns3_goodput_mbps']:>7} {r['congsim_goodput_mbps']:>8} {r['ratio']:>7} | "
            f"{r['ns3_nohystart_goodput_mbps']:>15} {r['ratio_nohystart']:>7} | "
            f"{r['ns3_rtos']:>3} {r['congsim_rtos']:>3} | "
            f"{r['ns3_recoveries']:>3} {r['congsim_recoveries']:>3} | "
            f"{r['ns3_mean_cwnd']:>6} {r['congsim_mean_cwnd']:>6}"
        )


def main() -> None:
    parser = common.arguments(
        __doc__, "comma-separated configuration names (default: all)", os.cpu_count() or 1
    )
    parser.add_argument(
        "--congsim-sack-sender",
        choices=SACK_SENDERS,
        default="rfc6675",
        help="congsim's SACK recovery in the SACK configurations (default rfc6675)",
    )
    parser.add_argument(
        "--ns3-recovery",
        choices=NS3_RECOVERIES,
        default="prr",
        help="ns-3's TcpL4Protocol::RecoveryType: TcpPrrRecovery (default) or TcpClassicRecovery",
    )
    parser.add_argument(
        "--recoveries",
        action="store_true",
        help="the SACK configurations with both recoveries in each simulator, one row per pair",
    )
    args = parser.parse_args()

    configs = CONFIGS
    if args.only:
        wanted = set(args.only.split(","))
        configs = tuple(c for c in CONFIGS if c.name in wanted)
    binary = common.ns3_binary(SOURCE, "cubic")
    import congsim

    common.print_versions(congsim.__version__)
    if args.recoveries:
        rows = recovery_rows(configs, binary, args.jobs)
        print_recovery_table(rows)
        if args.out:
            common.write_csv(args.out, RECOVERY_COLUMNS, rows)
        return
    sender, recovery = args.congsim_sack_sender, args.ns3_recovery
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        ns3_runs = {
            (c.name, h): pool.submit(run_ns3, binary, c, h, recovery) for c in configs for h in (True, False)
        }
        with tempfile.TemporaryDirectory() as tmp:
            ours = {c.name: run_congsim(c, Path(tmp), sender) for c in configs}
        rows = []
        for c in configs:
            rows += rows_of(
                c, ns3_runs[(c.name, True)].result(), ns3_runs[(c.name, False)].result(), ours[c.name]
            )
    print_table(rows)
    if args.out:
        common.write_csv(args.out, COLUMNS, rows)


if __name__ == "__main__":
    main()
