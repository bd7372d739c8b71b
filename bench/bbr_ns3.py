"""BBR v1 in congsim beside ns-3.37's TcpBbr: the same dumbbells in both, one table.

    .venv/bin/python bench/bbr_ns3.py [--out bench/results/bbr_ns3.csv] [--only a,b,c,d]
        [--ns3-only] [--runs 5] [--jobs 1]

Builds bench/ns3_bbr.cc with g++ against Debian's ns-3 (`apt-get install ns3 libns3-dev`) when
the binary is missing or older than the source (or bench/ns3_common.h), writes each case as a
congsim scenario into a temporary folder, runs both, and prints per case the per-flow goodput,
mean cwnd, BBR's estimates (max-bandwidth filter, min RTT), ns-3's BBR state shares and PROBE_RTT
entries, recoveries and timeouts, and the bottleneck queue (mean, 99th percentile, maximum),
drops, Jain's index of the goodputs and the agreement verdict; the CSV (`--out`, default
bench/results/bbr_ns3.csv) holds one row per flow with the case's columns repeated. `--ns3-only`
leaves congsim out (default CSV bench/results/bbr_ns3_ns3only.csv).

The cases (fixed before any run): a, one BBR flow alone over a bottleneck queue of 0.5 BDP; b,
the same with 5 BDP; c, one BBR and one CUBIC flow, 0.5 BDP; d, the same with 5 BDP. BDP = 10
Mbps · 40 ms / 1500 bytes = 33.3 packets, so the queue holds 17 or 167 packets.

The network (both simulators): sender i -- 100 Mbps, 2 ms -- r1 -- bottleneck 10 Mbps, 16 ms --
r2 -- 100 Mbps, 2 ms -- its own receiver: a propagation round trip of 40 ms (41.5 ms with the
transmission times of a data packet and its ACK). Link rates count IP bytes (ns-3's devices run
faster by its 2-byte PPP header). Every queue is a DropTail FIFO in packets that counts the
packets waiting beside the one in transmission: congsim `semantics = "waiting"`, ns-3 the
point-to-point device queue with no queue disc above it (bench/ns3_common.h's Links, as
bench/ns3_cubic.cc), so in both the queue columns count all packets waiting, the one in
transmission excluded (the count bench/dctcp_ns3.py's queue columns make of ns-3's queue disc
plus device queue). The bottleneck's holds 17 or 167 packets, every other 100 000.

TCP: congsim's `rfc` profile, variant `sack`, `congestion_control = "bbr"` in [tcp] (pacing is
implied) and, for c and d's second flow, `tcp = { congestion_control = "cubic", pacing = false }`;
ns-3.37's TcpBbr (which switches pacing on itself) and TcpCubic (unpaced, HyStart on, as
shipped). Matched: 1460-byte segments (1500-byte IP packets, no timestamps), window scaling,
SACK, initial window 10, delayed ACKs every second segment or after 200 ms (ns-3 DelAckCount 2,
congsim `rfc`'s `delayed_ack = "ns2"`), 16 MiB buffers (ns-3 send and receive; congsim
receive), RTO floor 1 s, clock granularity 1 ms. Not matched: ns-3 opens with a SYN, whose round
trip gives its BBR a first RTT (initial pacing rate 2.89 · 10 segments / 40 ms, min RTT 40.1 ms)
before the first data segment; congsim's `rfc` flows send at once; ns-3's first 10 segments leave
unpaced (PaceInitialWindow false). Flow i starts at i ms in both (BBR at 0, CUBIC at 1 ms).

Two ns-3 runs per case: `ns3_` is TcpBbr as ns-3.37 ships it; `ns3_fixed_` is the same TcpBbr
with four later ns-3-dev bug fixes applied around it (bench/ns3_bbr.cc `--upstreamFixes`: the
rate sampler's ACK phase, #1026, computed as Linux computes it; invalid rate samples discarded,
#735; the min-RTT filter fed the last RTT sample rather than the smoothed RTT, #1043; PROBE_RTT
marked application-limited in the rate sampler, #1013). As shipped, ns-3.37's rate sampler turns
the first ACKs after a retransmission timeout into samples of about 1 kbit/s (an interval
measured from the start of the simulation) that empty TcpBbr's max filter, and the flow then
paces itself at tens of kbit/s for the rest of the run: which cases this hits depends on the
cycle-phase draw, so each ns-3 variant is also run with RngRun 1 to `--runs` (TcpBbr's
UniformRandomVariable) and the CSV gives the range of goodput and mean queue over those runs
(`*_min`, `*_max`); the headline columns are RngRun 1. A run of each case without any read of
TcpBbr's private state (`--inspect=false`) checks that the reads change nothing.

Measured over the last 40 s (20-60 s of 60 s): goodput is payload delivered to the application;
the bottleneck queue and cwnd are sampled every 1 ms, and in ns-3 BBR's state, pacing rate,
max-bandwidth filter (bit/s of payload) and min RTT; `ns3_*bw*` and `ns3_*min_rtt*` give the
value at 60 s (to set beside congsim's flows-table columns `bbr_bandwidth_bps` and
`bbr_min_rtt_s`, the values at the end of the run, empty when congsim has none) and the mean over
the samples; state shares are fractions of those samples; PROBE_RTT entries are counted in the
window (`*_probe_rtt_entries`) and over the whole run (`*_probe_rtt_entries_total`, congsim's
`bbr_probe_rtt_entries`); recoveries and timeouts are ns-3's entries into CA_RECOVERY and
CA_LOSS and congsim's `fast_recoveries` and `timeouts_all`; drops are the bottleneck's in the
window.

Agreement (bench/ns3_cross_check.py's rule, as the other ns-3 cross-checks): each flow's goodput
within 5 % of ns-3's and the mean queue within 10 %; judged against both ns-3 runs
(`verdict`, `verdict_fixed`).

ns-3.37 TcpBbr quirks found here (src/internet/model/tcp-bbr.cc, tcp-rate-ops.cc and
tcp-socket-base.cc at tag ns-3.37; the numbers are from this script's runs):
- After a retransmission timeout the rate sampler invalidates the first samples (interval below
  the min RTT), sets m_priorTime to 0, and the next sample's ACK phase runs from time 0 (#1026);
  TcpBbr takes invalid samples too, since it tests only m_deliveryRate == 0 and an invalid
  sample carries the previous rate (#735), and each ACK after the timeout starts a round, so ten
  rounds later the max filter holds nothing but ~1 kbit/s samples. The flow then paces at tens of
  kbit/s for good: c's BBR flow 0.012 Mbps (26 timeouts in the window), d's BBR flow ends at 20
  kbit/s, and a alone collapses with RngRun 2 (0.50 Mbps).
- The min-RTT filter is fed TcpSocketState::m_lastRtt, which EstimateRtt sets to the smoothed
  RTT (#1043): RTprop is a minimum of SRTTs, 42.75 ms at 60 s in a and b against 41.48 ms from
  the RTT samples, and on expiry it takes the SRTT of that moment (45.6 ms at 10.04 s).
- PROBE_RTT marks a private m_appLimited the rate sampler never reads (#1013), so PROBE_RTT's
  low delivery rates enter the max filter as ordinary samples.
- ACK aggregation (Linux's extra_acked of 2019, not in draft-00) is there, but its epoch's length
  is truncated to whole seconds (a uint32_t) and AckEpochAckedResetThresh defaults to 4096
  bytes (the attribute overrides the header's 1 << 17), so extra_acked is always one ACK's data:
  2920 bytes here, 2 segments added to the target window once the pipe is full.
- Send quantum always 1 segment (draft-00: 2 between 1.2 and 24 Mbps), so the quanta term is 3
  segments; the 2 extra segments in PROBE_BW phase 0 are Linux's (bbr_quantization_budget).
- The PROBE_BW start phase is 7 - floor(U[0, 6)), i.e. one of phases 0, 3, 4, 5, 6, 7; draft-00
  and Linux draw from 7 (every phase but the 3/4 one). U is an ns-3 UniformRandomVariable on
  stream 4 (attribute Stream) in every TcpBbr, so BBR flows of one run draw alike.
- No pacing margin (Linux paces 1 % under; ns-3-dev added it in 2024, #580); pacing gaps are
  payload bytes / pacing rate, the rate being payload bit/s (DataRate), so pacing at BtlBw fills
  the link exactly; the initial window goes out unpaced.
- Loss recovery: the cwnd before the loss is restored on leaving fast recovery
  (CA_EVENT_COMPLETE_CWR) but not on leaving CA_LOSS after a timeout (draft-00 and Linux restore
  after both); recovery does not start a new round (Linux does, so packet conservation lasts
  one round trip); lost bytes are taken off cwnd only in CA_RECOVERY.
- The max filter is seeded with cwnd / min RTT (draft-00: 0), as its "zero" value, which the
  first real sample replaces; the initial pacing rate uses the min RTT in whole milliseconds.
- ns-3-dev's own fix of #1026 (2024) takes the ACK phase in SkbDelivered from the delivered
  skb; since ns-3 keeps one rate sample across ACKs, that fix reads up to one ACK interval short
  and over-estimates by up to one ACK's data (10.0-10.25 Mbps against the 9.733 Mbps the link
  carries, in this program's first runs with it); `ns3_fixed_` takes it at generation, as Linux.
"""

