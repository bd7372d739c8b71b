"""`congsim import-ns2`: an ns-2 script runs in Tcl (Python's bundled Tcl) against a recording
stand-in for ns-2 and comes back as a congsim scenario.

Round trips: the scripts bench/ns2_script.py writes for example scenarios import back to
scenarios whose flows and links tables are identical to the original's. Hand-written scripts
(tests/ns2_scripts/: a `for` loop calling a proc, `expr`, a CBR whose rate changes, an
`rtmodel-at` failure, Exponential and Pareto sources) import to the scenario files beside them.
Refusals are one line naming the script line, from the API and from the command (status 2, no
traceback)."""

from __future__ import annotations

import copy
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import pandas as pd
import pytest
from conftest import ROOT, run_congsim

import congsim
from congsim.ns2import import Ns2ImportError, import_script, units

SCRIPTS = ROOT / "tests" / "ns2_scripts"


def bench_module() -> Any:
    spec = importlib.util.spec_from_file_location("ns2_script", ROOT / "bench" / "ns2_script.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = bench_module()


def original(name: str, **tcp: Any) -> dict[str, Any]:
    """The example scenario `name`, as bench/ns2_script.py sees it: counts expanded, flows named
    as the script's agents (`tcp0`, `tcp1`, ...: names key the random streams), no [metrics]
    (which only add tables)."""
    doc = tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text(encoding="utf-8"))
    doc = copy.deepcopy(doc)
    doc["tcp"] = {**doc.get("tcp", {}), **tcp}
    flows = BENCH.expand_counts(doc["flows"])
    doc["flows"] = [
        {**{k: v for k, v in f.items() if k not in ("name", "count")}, "name": f"tcp{i}"}
        for i, f in enumerate(flows)
    ]
    doc.pop("metrics", None)
    return doc


ROUND_TRIPS = {
    "single-flow": original("single-flow"),
    "single-flow-tahoe": original("single-flow", variant="tahoe"),
    "red-gateway": original("red-gateway"),
    "tie-order": original("tie-order"),
    "dumbbell-20": original("dumbbell-20"),
}
ecn = original("red-gateway", congestion_marks="ecn")
ecn["links"][1]["queue"]["ecn_marking"] = True
ROUND_TRIPS["red-gateway-ecn"] = ecn


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_bench_scripts_import_back_to_the_same_tables(name, tmp_path):
    doc = ROUND_TRIPS[name]
    script = tmp_path / f"{name}.tcl"
    script.write_text(BENCH.ns2_script_from_document(doc), encoding="utf-8")
    imported = import_script(script)
    # The script does not carry congsim's seed (ns-2 has its own generators): the same for both.
    seed = {"simulation.seed": doc["simulation"].get("seed", 1)}
    back = congsim.loads(imported.text, str(script), overrides=seed)
    assert imported.document["tcp"]["profile"] == "ns2_2000"
    ours, theirs = congsim.run(congsim.Scenario.from_dict(doc)), congsim.run(back)
    for table in ("flows", "links"):
        pd.testing.assert_frame_equal(getattr(ours, table), getattr(theirs, table))
    assert len(ours.flows) == len(doc["flows"]) and ours.flows["goodput_bps"].min() > 0


def test_a_red_bench_script_keeps_its_pinned_parameters(tmp_path):
    script = tmp_path / "red.tcl"
    script.write_text(BENCH.ns2_script_from_document(ROUND_TRIPS["red-gateway-ecn"]), encoding="utf-8")
    imported = import_script(script)
    assert imported.document["links"][1]["queue"] == {"kind": "red", "limit_packets": 60, "ecn_marking": True}
    assert imported.document["tcp"] == {
        "profile": "ns2_2000",
        "variant": "reno",
        "window": 100,
        "packet_size": "500B",
        "congestion_marks": "ecn",
    }
    # The monitor the script reads RED's drops from is ignored, with its line.
    assert len(imported.warnings) == 1 and "monitor-queue" in imported.warnings[0]
    assert re.match(rf"{re.escape(str(script))}:\d+: ", imported.warnings[0])


