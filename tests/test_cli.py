"""The `congsim` command: outputs, determinism, and one clear line for every user mistake."""

from __future__ import annotations

import filecmp
import subprocess
import sys

from conftest import run_congsim


def test_run_writes_parquet_and_csv_tables(cli, root, tmp_path):
    done = run_congsim("run", root / "scenarios" / "single-flow.toml", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ftp" in done.stdout and "total goodput" in done.stdout
    for table in ("flows", "links", "summary", "flow_series", "link_series"):
        assert (tmp_path / f"{table}.parquet").stat().st_size > 0
        assert (tmp_path / f"{table}.csv").read_text().count("\n") >= 2


def test_two_runs_write_identical_files_and_another_seed_does_not(cli, root, tmp_path):
    scenario = (root / "scenarios" / "single-flow.toml").read_text()
    lossy = scenario.replace('delay = "10ms"', 'delay = "10ms"\nrandom_loss = 0.005')
    assert lossy != scenario
    (tmp_path / "a.toml").write_text(lossy)
    (tmp_path / "b.toml").write_text(lossy.replace("seed = 1", "seed = 2"))
    for name, source in (("one", "a.toml"), ("two", "a.toml"), ("other", "b.toml")):
        done = run_congsim("run", tmp_path / source, "--out", tmp_path / name)
        assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert len(files) == 10
    _, mismatch, errors = filecmp.cmpfiles(tmp_path / "one", tmp_path / "two", files, shallow=False)
    assert (mismatch, errors) == ([], [])
    assert not filecmp.cmp(tmp_path / "one" / "flows.csv", tmp_path / "other" / "flows.csv", shallow=False)


def test_bad_scenario_gives_one_error_line_and_status_2(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('nodes = ["a"]\n[simulation]\nduration = "1s"\nlinks = []\nflows = []\n')
    for command in ("run", "validate"):
        done = run_congsim(command, bad)
        assert done.returncode == 2
        assert (
            done.stderr == f"error: {bad}: simulation.links: unknown field `links`, expected one of "
            "`duration`, `seed`, `replications`, `measure_from`, `measure_until`, `start_jitter`, "
            "`tie_order` (line 4, column 1)\n"
        )
        assert "Traceback" not in done.stdout + done.stderr


def test_missing_file_and_unwritable_output_are_reported(cli, root, tmp_path):
    done = run_congsim("validate", tmp_path / "missing.toml")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "cannot read the file" in done.stderr
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = run_congsim("run", root / "scenarios" / "single-flow.toml", "--out", blocker / "sub")
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {blocker / 'sub'}: cannot write results")
    assert "Traceback" not in done.stderr


def test_validate_and_schema(cli, root, tmp_path):
    done = run_congsim("validate", root / "scenarios" / "dumbbell-20.toml")
    assert done.returncode == 0
    assert done.stdout.endswith("ok (42 nodes, 82 links, 20 flows)\n")
    out = tmp_path / "schema.json"
    assert run_congsim("schema", "--out", out).returncode == 0
    assert '"ScenarioFile"' in out.read_text()


def test_committed_dumbbell_matches_its_generator(root):
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_dumbbell", root / "bench" / "make_dumbbell.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (root / "scenarios" / "dumbbell-20.toml").read_text() == module.dumbbell_toml(20)


def test_committed_json_schema_is_current(cli, root):
    done = run_congsim("schema")
    assert done.returncode == 0
    assert (root / "schema" / "scenario.schema.json").read_text() == done.stdout, (
        "regenerate with: congsim schema --out schema/scenario.schema.json"
    )


def test_plot_sequence_draws_the_time_sequence_figure(cli, root, tmp_path):
    scenario = (root / "scenarios" / "fall-floyd.toml").read_text()
    traced = (
        scenario
        + '\n[metrics]\nsequence_trace = true\n\n[[drops]]\nfrom = "r"\nto = "b"\nflow = "f"\npacket = 14\n'
    )
    (tmp_path / "traced.toml").write_text(traced)
    done = run_congsim("run", tmp_path / "traced.toml", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    done = run_congsim("plot-sequence", tmp_path / "out", "--flow", "f")
    assert done.returncode == 0, done.stderr
    svg = (tmp_path / "out" / "sequence-f.svg").read_text()
    assert "time-sequence of f" in svg and "retransmit" in svg and "drop" in svg

    done = run_congsim("plot-sequence", tmp_path / "out", "--flow", "g")
    assert (done.returncode, done.stderr) == (2, "error: flow 'g' is not in the trace; flows are: f\n")
    done = run_congsim("plot-sequence", tmp_path, "--flow", "f")
    assert done.returncode == 2
    assert "no time-sequence trace; run a scenario with [metrics] sequence_trace = true" in done.stderr


def test_validate_starts_without_the_heavy_libraries(root):
    """`congsim validate` and `--help` must start fast: no pandas, pyarrow, rich or pydantic
    (what a top-level import in the CLI or the package would pull in on every start)."""
    heavy = ("pandas", "pyarrow", "rich", "pydantic", "matplotlib")
    for args in (["validate", str(root / "scenarios" / "dumbbell-20.toml")], ["--help"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "congsim", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        imported = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines()}
        assert not imported & set(heavy), f"congsim {args[0]} imports {sorted(imported & set(heavy))}"


def test_the_verdict_stays_visible_in_an_80_column_terminal():
    import io

    import pandas as pd
    from rich.console import Console

    from congsim.cli import _print_claims, _print_comparison

    axes = ["links[0].queue.limit_packets", "tcp.variant"]
    comparison = pd.DataFrame(
        {
            axes[0]: [25, 400],
            axes[1]: ["reno", "tahoe"],
            "metric": ["throughput_mbps_with_a_long_name", "timeouts_per_flow_with_a_long_name"],
            "reference": [93.123456, 1.5],
            "band_low": [88.4673, 0.975],
            "band_high": [97.7796, 2.025],
            "mean": [93.41234, 3.2],
            "ci_low": [92.91234, 2.9],
            "ci_high": [93.91234, 3.5],
            "verdict": ["agrees", "differs"],
            "source": ["ns-2.35 on the same scenario", "ns-2.35 on the same scenario"],
        }
    )
    claims = pd.DataFrame(
        [
            {
                "claim": "EPD is more efficient than plain UBR with fast retransmit and recovery " * 2,
                "factor": 1.0,
                "lhs_mean": 0.5,
                "lhs_ci_low": 0.4,
                "lhs_ci_high": 0.6,
                "rhs_mean": 0.9,
                "rhs_ci_low": 0.85,
                "rhs_ci_high": 0.95,
                "ratio": 0.55,
                "ratio_ci_low": 0.5,
                "ratio_ci_high": 0.6,
                "verdict": "not significant",
            }
        ]
    )
    text = io.StringIO()
    console = Console(file=text, width=80)
    _print_comparison(console, comparison, axes)
    _print_claims(console, claims)
    printed = text.getvalue()
    assert all(len(line) <= 80 for line in printed.splitlines())
    for verdict in ("agrees", "differs", "not significant"):
        assert verdict in printed, printed


def test_validate_shows_routes_and_show_draws_the_topology(root, tmp_path):
    done = run_congsim("validate", "--routes", root / "scenarios" / "single-flow.toml")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "ftp (tcp data): src -[100Mbps 1ms]-> router -[10Mbps 10ms]-> dst  "
        "(bottleneck 10Mbps, propagation 11ms)",
        "ftp (tcp acks): dst -[10Mbps 10ms]-> router -[100Mbps 1ms]-> src  "
        "(bottleneck 10Mbps, propagation 11ms)",
    ]
    done = run_congsim("show", root / "scenarios" / "single-flow.toml")
    assert done.returncode == 0, done.stderr
    assert '"router" [shape=box];' in done.stdout and '"src" [shape=ellipse];' in done.stdout
    assert '"router" -> "dst" [label="10Mbps\\n10ms\\ndroptail", dir=both];' in done.stdout
    out = tmp_path / "net.dot"
    assert run_congsim("show", root / "scenarios" / "dumbbell-20.toml", "--out", out).returncode == 0
    assert out.read_text().count("dir=both") == 41
    wrong = run_congsim("show", root / "scenarios" / "single-flow.toml", "--out", tmp_path / "net.txt")
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: --out ")


def test_run_lists_the_first_flows_of_a_large_scenario(root):
    """A 10 000-flow dumbbell (ten lines of [topology]) runs from the command line and lists 20
    flows, saying where the others are."""
    done = run_congsim("run", root / "scenarios" / "dumbbell-10000.toml")
    assert done.returncode == 0, done.stderr
    assert "tcp20 " in done.stdout and "tcp21 " not in done.stdout
    assert "the first 20 of 10000 flows" in done.stdout