from __future__ import annotations

import math
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

SOURCE = ROOT / "bench" / "ns3_bbr.cc"
DEFAULT_OUT = ROOT / "bench" / "results" / "bbr_ns3.csv"
NS3_ONLY_OUT = ROOT / "bench" / "results" / "bbr_ns3_ns3only.csv"

RATE_BPS = 10e6
ACCESS_RATE_BPS = 100e6
ACCESS_DELAY_MS = 2
BOTTLENECK_DELAY_MS = 16
BASE_RTT_S = 2 * (2 * ACCESS_DELAY_MS + BOTTLENECK_DELAY_MS) / 1000
PACKET_BYTES = 1500
SEGMENT_BYTES = PACKET_BYTES - 40
BDP_PACKETS = RATE_BPS * BASE_RTT_S / 8 / PACKET_BYTES
OTHER_QUEUE = 100_000
INITIAL_WINDOW = 10
BUFFERS_BYTES = 16 << 20
DURATION_S = 60.0
FROM_S = 20.0
STAGGER_MS = 1
SAMPLE_MS = 1
BOTTLENECK = "r1->r2"
STATES = ("startup", "drain", "probe_bw", "probe_rtt")

# ns-3 runs per case: column prefix -> whether bench/ns3_bbr.cc applies the upstream fixes.
NS3_VARIANTS = {"ns3_": False, "ns3_fixed_": True}