def expected(name: str) -> dict[str, Any]:
    return tomllib.loads((SCRIPTS / f"{name}.toml").read_text(encoding="utf-8"))


def test_a_dumbbell_built_in_a_loop_imports_and_runs(monkeypatch):
    monkeypatch.chdir(SCRIPTS)
    imported = import_script("dumbbell.tcl")
    assert imported.text == (SCRIPTS / "dumbbell.toml").read_text(encoding="utf-8")
    doc = imported.document
    assert doc == expected("dumbbell")
    # The loop and the proc made four flows, named after the array tcp(i), starting 0.5 s apart;
    # the nodes are named after the arrays s(i), d(i) and the scalars r1, r2, u.
    assert [(f["name"], f["from"], f.get("start")) for f in doc["flows"]] == [
        ("tcp1", "s1", None),
        ("tcp2", "s2", "500ms"),
        ("tcp3", "s3", "1s"),
        ("tcp4", "s4", "1.5s"),
    ]
    assert doc["flows"][3]["stop"] == "5s"
    assert doc["cbr"] == [
        {
            "name": "cbr",
            "from": "u",
            "to": "d1",
            "rate": "1Mbps",
            "packet_size": "500B",
            "phase": "zero",
            "on": [["1s", "4s"]],
        }
    ]
    assert [(e["at"], e["action"]) for e in doc["events"]] == [
        ("2s", "cbr_rate"),
        ("3s", "link_down"),
        ("3s", "link_down"),
        ("4s", "link_up"),
        ("4s", "link_up"),
    ]
    # Only the direction with queue-limit 60 differs from the other: two simplex links.
    assert doc["links"][0]["queue"] == {"kind": "red", "limit_packets": 60}
    assert doc["links"][1]["queue"] == {"kind": "red"}
    assert imported.warnings == (
        'dumbbell.tcl:6: "$ns trace-all $tf" ignored: congsim writes tables '
        "(flows, links; [metrics] for series and traces), not trace files",
    )
    results = congsim.run(congsim.loads(imported.text, "dumbbell.toml"))
    assert len(results.flows) == 4 and results.flows["goodput_bps"].min() > 0
    links = results.links.set_index("link")
    assert links.loc["s2->r1", "drops_link_down"] + links.loc["r1->s2", "drops_link_down"] > 0
    assert results.cbr["packets_delivered"].iloc[0] > 0


def test_on_off_sources_import_as_cbr_entries_with_on_off():
    imported = import_script(SCRIPTS / "onoff.tcl")
    doc = imported.document
    assert doc == expected("onoff")
    assert [c["on_off"] for c in doc["cbr"]] == [
        {"law": "exponential", "on_mean": "500ms", "off_mean": "500ms"},
        {"law": "pareto", "on_mean": "500ms", "off_mean": "500ms", "shape": 1.4},
    ]
    assert all(c["rate"] == "100Kbps" and c["packet_size"] == "400B" for c in doc["cbr"])
    assert doc["tcp"] == {"profile": "ns2_235", "variant": "newreno", "window": 30, "delayed_ack": "ns2"}


def _has_on_off() -> bool:
    cbr = congsim.schema()["$defs"]["CbrSpec"]["properties"]
    return "on_off" in cbr


