"""A deterministic corpus of broken and odd scenario files, and a runner that feeds each to
congsim as a user would (`congsim.loads`, then a short run when it is valid).

Run as a program (`python tests/scenario_fuzz.py COUNT`), it prints one JSON line per case:
`{"case": i, "outcome": "error" | "ran" | "bug", "seconds": t, "detail": ...}`. A case is a
bug when it raises anything but `ScenarioError` (which the CLI would show as a traceback); an
abort would end the process, and the test that runs it names the last case started.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261124

#: Values a mutation may put in place of another: wrong types, edge numbers, odd units.
ODD_VALUES = [
    "0",
    "-1",
    "1e308",
    "-1e308",
    "inf",
    "nan",
    "4294967296",
    "18446744073709551616",
    '""',
    '"x"',
    '"0s"',
    '"1ns"',
    '"1e12s"',
    '"1ps"',
    '"0bps"',
    '"1bps"',
    '"999999999Gbps"',
    '"1B"',
    '"0B"',
    '"1GB"',
    '"64 KiB"',
    '"2 MiB"',
    '"64kB"',
    '"10 Mbps"',
    '"5 ms"',
    "true",
    "[]",
    "[1, 2]",
    "{}",
    '{ kind = "red" }',
    '{ kind = "cbq" }',
    '{ kind = "priority" }',
    '"reno"',
    '"sack"',
    '"ns2_235"',
    '"bsd"',
]


def base_scenarios() -> list[tuple[str, str]]:
    files = sorted((ROOT / "scenarios").glob("*.toml"))
    files += sorted((ROOT / "python" / "congsim" / "studies" / "data").glob("*-network.toml"))
    return [(p.name, p.read_text(encoding="utf-8")) for p in files]


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of a scenario's lines: a value replaced, a line dropped or
    repeated, a table repeated, the file cut short, or bytes garbled."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        kind = rng.random()
        if kind < 0.55 and "=" in lines[i] and not lines[i].lstrip().startswith("#"):
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(ODD_VALUES)}"
        elif kind < 0.7:
            del lines[i]
        elif kind < 0.8:
            lines.insert(i, lines[i])
        elif kind < 0.88:
            # Repeat a table header: a second link, flow or source with the fields that follow.
            headers = [j for j, line in enumerate(lines) if line.startswith("[[")]
            if headers:
                j = rng.choice(headers)
                end = next((k for k in range(j + 1, len(lines)) if lines[k].startswith("[")), len(lines))
                lines += lines[j:end]
        elif kind < 0.94:
            lines = lines[: rng.randrange(len(lines) + 1)]
        else:
            line = bytearray(lines[i].encode())
            if line:
                line[rng.randrange(len(line))] = rng.randrange(32, 127)
            lines[i] = line.decode(errors="replace")
    return "\n".join(lines) + "\n"


def named_inputs() -> list[tuple[str, str | bytes]]:
    """The inputs issue reports named, one each."""
    single = (ROOT / "scenarios" / "single-flow.toml").read_text(encoding="utf-8")
    nodes = ", ".join(f'"n{i}"' for i in range(200_000))
    transfers = '[[transfers]]\nfrom = "src"\nto = "dst"\nsizes = "exponential"\nmean_size = "64KB"\n'
    return [
        ("series every nanosecond", single.replace('series_interval = "100ms"', 'series_interval = "1ns"')),
        ("a trillion arrivals a second", single + transfers + "arrivals_per_second = 1e12\n"),
        (
            "200 000 nodes",
            single.replace('nodes = ["src", "router", "dst"]', f'nodes = ["src", "router", "dst", {nodes}]'),
        ),
        ("a million flows", single.replace('name = "ftp"', 'name = "ftp"\ncount = 1000000')),
        ("binary", bytes(range(256))),
        ("UTF-16", single.encode("utf-16")),
        ("kB", single.replace('packet_size = "1000B"', 'packet_size = "1kB"')),
        ("MiB with a space", single.replace('packet_size = "1000B"', 'packet_size = "1 KiB"')),
    ]


def corpus(count: int) -> list[tuple[str, str | bytes]]:
    rng = random.Random(SEED)
    bases = base_scenarios()
    cases: list[tuple[str, str | bytes]] = list(named_inputs())
    for i in range(count):
        name, text = bases[i % len(bases)]
        cases.append((f"{name} mutation {i}", mutate(text, rng)))
    return cases


def check(text: str | bytes) -> tuple[str, str]:
    """What congsim makes of one file: a clean error, a short run, or a bug."""
    import congsim

    if isinstance(text, bytes):
        path = Path("/tmp") / f"congsim-fuzz-{time.monotonic_ns()}.toml"
        path.write_bytes(text)
        try:
            congsim.load(path)
        except congsim.ScenarioError as e:
            return "error", str(e)
        finally:
            path.unlink()
        return "bug", "a binary file was accepted"
    try:
        congsim.loads(text, "fuzz.toml")
        # A short run: the scenario's own length may be anything.
        short = congsim.loads(text, "fuzz.toml", {"simulation.duration": "200ms"})
        results = congsim.run(short)
        return "ran", f"{len(results.flows)} flows"
    except congsim.ScenarioError as e:
        return "error", str(e)
    except Exception as e:  # what the CLI would show as a traceback
        return "bug", f"{type(e).__name__}: {e}"


def main() -> None:
    count = int(sys.argv[1])
    for i, (name, text) in enumerate(corpus(count)):
        print(json.dumps({"case": i, "name": name, "outcome": "started"}), flush=True)
        start = time.monotonic()
        outcome, detail = check(text)
        seconds = time.monotonic() - start
        line = {"case": i, "name": name, "outcome": outcome, "seconds": seconds, "detail": detail[:300]}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
