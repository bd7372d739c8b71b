"""Produces python/congsim/studies/data/dumbbell-buffers.csv: ns-2 results for the platform
study (Reno and Tahoe on dumbbell-20 across bottleneck buffers), the external reference
`congsim reproduce` compares against until the papers' studies are registered. Needs ns-2
(`apt-get install ns2`).

    python bench/ns2_reference.py > python/congsim/studies/data/dumbbell-buffers.csv
"""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_script import ns2_script_from_document, seconds  # noqa: E402

VARIANTS = ["tahoe", "reno"]
BUFFERS = [25, 50, 100, 200, 400]


def main() -> None:
    base = tomllib.loads((ROOT / "scenarios" / "dumbbell-20.toml").read_text())
    version = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True
    ).stdout
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(
        ["study", "table", "tcp.variant", "links[0].queue.limit_packets", "metric", "value", "source"]
    )
    for variant in VARIANTS:
        for buffer in BUFFERS:
            doc = tomllib.loads((ROOT / "scenarios" / "dumbbell-20.toml").read_text())
            doc["tcp"]["variant"] = variant
            doc["links"][0]["queue"]["limit_packets"] = buffer
            with tempfile.TemporaryDirectory() as tmp:
                script = Path(tmp) / "run.tcl"
                script.write_text(ns2_script_from_document(doc))
                done = subprocess.run(["ns", str(script)], capture_output=True, text=True, check=True)
            counts = dict(line.split() for line in done.stdout.splitlines() if line.split()[:1])
            duration = seconds(base["simulation"]["duration"])
            source = f"ns-2 {version} via bench/ns2_script.py (ns2_2000 switches), dumbbell-20, 20 s"
            mbps = int(counts["total_bytes"]) * 8 / duration / 1e6
            out.writerow(
                ["dumbbell-buffers", "ns2", variant, buffer, "total_throughput_mbps", f"{mbps:.4f}", source]
            )
            out.writerow(["dumbbell-buffers", "ns2", variant, buffer, "timeouts", counts["timeouts"], source])


if __name__ == "__main__":
    main()