@dataclass(frozen=True)
class Config:
    name: str
    description: str
    kinds: tuple[str, ...]
    bdp_fraction: float

    @property
    def buffer(self) -> int:
        return round(self.bdp_fraction * BDP_PACKETS)


# Fixed before any run.
CONFIGS = (
    Config("a", "1 BBR, 0.5 BDP", ("bbr",), 0.5),
    Config("b", "1 BBR, 5 BDP", ("bbr",), 5.0),
    Config("c", "BBR + CUBIC, 0.5 BDP", ("bbr", "cubic"), 0.5),
    Config("d", "BBR + CUBIC, 5 BDP", ("bbr", "cubic"), 5.0),
)


def run_ns3(
    binary: Path, config: Config, fixes: bool, rng_run: int = 1, inspect: bool = True
) -> dict[str, Any]:
    command = [
        str(binary),
        f"--flows={','.join(config.kinds)}",
        f"--buffer={config.buffer}",
        f"--bottleneckDelayMs={BOTTLENECK_DELAY_MS}",
        f"--accessDelayMs={ACCESS_DELAY_MS}",
        f"--staggerMs={STAGGER_MS}",
        f"--sampleMs={SAMPLE_MS}",
        f"--upstreamFixes={str(fixes).lower()}",
        f"--rngRun={rng_run}",
        f"--inspect={str(inspect).lower()}",
        *common.run_flags(RATE_BPS, ACCESS_RATE_BPS, OTHER_QUEUE, DURATION_S, FROM_S),
        *common.tcp_flags(SEGMENT_BYTES, INITIAL_WINDOW, BUFFERS_BYTES, sack=True),
    ]
    out, wall = common.run_program(command)
    flows: dict[int, dict[str, Any]] = {}
    result: dict[str, Any] = {"flows": flows, "wall_s": wall, "output": out}
    for line in out.splitlines():
        words = line.split()
        if words[0] == "flow":
            fields = common.pairs(words[3:])
            flow: dict[str, Any] = {
                "kind": words[2],
                "goodput_bps": float(fields["goodput_bps"]),
                "mean_cwnd": float(fields["mean_cwnd"]),
                "recoveries": int(fields["recoveries"]),
                "rtos": int(fields["rtos"]),
            }
            if "bw_last_bps" in fields:
                flow |= {
                    "pacing_mean_bps": float(fields["pacing_mean_bps"]),
                    "bw_bps": float(fields["bw_last_bps"]),
                    "bw_mean_bps": float(fields["bw_mean_bps"]),
                    "min_rtt_s": float(fields["min_rtt_last_s"]),
                    "min_rtt_mean_s": float(fields["min_rtt_mean_s"]),
                    "probe_rtt_entries": int(fields["probe_rtt_entries"]),
                    "probe_rtt_entries_total": float(fields["probe_rtt_entries_total"]),
                    **{state: float(fields[state]) for state in STATES},
                }
            flows[int(words[1])] = flow
        elif words[0] == "queue":
            fields = common.pairs(words[1:])
            result["queue"] = {key: float(value) for key, value in fields.items()}
        elif words[0] == "bottleneck":
            fields = common.pairs(words[1:])
            result["drops"] = int(fields["drops"])
            result["other_drops"] = int(fields["other_drops"])
    return result


