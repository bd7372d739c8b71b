"""Hundreds of broken and odd scenario files (`scenario_fuzz.py`, generated deterministically)
end in a clean error or a short successful run: no traceback, no abort, none slow."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import run_congsim
from scenario_fuzz import named_inputs

HERE = Path(__file__).resolve().parent
MUTATIONS = 600


def test_every_fuzzed_scenario_ends_in_a_clean_error_or_a_short_run():
    done = subprocess.run(
        [sys.executable, HERE / "scenario_fuzz.py", str(MUTATIONS)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    ended = [line for line in lines if line["outcome"] != "started"]
    last = lines[-1] if lines else None
    assert done.returncode == 0, f"the process died in case {last}: {done.stderr[-2000:]}"
    assert len(ended) == MUTATIONS + len(named_inputs()) >= 500
    bugs = [line for line in ended if line["outcome"] == "bug"]
    assert not bugs, bugs[:5]
    slow = [line for line in ended if line["seconds"] > 20]
    assert not slow, slow
    outcomes = {line["outcome"] for line in ended}
    assert outcomes == {"error", "ran"}, "the corpus must reach the simulator too"
    errors = [line["detail"] for line in ended if line["outcome"] == "error"]
    assert all("\n" not in e and e.startswith(("fuzz.toml: ", "/tmp/")) for e in errors)


def test_the_named_inputs_are_one_line_errors_on_the_command_line(tmp_path):
    accepted = {"200 000 nodes", "MiB with a space"}
    for index, (name, content) in enumerate(named_inputs()):
        path = tmp_path / f"case{index}.toml"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        done = run_congsim("validate", path, timeout=60)
        assert "Traceback" not in done.stdout + done.stderr, name
        if name in accepted:
            assert done.returncode == 0, (name, done.stderr)
        else:
            assert done.returncode == 2, (name, done.stdout)
            assert done.stderr.startswith(f"error: {path}: ") and done.stderr.count("\n") == 1, name
