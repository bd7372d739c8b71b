"""Benchmark: TCP over ATM cells on a study's network. By default seed 000's 15-source WAN run
(the costliest configuration of the `goyal1996` study: 12000-cell EPD switches, fast
retransmit, 20 s simulated); with `--study jain1996`, seed 001's 15-source ABR network (modified
ERICA, 10 s; the plan's `A-N15`).

    python bench/atm_cells.py [--repeat N] [--study goyal1996|jain1996] [--label L] [--policy epd]

Prints the wall time of one run (best of N, the native run called from Python), events/s, and
cell-hops/s: every cell offered to a port (host adapters and switch ports) counts once. No other
simulator models TCP over ATM cells any more, so there is no side-by-side run here.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from congsim import _core
from congsim.results import Results
from congsim.sweep import load_plan

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "python" / "congsim" / "studies" / "data"
#: Each study's benchmarked configuration by default.
DEFAULT_LABEL = {"goyal1996": "WAN-15-12000", "jain1996": "A-N15"}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--study", choices=sorted(DEFAULT_LABEL), default="goyal1996")
    parser.add_argument("--label", help="the plan's configuration (default: the study's costliest)")
    parser.add_argument("--policy", default="epd", help="goyal1996's UBR policy")
    args = parser.parse_args()

    label = args.label or DEFAULT_LABEL[args.study]
    plan = load_plan(DATA / f"{args.study}.toml")

    def chosen(p: dict) -> bool:
        """The benchmarked point: goyal1996's also by policy and with fast retransmit."""
        if args.study == "goyal1996":
            return p["label"] == label and p["atm.policy"] == args.policy and p["tcp.fast_retransmit"]
        return p["label"] == label

    point = next(p for p in plan.points() if chosen(p))
    overrides = json.dumps([[k, v] for k, v in point.items() if k != "label"])
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        results = Results(_core.run(plan.scenario_text, plan.scenario_source, 0, overrides))
        best = min(best, time.perf_counter() - start)
    summary = results.summary
    events = int(summary["events"][0])
    cell_hops = int(results.atm_ports["cells_in"].sum())
    what = f"{args.policy} with FRR" if args.study == "goyal1996" else "ABR"
    print(f"{args.study} {label} {what}, {summary['duration_s'][0]:g} s simulated")
    print(f"wall {best:.3f} s (best of {args.repeat}), {events} events, {events / best / 1e6:.1f} M events/s")
    print(f"{cell_hops} cell-hops, {cell_hops / best / 1e6:.1f} M cell-hops/s")
    print(f"efficiency {summary['efficiency'][0]:.3f}, fairness {summary['jain_index'][0]:.3f}")


if __name__ == "__main__":
    main()