def congsim_toml(config: Config) -> str:
    n = len(config.kinds)
    senders = [f"s{i}" for i in range(n)]
    receivers = [f"d{i}" for i in range(n)]
    nodes = ", ".join(f'"{node}"' for node in [*senders, "r1", "r2", *receivers])
    lines = [
        f'name = "bbr-ns3-{config.name}"',
        f'description = "{config.description}"',
        f"nodes = [{nodes}]",
        "",
        "[simulation]",
        f'duration = "{DURATION_S:g}s"',
        f'measure_from = "{FROM_S:g}s"',
        "seed = 1",
        "",
        "[metrics]",
        f'series_interval = "{SAMPLE_MS}ms"',
        "",
        "[tcp]",
        'profile = "rfc"',
        'congestion_control = "bbr"',
        f'packet_size = "{SEGMENT_BYTES}B"',
        f'receiver_buffer = "{BUFFERS_BYTES}B"',
        f"initial_window = {INITIAL_WINDOW}",
        'variant = "sack"',
        "",
    ]

    def link(a: str, b: str, rate_bps: float, delay_ms: float, limit: int) -> list[str]:
        queue = f'{{ limit_packets = {limit}, semantics = "waiting" }}'
        return common.toml_link(a, b, f"{rate_bps / 1e6:g}Mbps", f"{delay_ms:g}ms", queue)

    lines += link("r1", "r2", RATE_BPS, BOTTLENECK_DELAY_MS, config.buffer)
    for s, d in zip(senders, receivers, strict=True):
        lines += link(s, "r1", ACCESS_RATE_BPS, ACCESS_DELAY_MS, OTHER_QUEUE)
        lines += link("r2", d, ACCESS_RATE_BPS, ACCESS_DELAY_MS, OTHER_QUEUE)
    for i, (kind, s, d) in enumerate(zip(config.kinds, senders, receivers, strict=True)):
        lines += ["[[flows]]", f'name = "f{i}"', f'from = "{s}"', f'to = "{d}"']
        lines += [f'start = "{i * STAGGER_MS}ms"']
        if kind == "cubic":
            lines += ['tcp = { congestion_control = "cubic", pacing = false }']
        lines += [""]
    return "\n".join(lines)