@pytest.mark.skipif(not _has_on_off(), reason="waits for [[cbr]] on_off in the native module (#33)")
def test_on_off_sources_validate_and_run():
    results = congsim.run(congsim.loads(import_script(SCRIPTS / "onoff.tcl").text))
    assert len(results.cbr) == 2 and (results.cbr["packets_delivered"] > 0).all()
    done = run_congsim("import-ns2", SCRIPTS / "onoff.tcl")
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(done.stdout) == expected("onoff")


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (ns) is not installed")
@pytest.mark.parametrize("name", ["dumbbell", "onoff"])
def test_the_hand_written_scripts_run_in_ns2(name, tmp_path):
    done = subprocess.run(["ns", SCRIPTS / f"{name}.tcl"], cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr


def write(tmp_path: Path, text: str, name: str = "script.tcl") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


#: A complete script around a body: two nodes, a link, one FTP over Tahoe, the end at 2 s.
PROLOGUE = """set ns [new Simulator]
set a [$ns node]
set b [$ns node]
$ns duplex-link $a $b 1Mb 10ms DropTail
"""
FLOW = """set tcp [new Agent/TCP]
$ns attach-agent $a $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $b $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
"""
EPILOGUE = """proc finish {} {
    exit 0
}
$ns at 2.0 "finish"
$ns run
"""


def test_a_run_ends_at_exit_or_halt_and_runs_scheduled_procs(tmp_path):
    record = """proc record {} {
    global ns sink
    set bytes [$sink set bytes_]
    $sink set bytes_ 0
    $ns at [expr {[$ns now] + 0.1}] "record"
}
$ns at 0.0 "record"
$ns at 1.25 "$ns halt"
$ns run
"""
    imported = import_script(write(tmp_path, PROLOGUE + FLOW + record))
    assert imported.document["simulation"] == {"duration": "1.25s"}
    assert imported.document["tcp"] == {"profile": "ns2_235", "variant": "tahoe"}
    assert imported.document["links"] == [{"from": "a", "to": "b", "rate": "1Mbps", "delay": "10ms"}]


def test_a_random_failure_model_imports_as_a_link_failures_event(tmp_path):
    """`$ns rtmodel Exponential {start up down finish} $a $b` is one process on both directions;
    two parameters are the means (ns-2 then starts at 0.5 s); Deterministic is refused."""
    four = "$ns rtmodel Exponential {0.2 0.6 0.1 1.5} $a $b\n"
    imported = import_script(write(tmp_path, PROLOGUE + FLOW + four + EPILOGUE))
    assert imported.document["events"] == [
        {
            "at": "200ms",
            "action": "link_failures",
            "link": "a->b",
            "up_mean": "600ms",
            "down_mean": "100ms",
            "until": "1.5s",
        }
    ]
    assert congsim.run(congsim.loads(imported.text)).links["drops_link_down"].notna().all()
    two = "$ns rtmodel Exponential {0.6 0.1} $a $b\n"
    imported = import_script(write(tmp_path, PROLOGUE + FLOW + two + EPILOGUE))
    (event,) = imported.document["events"]
    assert (event["at"], "until" in event) == ("500ms", False)
    with pytest.raises(Ns2ImportError, match="rtmodel Deterministic is not imported"):
        deterministic = "$ns rtmodel Deterministic {1 0.5} $a $b\n"
        import_script(write(tmp_path, PROLOGUE + FLOW + deterministic + EPILOGUE))
    with pytest.raises(Ns2ImportError, match=r"rtmodel on one node .* is not imported"):
        node = "$ns rtmodel Exponential {0.6 0.1} $a\n"
        import_script(write(tmp_path, PROLOGUE + FLOW + node + EPILOGUE))


def test_a_node_going_down_takes_every_link_of_it_down(tmp_path):
    """`$ns rtmodel-at T down|up $n` (one node) acts on every link to and from the node, as
    ns-2's node dynamics do: a link_down (link_up) event for each, in the script's link order;
    one after the end is left out with a warning."""
    script = (
        """set ns [new Simulator]
set a [$ns node]
set b [$ns node]
set c [$ns node]
set d [$ns node]
$ns duplex-link $a $b 1Mb 10ms DropTail
$ns duplex-link $b $c 1Mb 10ms DropTail
$ns duplex-link $c $d 1Mb 10ms DropTail
"""
        + FLOW.replace("attach-agent $b $sink", "attach-agent $c $sink")
        + """$ns rtmodel-at 1.0 down $b
$ns rtmodel-at 1.5 up $b
$ns rtmodel-at 3.0 down $d
"""
    )
    imported = import_script(write(tmp_path, script + EPILOGUE))
    of_b = ["a->b", "b->a", "b->c", "c->b"]
    assert imported.document["events"] == [
        *({"at": "1s", "action": "link_down", "link": link} for link in of_b),
        *({"at": "1.5s", "action": "link_up", "link": link} for link in of_b),
    ]
    assert any("rtmodel-at 3.0 down $d" in w and "after the end" in w for w in imported.warnings)
    links = congsim.run(congsim.loads(imported.text)).links.set_index("link")
    assert links.loc["a->b", "drops_link_down"] + links.loc["b->c", "drops_link_down"] > 0
    with pytest.raises(Ns2ImportError, match=r"rtmodel-at TIME down\|up NODE \[NODE\]"):
        import_script(write(tmp_path, script.replace("up $b", "up") + EPILOGUE))


def test_ns2_units_and_names(tmp_path):
    body = """Agent/TCP set packetSize_ 512
Agent/TCP set tcpTick_ 0.1
set c [$ns node]
$ns simplex-link $b $c 10MB 2500us RED
$ns simplex-link $c $a 1.5Mb 0.25 DropTail
$ns queue-limit $c $a 7
Queue/DropTail set limit_ 9
"""
    imported = import_script(write(tmp_path, PROLOGUE + body + FLOW + EPILOGUE))
    links = imported.document["links"]
    # 10MB is megabytes: 80 Mbit/s; 1.5Mb 1.5 Mbit/s; a plain number of seconds.
    assert links[1:] == [
        {"from": "b", "to": "c", "rate": "80Mbps", "delay": "2.5ms", "duplex": False,
         "queue": {"kind": "red", "min_th": 0, "max_th": 0, "w_q": -1, "gentle": True, "bytes": True,
                   "queue_in_bytes": True}},
        {"from": "c", "to": "a", "rate": "1.5Mbps", "delay": "250ms", "duplex": False,
         "queue": {"limit_packets": 7}},
    ]  # fmt: skip
    assert imported.document["tcp"] == {
        "profile": "ns2_235",
        "variant": "tahoe",
        "packet_size": "512B",
        "tick": "100ms",
    }
    assert units.rate_text(units.bandwidth("100k")) == "100Kbps"
    assert units.duration_text(units.seconds("2ms")) == "2ms"
    assert units.rate_text(units.bandwidth("1kB")) == "8Kbps"


def test_profiles_and_per_flow_settings(tmp_path):
    body = """set tcp2 [new Agent/TCP/Sack1]
$tcp2 set window_ 64
$ns attach-agent $a $tcp2
Agent/TCPSink set maxSackBlocks_ 2
set sink2 [new Agent/TCPSink/Sack1/DelAck]
$sink2 set interval_ 200ms
$ns attach-agent $b $sink2
$ns connect $tcp2 $sink2
set ftp2 [new Application/FTP]
$ftp2 attach-agent $tcp2
$ns at 0.5 "$ftp2 start"
$ns at 1.0 "$ftp2 stop"
$ns at 1.5 "$ftp2 start"
"""
    imported = import_script(write(tmp_path, PROLOGUE + FLOW + body + EPILOGUE))
    doc = imported.document
    assert doc["tcp"] == {"profile": "ns2_235"}
    assert doc["flows"] == [
        {"name": "tcp", "from": "a", "to": "b", "tcp": {"variant": "tahoe"}},
        {
            "name": "tcp2",
            "from": "a",
            "to": "b",
            "start": "500ms",
            "tcp": {
                "variant": "sack",
                "window": 64,
                "delayed_ack": "ns2",
                "delayed_ack_interval": "200ms",
                "sack_blocks": 2,
            },
        },
    ]
    assert doc["events"] == [
        {"at": "1s", "action": "flow_stop", "flow": "tcp2"},
        {"at": "1.5s", "action": "flow_start", "flow": "tcp2"},
    ]
    congsim.loads(imported.text)


def test_nothing_is_written_or_run(tmp_path):
    body = """set tf [open out.tr w]
$ns trace-all $tf
puts $tf "written"
proc finish {} {
    global ns tf
    $ns flush-trace
    close $tf
    exec touch ran.txt
    puts "finished"
    exit 0
}
$ns at 2.0 "finish"
$ns run
"""
    script = write(tmp_path, PROLOGUE + FLOW + body)
    done = subprocess.run(
        [sys.executable, "-m", "congsim", "import-ns2", script.name, "--out", "out.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.toml", "script.tcl"]
    assert done.stdout == "wrote out.toml\n"
    before = PROLOGUE.count("\n") + FLOW.count("\n")
    assert done.stderr.splitlines() == [
        f'warning: script.tcl:{before + 2}: "$ns trace-all $tf" ignored: '
        "congsim writes tables (flows, links; [metrics] for series and traces), not trace files",
        f'warning: script.tcl:{before + 8}: "exec touch ran.txt" not run: the import runs no programs',
    ]
    text = (tmp_path / "out.toml").read_text(encoding="utf-8")
    assert text.startswith("# Imported from script.tcl") and f"# warning: script.tcl:{before + 8}:" in text


#: Bad scripts: (name, script, line, the command as shown, the reason).
REFUSALS = [
    (
        "namtrace-all",
        PROLOGUE + "set nf [open out.nam w]\n$ns namtrace-all $nf\n",
        6,
        "$ns namtrace-all $nf",
        "congsim has no nam output",
    ),
    (
        "wireless",
        "set ns [new Simulator]\n$ns node-config -adhocRouting DSDV \\\n    -llType LL\n",
        2,
        "$ns node-config -adhocRouting DSDV -llType LL",
        "congsim has no wireless nodes",
    ),
    (
        "unsupported command",
        PROLOGUE + "for {set i 0} {$i < 3} {incr i} {\n    $ns cost $a $b $i\n}\n",
        6,
        "$ns cost $a $b $i",
        "congsim routes by hop count",
    ),
    (
        "vegas",
        PROLOGUE + "set t [new Agent/TCP/Vegas]\n",
        5,
        "new Agent/TCP/Vegas",
        "congsim has no TCP Vegas",
    ),
    (
        "queue",
        PROLOGUE + "$ns duplex-link $b [$ns node] 1Mb 1ms SFQ\n",
        5,
        "$ns duplex-link $b [$ns node] 1Mb 1ms SFQ",
        "the queues the import translates are DropTail and RED",
    ),
    (
        "unknown class",
        PROLOGUE + "Mac/802_11 set dataRate_ 11Mb\n",
        5,
        "Mac/802_11 set dataRate_ 11Mb",
        "congsim has no wireless model",
    ),
    (
        "unknown variable",
        PROLOGUE + FLOW + "$tcp set foo_ 3\n",
        12,
        "$tcp set foo_ 3",
        "congsim has no equivalent of Agent/TCP's foo_",
    ),
    (
        "fixed variable",
        PROLOGUE + "Agent/TCP set numdupacks_ 2\n",
        5,
        "Agent/TCP set numdupacks_ 2",
        "congsim models Agent/TCP's numdupacks_ 3 (ns-2.35's default) only",
    ),
    (
        "during the run",
        PROLOGUE + FLOW + '$ns at 1.0 "$tcp set window_ 5"\n' + EPILOGUE,
        12,
        '$ns at 1.0 "$tcp set window_ 5"',
        "congsim cannot change Agent/TCP's window_ during the run",
    ),
    (
        "in a proc",
        PROLOGUE + "proc setup {} {\n    global ns a\n    $a set X_ 10\n}\nsetup\n",
        7,
        "$a set X_ 10",
        "congsim's nodes have no positions or per-node settings (no wireless model)",
    ),
    (
        "sack pairing",
        PROLOGUE + FLOW.replace("Agent/TCP]", "Agent/TCP/Sack1]"),
        9,
        "$ns connect $tcp $sink",
        "congsim pairs Agent/TCP/Sack1 with Agent/TCPSink/Sack1 (variant sack), and the other senders "
        "with Agent/TCPSink or Agent/TCPSink/DelAck",
    ),
    (
        "use_mark_p",
        "Queue/RED set setbit_ true\n" + PROLOGUE.replace("DropTail", "RED") + FLOW + EPILOGUE,
        1,
        "Queue/RED set setbit_ true",
        "with use_mark_p_ true (ns-2.35's default), ns-2's RED drops instead of marking where its "
        "probability reaches mark_p_ 0.1 (the gentle region, or max_p above it), which congsim does not "
        "model: set Queue/RED use_mark_p_ false",
    ),
    (
        "on/off restarted",
        PROLOGUE
        + "set u [new Agent/UDP]\n$ns attach-agent $a $u\nset n [new Agent/Null]\n$ns attach-agent $b $n\n"
        + "$ns connect $u $n\nset e [new Application/Traffic/Exponential]\n$e attach-agent $u\n"
        + '$ns at 0.5 "$e start"\n$ns at 1.0 "$e stop"\n$ns at 1.5 "$e start"\n'
        + EPILOGUE,
        14,
        '$ns at 1.5 "$e start"',
        "congsim's on/off sources run over one period (on_off.start, on_off.stop); "
        "Application/Traffic/Exponential started again after a stop is not imported",
    ),
]


@pytest.mark.parametrize(
    ("name", "script", "line", "command", "reason"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
def test_refusals_name_the_script_line(name, script, line, command, reason, tmp_path):
    path = write(tmp_path, script)
    with pytest.raises(Ns2ImportError) as caught:
        import_script(path)
    assert (
        str(caught.value) == f'{path}:{line}: "{command}" is not supported: {reason} (see docs/ns-mapping.md)'
    )


def test_the_profile_details_come_whole(tmp_path):
    path = write(tmp_path, PROLOGUE + "Agent/TCP set maxrto_ 64\n" + FLOW + EPILOGUE)
    with pytest.raises(
        Ns2ImportError, match=r"script\.tcl:5: \"Agent/TCP set maxrto_ 64\" is not supported: "
    ):
        import_script(path)
    with pytest.raises(Ns2ImportError) as caught:
        import_script(path)
    message = str(caught.value)
    assert "ns2_235 (ns-2.35's defaults) or ns2_2000 (maxrto_ 64, delay_growth_ false" in message
    assert message.endswith("this Agent/TCP has ns2_235's but maxrto_ 64 (see docs/ns-mapping.md)")


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (PROLOGUE + "set x [expr {1 +}]\n", r":5: Tcl error: missing operand"),
        (PROLOGUE + "puts $nothing\n", r':5: Tcl error: can\'t read "nothing": no such variable'),
        (PROLOGUE + "frobnicate 3\n", r':5: "frobnicate 3" is not supported: frobnicate is neither a Tcl'),
        (
            PROLOGUE + "Agent/TCP set tcpTick_ 100ms\n",
            r":5: \"Agent/TCP set tcpTick_ 100ms\": '100ms' is not a plain",
        ),
        (PROLOGUE + "$ns duplex-link $a $b 10B 1ms DropTail\n", r"ns-2 reads '10B' as 10 bit/s"),
        (PROLOGUE, r'script\.tcl: the script never calls "\$ns run"'),
        (PROLOGUE + "$ns run\n", r':5: "\$ns run" is not supported: nothing ends the run'),
        (PROLOGUE + "exit 0\n$ns run\n", r':5: "exit 0" is not supported: the script exits before'),
        (
            PROLOGUE + 'proc finish {} {\n    puts $x\n}\n$ns at 1 "finish"\n$ns run\n',
            r':8: Tcl error in "\$ns at 1',
        ),
        (
            PROLOGUE + 'catch {$ns namtrace-all stdout}\n$ns at 1 "exit 0"\n$ns run\n',
            r":5: .* congsim has no nam",
        ),
    ],
)
def test_script_errors_are_one_line(script, message, tmp_path):
    path = write(tmp_path, script)
    with pytest.raises(Ns2ImportError) as caught:
        import_script(path)
    assert re.search(message, str(caught.value)) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "script", "line"),
    [(r[0], r[1], r[2]) for r in REFUSALS if r[0] in ("namtrace-all", "wireless", "unsupported command")],
)
def test_the_command_refuses_with_one_line_and_status_2(name, script, line, tmp_path):
    path = write(tmp_path, script)
    done = run_congsim("import-ns2", path, "--out", tmp_path / "out.toml")
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {path}:{line}: ") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "out.toml").exists()


