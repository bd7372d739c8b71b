"""Validation time against scenario size: chains of routers (each link duplex, one flow end to
end, so every link lies on the flow's path), validated by `congsim validate` as a user would.
Prints links, wall seconds (best of `--repeat`) and microseconds per link: a flat last column
means time linear in the size.

    python bench/validate_scale.py [--sizes 5000,10000,20000,50000,100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def chain_toml(routers: int) -> str:
    """A chain of `routers` links between `routers + 1` nodes, with one flow along it."""
    nodes = ", ".join(f'"n{i}"' for i in range(routers + 1))
    parts = [f"nodes = [{nodes}]\n", '[simulation]\nduration = "1s"\n']
    parts += [
        f'[[links]]\nfrom = "n{i}"\nto = "n{i + 1}"\nrate = "10Mbps"\ndelay = "1ms"\n' for i in range(routers)
    ]
    parts.append(f'[[flows]]\nfrom = "n0"\nto = "n{routers}"\n')
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,10000,20000,50000,100000", help="chain lengths")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (the best is kept)")
    args = parser.parse_args()
    cli = ROOT / ".venv" / "bin" / "congsim"
    print(f"{'routers':>8} {'links':>8} {'wall s':>8} {'us/link':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for routers in (int(s) for s in args.sizes.split(",")):
            path = Path(folder) / f"chain{routers}.toml"
            path.write_text(chain_toml(routers), encoding="utf-8")
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                subprocess.run([str(cli), "validate", str(path)], check=True, capture_output=True)
                best = min(best, time.perf_counter() - start)
            links = 2 * routers  # duplex: one link each way
            print(f"{routers:>8} {links:>8} {best:>8.2f} {best / links * 1e6:>8.2f}")


if __name__ == "__main__":
    main()