def in_window(times: Any) -> Any:
    """Which sample times lie in [FROM_S, DURATION_S) on the SAMPLE_MS grid."""
    ticks = (times * 1000 / SAMPLE_MS).round().astype("int64")
    return (ticks >= round(FROM_S * 1000 / SAMPLE_MS)) & (ticks < round(DURATION_S * 1000 / SAMPLE_MS))


def run_congsim(config: Config, folder: Path) -> dict[str, Any]:
    import congsim

    path = folder / f"bbr-ns3-{config.name}.toml"
    path.write_text(congsim_toml(config))
    try:
        scenario = congsim.load(path)
    except ValueError as error:
        sys.exit(f"congsim cannot run case {config.name} ({error}); --ns3-only runs ns-3 alone")
    started = time.monotonic()
    results = congsim.run(scenario)
    wall = time.monotonic() - started
    flows = results.flows.set_index("flow")
    links = results.links.set_index("link")
    series = results.table("flow_series")
    series = series[in_window(series["time_s"])]
    cwnd = series.groupby("flow")["cwnd"].mean()
    queue_series = results.table("link_series")
    queue_series = queue_series[queue_series["link"] == BOTTLENECK]
    queue = [float(q) for q in queue_series[in_window(queue_series["time_s"])]["queue_packets"]]

    def column(row: Any, name: str) -> float:
        """A BBR column of the flows table; NaN where congsim has none."""
        value = row[name] if name in flows.columns else None
        return math.nan if value is None else float(value)

    out: dict[int, dict[str, Any]] = {}
    for i, kind in enumerate(config.kinds):
        row = flows.loc[f"f{i}"]
        out[i] = {
            "kind": kind,
            "goodput_bps": float(row["goodput_bps"]),
            "mean_cwnd": float(cwnd[f"f{i}"]),
            "recoveries": int(row["fast_recoveries"]),
            "rtos": int(row["timeouts_all"]),
            "bw_bps": column(row, "bbr_bandwidth_bps"),
            "min_rtt_s": column(row, "bbr_min_rtt_s"),
            "probe_rtt_entries_total": column(row, "bbr_probe_rtt_entries"),
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
        "drops": bottleneck_drops,
        "other_drops": int(links["drops"].sum()) - bottleneck_drops,
    }


PER_RUN = (
    "goodput_mbps",
    "goodput_min_mbps",
    "goodput_max_mbps",
    "jain",
    "mean_cwnd",
    "bw_mbps",
    "bw_mean_mbps",
    "min_rtt_ms",
    "min_rtt_mean_ms",
    "pacing_mean_mbps",
    *STATES,
    "probe_rtt_entries",
    "probe_rtt_entries_total",
    "recoveries",
    "rtos",
    "queue_mean",
    "queue_mean_min",
    "queue_mean_max",
    "queue_p99",
    "queue_max",
    "drops",
    "other_drops",
    "wall_s",
)
# Not in congsim's columns: the ranges over ns-3's RNG runs and what only ns-3 reports.
NS3_ONLY_FIELDS = {
    "goodput_min_mbps",
    "goodput_max_mbps",
    "bw_mean_mbps",
    "min_rtt_mean_ms",
    "pacing_mean_mbps",
    *STATES,
    "probe_rtt_entries",
    "queue_mean_min",
    "queue_mean_max",
}
PREFIXES = ("ns3_", "ns3_fixed_", "congsim_")
COLUMNS = (
    "case",
    "description",
    "buffer_packets",
    "flow",
    "cc",
    "ratio",
    "ratio_fixed",
    *(
        f"{prefix}{field}"
        for field in PER_RUN
        for prefix in PREFIXES
        if not (prefix == "congsim_" and field in NS3_ONLY_FIELDS)
    ),
    "goodput_within_5pct",
    "queue_within_10pct",
    "verdict",
    "goodput_within_5pct_fixed",
    "queue_within_10pct_fixed",
    "verdict_fixed",
    "ns3_rng_runs",
)


