"""`--set FIELD=VALUE` on `congsim run`, `validate` and `show`: the overrides the Python API takes,
each value read as a TOML value (a bare word as text); a malformed one is one line and status 2."""

from __future__ import annotations

import click
import pandas as pd
import pytest
from conftest import ROOT, run_congsim

import congsim
from congsim.cli import _read_set

SINGLE = ROOT / "scenarios" / "single-flow.toml"


@pytest.mark.parametrize(
    ("setting", "path", "value"),
    [
        ("tcp.variant=tahoe", "tcp.variant", "tahoe"),
        ("links[0].rate=10Mbps", "links[0].rate", "10Mbps"),
        ("links[0].rate = 10 Mbps", "links[0].rate", "10 Mbps"),
        ("links[1].queue.limit_packets=25", "links[1].queue.limit_packets", 25),
        ("links[1].queue.w_q=0.002", "links[1].queue.w_q", 0.002),
        ("tcp.syn=true", "tcp.syn", True),
        ('name="a = b"', "name", "a = b"),
        ("name='single'", "name", "single"),
        ('metrics.sojourn_links=["src->router", "x"]', "metrics.sojourn_links", ["src->router", "x"]),
        ('q={ kind = "red", limit_packets = 6 }', "q", {"kind": "red", "limit_packets": 6}),
        ("simulation.duration=2024-01-01", "simulation.duration", "2024-01-01"),
        ("tcp.variant=a=b", "tcp.variant", "a=b"),
    ],
)  # fmt: skip
def test_values_are_read_as_toml(setting, path, value):
    assert _read_set(None, None, (setting,)) == {path: value}  # type: ignore[arg-type]


@pytest.mark.parametrize("setting", ["novalue", "=tahoe", "tcp.variant=", 'x=["a",', "x={ a = }", 'x="open'])
def test_malformed_settings_are_refused(setting):
    with pytest.raises(click.BadParameter):
        _read_set(None, None, (setting,))  # type: ignore[arg-type]


def test_run_applies_the_overrides_as_the_api_does(tmp_path):
    args = (
        "--set",
        "tcp.variant=tahoe",
        "--set",
        "links[1].queue.limit_packets=10",
        "--set",
        "links[1].rate=5Mbps",
    )
    done = run_congsim("run", SINGLE, *args, "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "tahoe" in done.stdout
    overrides = {"tcp.variant": "tahoe", "links[1].queue.limit_packets": 10, "links[1].rate": "5Mbps"}
    results = congsim.run(congsim.load(SINGLE, overrides))
    for table in ("flows", "links"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / f"{table}.csv"), pd.read_csv(_csv(results, table))
        )
    assert pd.read_csv(tmp_path / "links.csv").set_index("link").loc["router->dst", "rate_bps"] == 5e6


def _csv(results: congsim.Results, table: str) -> str:
    import io

    buffer = io.StringIO()
    getattr(results, table).to_csv(buffer, index=False)
    buffer.seek(0)
    return buffer  # type: ignore[return-value]


def test_validate_and_show_take_overrides():
    done = run_congsim("validate", SINGLE, "--set", "flows[0].count=3", "--routes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"{SINGLE}: ok (3 nodes, 4 links, 3 flows)"
    assert sum(line.startswith("ftp.") for line in done.stdout.splitlines()) == 6
    done = run_congsim(
        "show",
        SINGLE,
        "--set",
        'nodes=["src", "r", "dst"]',
        "--set",
        "links[0].to=r",
        "--set",
        "links[1].from=r",
    )
    assert done.returncode == 0, done.stderr
    assert '"r"' in done.stdout and '"router"' not in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--set", "novalue"), "error: Invalid value for '--set': 'novalue': write FIELD=VALUE (e.g. tcp."),
        (("--set", 'x=["a",'), "error: Invalid value for '--set': 'x=[\"a\",': [\"a\", is not a TOML value"),
        (("--set", "tcp.variant=vegas"), f"error: {SINGLE}: tcp.variant: unknown variant `vegas`"),
        (("--set", "simulation.seed=inf"), "error: overrides: simulation.seed: NaN and infinity are not"),
        (("--set", "tcp.bogus=1"), f"error: {SINGLE}: tcp.bogus: unknown field `bogus`"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["run", "validate", "show"])
def test_a_bad_setting_is_one_line_and_status_2(command, args, message):
    done = run_congsim(command, SINGLE, *args)
    assert done.returncode == 2
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_an_override_every_flow_shadows_is_warned_about_and_names_work(tmp_path):
    """`tcp.window` changes nothing when every flow sets its own: `validate` and `run` say so;
    a list entry can be named instead of counted (`links["router->dst"]`), and an unknown name
    lists the known ones."""
    scenario = tmp_path / "own.toml"
    flow_end = 'to = "dst"\n\n[metrics]'
    text = SINGLE.read_text(encoding="utf-8")
    assert text.count(flow_end) == 1
    scenario.write_text(text.replace(flow_end, 'to = "dst"\ntcp = { window = 20 }\n\n[metrics]'))
    warning = "tcp.window: changes nothing: every flow sets its own tcp.window"
    for extra in ((), ("--out", str(tmp_path / "out"))):
        command = "run" if extra else "validate"
        done = run_congsim(command, str(scenario), "--set", "tcp.window=50", *extra)
        assert done.returncode == 0 and warning in done.stderr, (command, done.stderr)
    named = run_congsim("validate", str(SINGLE), "--set", 'links["router->dst"].queue.limit_packets=7')
    assert named.returncode == 0 and named.stderr == "", named.stderr
    unknown = run_congsim("validate", str(SINGLE), "--set", 'links["router->nowhere"].delay=1ms')
    assert unknown.returncode == 2
    assert 'no entry is named "router->nowhere"' in unknown.stderr and '"router->dst"' in unknown.stderr
