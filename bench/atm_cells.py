"""Benchmark: seed 000's 15-source WAN run over ATM cells (the costliest configuration of the
`goyal1996` study: 12000-cell EPD switches, fast retransmit, 20 s simulated).

    python bench/atm_cells.py [--repeat N] [--label WAN-15-12000] [--policy epd]

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
PLAN = ROOT / "python" / "congsim" / "studies" / "data" / "goyal1996.toml"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--label", default="WAN-15-12000")
    parser.add_argument("--policy", default="epd")
    args = parser.parse_args()

    plan = load_plan(PLAN)
    point = next(
        p
        for p in plan.points()
        if p["label"] == args.label and p["atm.policy"] == args.policy and p["tcp.fast_retransmit"]
    )
    overrides = json.dumps([[k, v] for k, v in point.items() if k != "label"])
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        results = Results(_core.run(plan.scenario_text, plan.scenario_source, 0, overrides))
        best = min(best, time.perf_counter() - start)
    summary = results.summary
    events = int(summary["events"][0])
    cell_hops = int(results.atm_ports["cells_in"].sum())
    print(f"{args.label} {args.policy} with FRR, {summary['duration_s'][0]:g} s simulated")
    print(f"wall {best:.3f} s (best of {args.repeat}), {events} events, {events / best / 1e6:.1f} M events/s")
    print(f"{cell_hops} cell-hops, {cell_hops / best / 1e6:.1f} M cell-hops/s")
    print(f"efficiency {summary['efficiency'][0]:.3f}, fairness {summary['jain_index'][0]:.3f}")


if __name__ == "__main__":
    main()