def run_columns(prefix: str, run: dict[str, Any], i: int, goodputs: list[float]) -> dict[str, Any]:
    """A run's columns for flow i; `goodputs` are the run's goodputs of every flow."""
    f = run["flows"][i]
    row = {
        f"{prefix}goodput_mbps": fmt(f["goodput_bps"] / 1e6, 3),
        f"{prefix}jain": fmt(common.jain(goodputs), 5),
        f"{prefix}mean_cwnd": fmt(f["mean_cwnd"], 2),
        f"{prefix}recoveries": f["recoveries"],
        f"{prefix}rtos": f["rtos"],
        f"{prefix}queue_mean": fmt(run["queue"]["mean"], 2),
        f"{prefix}queue_p99": fmt(run["queue"]["p99"], 0),
        f"{prefix}queue_max": fmt(run["queue"]["max"], 0),
        f"{prefix}drops": run["drops"],
        f"{prefix}other_drops": run["other_drops"],
        f"{prefix}wall_s": fmt(run["wall_s"], 1),
    }
    if f["kind"] == "bbr":
        row |= {
            f"{prefix}bw_mbps": fmt(f.get("bw_bps", math.nan) / 1e6, 4),
            f"{prefix}min_rtt_ms": fmt(f.get("min_rtt_s", math.nan) * 1e3, 2),
            f"{prefix}probe_rtt_entries_total": fmt(f.get("probe_rtt_entries_total", math.nan), 0),
        }
        if "bw_mean_bps" in f:
            row |= {
                f"{prefix}bw_mean_mbps": fmt(f["bw_mean_bps"] / 1e6, 4),
                f"{prefix}min_rtt_mean_ms": fmt(f["min_rtt_mean_s"] * 1e3, 2),
                f"{prefix}pacing_mean_mbps": fmt(f["pacing_mean_bps"] / 1e6, 4),
                f"{prefix}probe_rtt_entries": f["probe_rtt_entries"],
                **{f"{prefix}{state}": fmt(f[state], 4) for state in STATES},
            }
    return row


