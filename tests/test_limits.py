"""The resource budget and the argument checks of issue 27: limits checked before anything is
allocated, raised on purpose through CONGSIM_LIMITS, and every misuse a one-line error."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import congsim
from congsim.sweep import PlanError, loads_plan

DUMBBELL = """[simulation]
duration = "0.2s"
[topology]
kind = "dumbbell"
pairs = {pairs}
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_rate = "100Mbps"
access_delay = "1ms"
"""


def congsim_cli(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "congsim", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def test_a_limit_refuses_then_the_variable_raises_it(tmp_path):
    scenario = tmp_path / "d.toml"
    scenario.write_text(DUMBBELL.format(pairs=30))
    limited = {"CONGSIM_LIMITS": "flows=20"}
    line = one_error_line(congsim_cli("validate", scenario, env=limited))
    assert line == (
        f"error: {scenario}: topology.pairs: makes 30 flows; the flows limit is 20 "
        "(CONGSIM_LIMITS=flows=N raises it) (line 5, column 9)"
    )
    assert congsim_cli("validate", scenario, env={"CONGSIM_LIMITS": "flows=30"}).returncode == 0
    bad = one_error_line(congsim_cli("validate", scenario, env={"CONGSIM_LIMITS": "flows=lots"}))
    assert bad.startswith('error: CONGSIM_LIMITS: flows = "lots": give a whole number')


def test_files_are_read_no_further_than_the_limit(tmp_path):
    started = time.perf_counter()
    line = one_error_line(congsim_cli("validate", "/dev/zero"))
    assert line == (
        "error: /dev/zero: is larger than the file_bytes limit of 67 108 864 bytes "
        "(CONGSIM_LIMITS=file_bytes=N raises it)"
    )
    assert time.perf_counter() - started < 20
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * 2000 + "\n" + DUMBBELL.format(pairs=2))
    assert "file_bytes limit of 1 000" in one_error_line(
        congsim_cli("run", big, env={"CONGSIM_LIMITS": "file_bytes=1000"})
    )
    # The text given to the native module directly is held to the same limit.
    os.environ["CONGSIM_LIMITS"] = "file_bytes=1000"
    try:
        with pytest.raises(
            congsim.ScenarioError, match=r"is 2 \d{3} bytes long; the file_bytes limit is 1 000"
        ):
            congsim.loads(big.read_text())
    finally:
        del os.environ["CONGSIM_LIMITS"]


def plan_text(axes: str, name: str = "p") -> str:
    return f'name = "{name}"\nscenario = "d.toml"\nreplications = 1\n[axes]\n{axes}\n'


def test_a_plan_is_counted_before_it_is_expanded(tmp_path):
    (tmp_path / "d.toml").write_text(DUMBBELL.format(pairs=2))
    two_by_two = '"topology.bottleneck_delay" = ["1ms", "2ms"]\n"tcp.initial_window" = [1, 2]'
    small = loads_plan(plan_text(two_by_two), "p.toml", tmp_path)
    assert len(small.runs()) == 4
    # 40 axes of two values: 2^40 runs, refused from the sizes before a single point is made.
    forty_axes = "\n".join(f'"tcp.initial_window{i}" = [1, 2]' for i in range(40))
    started = time.perf_counter()
    with pytest.raises(PlanError, match="make 1 099 511 627 776 runs; the plan_runs limit is 1 000 000"):
        loads_plan(plan_text(forty_axes), "p.toml", tmp_path)
    assert time.perf_counter() - started < 5
    with pytest.raises(PlanError, match="replications: must be a whole number"):
        small.with_replications(0)
    with pytest.raises(PlanError, match="make 4 000 000 runs"):
        small.with_replications(1_000_000)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("../../../x", "must be one folder name"),
        ("..", "must not be '..'"),
        ("", "must not be empty"),
        ("a\x1b[31m", "must not contain control characters"),
        ("a\nb", "must not contain control characters"),
    ],
)
def test_a_plan_name_stays_one_folder_name(tmp_path, name, problem):
    (tmp_path / "d.toml").write_text(DUMBBELL.format(pairs=2))
    escaped = name.replace("\x1b", "\\u001b").replace("\n", "\\n")
    text = plan_text('"topology.bottleneck_delay" = ["1ms"]', escaped)
    with pytest.raises(PlanError, match=f"p.toml: name: {problem}"):
        loads_plan(text, "p.toml", tmp_path)


def test_command_line_numbers_and_folders_are_checked_before_any_run(root):
    for args in (
        ["sweep", root / "plans/reno-vs-tahoe-buffers.toml", "--workers", "-1"],
        ["sweep", root / "plans/reno-vs-tahoe-buffers.toml", "--workers", "0"],
        ["reproduce", "koga2000", "--replications", "1000000000"],
        ["run", root / "scenarios/single-flow.toml", "--replication", str(2**70)],
        ["run", root / "scenarios/single-flow.toml", "--out", ""],
    ):
        line = one_error_line(congsim_cli(*args))
        assert "Invalid value" in line and "--help" in line, line
    if os.geteuid() != 0 and Path("/sys/kernel").is_dir():
        started = time.perf_counter()
        line = one_error_line(congsim_cli("run", root / "scenarios/dumbbell-20.toml", "--out", "/sys/kernel"))
        assert line.startswith("error: /sys/kernel: cannot write results")
        assert time.perf_counter() - started < 10  # refused before the run, not after it


def test_escape_sequences_from_a_file_are_escaped_in_messages(tmp_path):
    scenario = tmp_path / "e.toml"
    scenario.write_text(DUMBBELL.format(pairs=2) + '[[flows]]\nfrom = "s1"\nto = "\\u001b[2J"\n')
    line = one_error_line(congsim_cli("validate", scenario))
    assert "\x1b" not in line and "\\x1b[2J" in line


def test_python_calls_say_what_they_expected(root):
    scenario = congsim.load(root / "scenarios/single-flow.toml")
    cases = [
        (lambda: congsim.run(None), TypeError, "run expects a congsim.Scenario"),
        (lambda: congsim.run("a.toml"), TypeError, r"congsim.run\(congsim.load\(path\)\)"),
        (lambda: congsim.run({"nodes": []}), TypeError, "Scenario.from_dict"),
        (lambda: congsim.run(scenario, 2**70), ValueError, "replication must be 0 to 4294967295"),
        (lambda: congsim.run(scenario, -1), ValueError, "replication must be 0 to"),
        (lambda: congsim.run(scenario, 1.5), TypeError, "replication must be an int"),
        (lambda: congsim.run(scenario, 0, progress=3), TypeError, "progress must be a function"),
        (lambda: congsim.load(123), TypeError, "load expects the path"),
        (lambda: congsim.loads(b"x = 1"), TypeError, "decode bytes first"),
        (
            lambda: congsim.load(root / "scenarios/single-flow.toml", overrides=[("tcp.variant", "reno")]),
            TypeError,
            "overrides must be a mapping",
        ),
        (lambda: congsim.Scenario.from_dict([1, 2]), TypeError, "from_dict expects a mapping"),
    ]
    looped: dict[str, object] = {"simulation": {}}
    looped["simulation"] = looped
    cases.append(
        (lambda: congsim.Scenario.from_dict(looped), congsim.ScenarioError, "a table contains itself")
    )
    loop_value: list[object] = []
    loop_value.append(loop_value)
    cases.append(
        (
            lambda: congsim.load(root / "scenarios/single-flow.toml", overrides={"tcp.window": loop_value}),
            TypeError,
            "a value contains itself",
        )
    )
    for call, kind, message in cases:
        with pytest.raises(kind, match=message):
            call()


def test_a_flow_name_cannot_move_the_default_figure_out_of_its_folder(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'nodes = ["a", "b"]\n[simulation]\nduration = "0.2s"\n[metrics]\nsequence_trace = true\n'
        '[[links]]\nfrom = "a"\nto = "b"\nrate = "10Mbps"\ndelay = "1ms"\n'
        '[[flows]]\nfrom = "a"\nto = "b"\nname = "../up"\n'
    )
    out = tmp_path / "out"
    assert congsim_cli("run", scenario, "--out", out).returncode == 0
    drawn = congsim_cli("plot-sequence", out, "--flow", "../up")
    assert drawn.returncode == 0, drawn.stderr
    assert (out / "sequence-_up.svg").exists() and not (tmp_path / "up.svg").exists()