def test_the_command_reports_a_missing_script_and_an_unwritable_output(tmp_path):
    done = run_congsim("import-ns2", tmp_path / "missing.tcl")
    assert done.returncode == 2 and "cannot read the file" in done.stderr and "Traceback" not in done.stderr
    script = write(tmp_path, PROLOGUE + FLOW + EPILOGUE)
    done = run_congsim("import-ns2", script, "--out", tmp_path / "no" / "such" / "dir.toml")
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "cannot write" in done.stderr
    done = run_congsim("import-ns2", script)
    assert done.returncode == 0 and tomllib.loads(done.stdout)["flows"][0]["name"] == "tcp"


def test_the_docs_example_is_what_the_import_writes(tmp_path, monkeypatch):
    """docs/ns-mapping.md shows a whole script beside the scenario it imports to, and the
    command with what it prints: all three are checked here."""
    page = (ROOT / "docs" / "ns-mapping.md").read_text(encoding="utf-8")
    section = page[page.index("## Importing an ns-2 script") :]
    script = re.search(r"```tcl\n(.*?)```", section, re.S)
    scenario = re.search(r"```toml\n(.*?)```", section, re.S)
    command = re.search(r"```text\n(\$ congsim import-ns2 .*?)```", section, re.S)
    assert script and scenario and command
    lines = command.group(1).splitlines()
    argv = lines[0].removeprefix("$ ").split()
    assert argv[:2] == ["congsim", "import-ns2"]
    (tmp_path / argv[2]).write_text(script.group(1), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "congsim", *argv[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (done.stderr + done.stdout).splitlines() == lines[1:]
    written = (tmp_path / argv[argv.index("--out") + 1]).read_text(encoding="utf-8")
    assert written == scenario.group(1)
    congsim.run(congsim.loads(written))


def test_a_refused_import_frees_its_interpreter_in_its_own_thread(tmp_path):
    """A refusal's traceback keeps the recorder in a reference cycle; a Tcl interpreter the
    garbage collector then frees in another thread aborts the process (Tcl_AsyncDelete), as it
    once did in the middle of this test suite. The import frees its interpreter itself."""
    script = write(tmp_path, PROLOGUE + "$ns namtrace-all stdout\n" + EPILOGUE)
    code = (
        "import gc, threading\n"
        "from congsim.ns2import import Ns2ImportError, import_script\n"
        "errors = []\n"
        "for _ in range(3):\n"
        "    try:\n"
        f"        import_script({str(script)!r})\n"
        "    except Ns2ImportError as e:\n"
        "        errors.append(e)\n"
        "del errors\n"
        "collector = threading.Thread(target=gc.collect)\n"
        "collector.start()\n"
        "collector.join()\n"
        "print('alive')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "alive\n", done.stderr
