"""RED dropping and RED marking (ECN) in congsim and in ns-2, side by side.

`scenarios/red-gateway.toml`: five Reno flows over a 10 Mbps RED gateway. The script runs it
twice, as it is (RED drops early) and with ECN-capable flows and a marking gateway, in congsim
and in ns-2 (`bench/ns2_script.py` translates the file; ns-2.35 with the ns2_2000 switches and
ns-2 ≈2000 RED parameters pinned), and prints goodput, drops at the gateway, ECN responses and
timeouts. RED draws random numbers, so the two simulators agree statistically, not packet by
packet. Needs ns-2 (`apt-get install ns2`) for its columns.

    python bench/red_ns2.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_script import ns2_script_from_document, seconds  # noqa: E402

import congsim  # noqa: E402

SCENARIO = ROOT / "scenarios" / "red-gateway.toml"
CASES = {"dropping": ("off", False), "marking": ("ecn", True)}


def ours(marks: str, ecn_marking: bool) -> dict[str, float]:
    overrides = {"tcp.congestion_marks": marks, "links[1].queue.ecn_marking": ecn_marking}
    results = congsim.run(congsim.load(SCENARIO, overrides))
    gateway = results.links.set_index("link").loc["r->d"]
    return {
        "goodput_mbps": float(results.flows["goodput_bps"].sum()) / 1e6,
        "drops": float(gateway["drops"]),
        "ecn_responses": float(results.flows["ecn_responses"].sum()),
        "timeouts": float(results.flows["timeouts"].sum()),
    }


def theirs(marks: str, ecn_marking: bool) -> dict[str, float]:
    doc = tomllib.loads(SCENARIO.read_text())
    doc["tcp"]["congestion_marks"] = marks
    doc["links"][1]["queue"]["ecn_marking"] = ecn_marking
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "red.tcl"
        script.write_text(ns2_script_from_document(doc))
        out = subprocess.run(["ns", str(script)], capture_output=True, text=True, check=True).stdout
    values = {k: float(v) for k, v in (line.split() for line in out.splitlines() if len(line.split()) == 2)}
    duration = seconds(doc["simulation"]["duration"])
    return {
        "goodput_mbps": values["total_bytes"] * 8 / duration / 1e6,
        "drops": values["red_drops"],
        "ecn_responses": values["ecn_responses"],
        "timeouts": values["timeouts"],
    }


def main() -> None:
    have_ns2 = shutil.which("ns") is not None
    names = ("goodput_mbps", "drops", "ecn_responses", "timeouts")
    print(f"{'case':10} {'simulator':9} " + " ".join(f"{n:>14}" for n in names))
    for case, (marks, ecn_marking) in CASES.items():
        rows = [("congsim", ours(marks, ecn_marking))]
        if have_ns2:
            rows.append(("ns-2", theirs(marks, ecn_marking)))
        for simulator, row in rows:
            print(f"{case:10} {simulator:9} " + " ".join(f"{row[n]:14.2f}" for n in names))


if __name__ == "__main__":
    main()