def rows_of(
    config: Config, ns3: dict[str, list[dict[str, Any]]], ours: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """One row per flow; `ns3` maps NS3_VARIANTS' prefixes to their runs, RngRun 1 first."""

    def goodputs(run: dict[str, Any]) -> list[float]:
        return [run["flows"][i]["goodput_bps"] for i in range(len(config.kinds))]

    verdicts: dict[str, tuple[list[bool], bool, str]] = {}
    if ours:
        for prefix, runs in ns3.items():
            verdicts[prefix] = common.agreement(
                goodputs(runs[0]), goodputs(ours), runs[0]["queue"]["mean"], ours["queue"]["mean"]
            )
    rows = []
    for i, kind in enumerate(config.kinds):
        row: dict[str, Any] = {
            "case": config.name,
            "description": config.description,
            "buffer_packets": config.buffer,
            "flow": i,
            "cc": kind,
            "ns3_rng_runs": len(ns3["ns3_"]),
        }
        for prefix, runs in ns3.items():
            row |= run_columns(prefix, runs[0], i, goodputs(runs[0]))
            spread = [run["flows"][i]["goodput_bps"] / 1e6 for run in runs]
            queues = [run["queue"]["mean"] for run in runs]
            row |= {
                f"{prefix}goodput_min_mbps": fmt(min(spread), 3),
                f"{prefix}goodput_max_mbps": fmt(max(spread), 3),
                f"{prefix}queue_mean_min": fmt(min(queues), 2),
                f"{prefix}queue_mean_max": fmt(max(queues), 2),
            }
        if ours:
            row |= run_columns("congsim_", ours, i, goodputs(ours))
            mine = ours["flows"][i]["goodput_bps"]
            for suffix, prefix in (("", "ns3_"), ("_fixed", "ns3_fixed_")):
                theirs = ns3[prefix][0]["flows"][i]["goodput_bps"]
                flows_ok, queue_ok, verdict = verdicts[prefix]
                row |= {
                    f"ratio{suffix}": fmt(mine / theirs, 3) if theirs else "",
                    f"goodput_within_5pct{suffix}": "yes" if flows_ok[i] else "no",
                    f"queue_within_10pct{suffix}": "yes" if queue_ok else "no",
                    f"verdict{suffix}": verdict,
                }
        rows.append({column: row.get(column, "") for column in COLUMNS})
    return rows


SHOWN = (("ns-3", "ns3_"), ("fixed", "ns3_fixed_"), ("congsim", "congsim_"))


def print_table(rows: list[dict[str, Any]]) -> None:
    """Per case: one line per flow (ns-3 as shipped | ns-3 with the fixes | congsim), then the
    case's queue, drops, fairness and verdicts."""

    def group(width: int, values: list[Any]) -> str:
        return " ".join(f"{v!s:>{width}}" for v in values)

    head = (
        f"{'case':4} {'flow':10} | {'goodput Mbps':^26} | {'RngRun range':^27} | {'mean cwnd':^20} | "
        f"{'max bw Mbps at 60 s':^26} | {'min RTT ms at 60 s':^20} | {'recov/RTOs':^17}"
    )
    names = [name for name, _ in SHOWN]
    sub = (
        f"{'':4} {'':10} | {group(8, names)} | {group(13, names[:2])} | {group(6, names)} | "
        f"{group(8, names)} | {group(6, names)} | {group(5, names)}"
    )
    print(head)
    print(sub)
    print("-" * len(sub))
    cases: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        cases.setdefault(r["case"], []).append(r)
    for case_rows in cases.values():
        for r in case_rows:
            ranges = [f"{r[p + 'goodput_min_mbps']}-{r[p + 'goodput_max_mbps']}" for _, p in SHOWN[:2]]
            print(
                f"{r['case']:4} {r['flow']} {r['cc']:8} | "
                f"{group(8, [r[p + 'goodput_mbps'] for _, p in SHOWN])} | {group(13, ranges)} | "
                f"{group(6, [r[p + 'mean_cwnd'] for _, p in SHOWN])} | "
                f"{group(8, [r[p + 'bw_mbps'] for _, p in SHOWN])} | "
                f"{group(6, [r[p + 'min_rtt_ms'] for _, p in SHOWN])} | "
                f"{group(5, [str(r[p + 'recoveries']) + '/' + str(r[p + 'rtos']) for _, p in SHOWN])}"
            )
            for who, prefix in SHOWN[:2]:
                if r[f"{prefix}probe_bw"]:
                    states = " ".join(f"{state} {100 * float(r[prefix + state]):.1f} %" for state in STATES)
                    print(
                        f"{'':15} | {who:7} BBR states: {states}; PROBE_RTT entries "
                        f"{r[prefix + 'probe_rtt_entries']} (run {r[prefix + 'probe_rtt_entries_total']}); "
                        f"means: max bw {r[prefix + 'bw_mean_mbps']} "
                        f"Mbps, min RTT {r[prefix + 'min_rtt_mean_ms']} ms, pacing "
                        f"{r[prefix + 'pacing_mean_mbps']} Mbps"
                    )
            if r["congsim_probe_rtt_entries_total"]:
                print(f"{'':15} | congsim PROBE_RTT entries (run) {r['congsim_probe_rtt_entries_total']}")
        print_case(case_rows)


def print_case(rows: list[dict[str, Any]]) -> None:
    r = rows[0]
    for who, prefix in SHOWN:
        if not r[f"{prefix}queue_mean"]:
            continue
        spread = ""
        if r.get(f"{prefix}queue_mean_min"):
            spread = f" (RngRuns {r[prefix + 'queue_mean_min']}-{r[prefix + 'queue_mean_max']})"
        print(
            f"     {who:8} queue mean {r[f'{prefix}queue_mean']:>6}{spread} p99 {r[f'{prefix}queue_p99']:>4} "
            f"max {r[f'{prefix}queue_max']:>4} | drops {r[f'{prefix}drops']!s:>4} other "
            f"{r[f'{prefix}other_drops']!s:>3} | Jain {r[f'{prefix}jain']} | {r[f'{prefix}wall_s']} s wall"
        )
    if r["verdict"]:
        print(f"     against ns-3 as shipped: {r['verdict']}")
        print(f"     against ns-3 with the fixes: {r['verdict_fixed']}")
    print()


def check_inspection(config: Config, binary: Path, fixes: bool, inspected: dict[str, Any]) -> None:
    """The run without reads of TcpBbr's private state has the same goodput, cwnd, queue and
    drops as the inspected run (RngRun 1)."""

    def core(out: str) -> list[str]:
        return [" ".join(line.split()[:11]) for line in out.splitlines()]

    plain = run_ns3(binary, config, fixes, inspect=False)
    if core(plain["output"]) != core(inspected["output"]):
        sys.exit(f"case {config.name}: reading TcpBbr's state changed the run (fixes {fixes})")


def main() -> None:
    parser = common.arguments(__doc__, "comma-separated case names (default: a,b,c,d)", 1)
    parser.add_argument("--ns3-only", action="store_true", help="leave congsim out")
    parser.add_argument("--runs", type=int, default=5, help="ns-3 RngRuns per case and variant (1 to N)")
    args = parser.parse_args()

    configs: tuple[Config, ...] = CONFIGS
    if args.only:
        wanted = set(args.only.split(","))
        configs = tuple(c for c in CONFIGS if c.name in wanted)
    out = args.out or (NS3_ONLY_OUT if args.ns3_only else DEFAULT_OUT)
    binary = common.ns3_binary(SOURCE, "bbr", needs="tcp-bbr.h")
    version = "not run"
    if not args.ns3_only:
        import congsim

        version = congsim.__version__
    common.print_versions(version)
    # congsim first: it takes seconds, and tells at once whether it runs BBR.
    ours: dict[str, dict[str, Any]] = {}
    if not args.ns3_only:
        with tempfile.TemporaryDirectory() as tmp:
            ours = {c.name: run_congsim(c, Path(tmp)) for c in configs}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        ns3_runs: dict[tuple[str, str, int], Future[dict[str, Any]]] = {
            (c.name, prefix, rng_run): pool.submit(run_ns3, binary, c, fixes, rng_run)
            for c in configs
            for prefix, fixes in NS3_VARIANTS.items()
            for rng_run in range(1, args.runs + 1)
        }
        checks = {
            (c.name, prefix): pool.submit(
                check_inspection, c, binary, fixes, ns3_runs[(c.name, prefix, 1)].result()
            )
            for c in configs
            for prefix, fixes in NS3_VARIANTS.items()
        }
        rows = []
        for c in configs:
            runs = {
                prefix: [ns3_runs[(c.name, prefix, r)].result() for r in range(1, args.runs + 1)]
                for prefix in NS3_VARIANTS
            }
            for prefix in NS3_VARIANTS:
                checks[(c.name, prefix)].result()
            rows += rows_of(c, runs, ours.get(c.name))
    print("ns-3 runs without reads of TcpBbr's state: identical (goodput, cwnd, queue, drops)")
    print_table(rows)
    common.write_csv(out, COLUMNS, rows)


if __name__ == "__main__":
    main()
