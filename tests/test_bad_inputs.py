"""The bad-input corpus (issue #27 point 8, `tests/bad_inputs/`): hand-designed scenario files,
sweep plans, command lines and Python calls, each of which must end cleanly, as a clean refusal
naming the field or argument or as an accepted run, under a 4 GiB address-space limit and a
per-case time limit. Any panic, traceback, abort, hang, exhausted memory, nonsense accepted,
unclear message or raw control character fails the test, which lists every such case.

`.venv/bin/python tests/bad_inputs/harness.py [--filter SUBSTR]` runs the same corpus (or part of
it) from the command line with a summary table."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "bad_inputs"))

import cases
import harness

#: Inputs the issue names: each must be a case of the corpus.
NAMED_IN_THE_ISSUE = [
    "scenario/dumbbell/topology.pairs=1000000000",
    "scenario/dumbbell/topology.pairs=2000000",
    "scenario/parking/topology.hops=1000000000",
    "scenario/fat/topology.fat_tree.k=24.all_to_all",
    "scenario/fat/topology.fat_tree.k=32.all_to_all",
    "scenario/fat/topology.fat_tree.k=64.all_to_all",
    "scenario/ip/metrics.sequence_trace.long-run",
    "scenario/ip/metrics.tcp_events.long-run",
    "scenario/cbr/cbr.100Gbps-of-1B-packets",
    "scenario/cbr/cbr.rate=999999Gbps",
    "scenario/ip/tcp.window=18446744073709551615",
    "scenario/ip/tcp.packet_size-below-headers.0B",
    'scenario/path/"/dev/zero"',
    "scenario/file/100MB-of-comment",
    "cli/run /dev/zero",
    "cli/validate /dev/zero",
    "cli/run {big}",
    "cli/validate {big}",
    "cli/reproduce koga2000 --replications 1000000000",
    "cli/sweep {plan} --workers -1",
    "cli/sweep {plan} --workers 0",
    'cli/run {ip} --out ""',
    "cli/run {ip} --out /sys/kernel",
    "cli/sweep {plan} --executor dask --scheduler not-an-address",
    "cli/sweep {plan} --executor dask --scheduler tcp://[::1:8786",
    "cli/sweep {plan} --executor dask --scheduler http://127.0.0.1:1",
    "plan/axes-product-10^9",
    "plan/axes-2^40",
    'plan/name="../../../x"',
    'plan/name="\\u001B[31mred"',
    'plan/name="a\\u0000b"',
    'plan/name="a\\u000Ab"',
    "api/congsim.run(None)",
    'api/congsim.run("path.toml")',
    'api/congsim.run({"nodes": ["a", "b"]})',
    'api/congsim.load(P, overrides=[("a", 1)])',
    "api/congsim.run(S, 2**70)",
    "api/congsim.run(S, -1)",
    "api/congsim.Scenario.from_dict(selfref_dict())",
    "api/congsim.load(123)",
    'api/congsim.loads(b"bytes")',
]


def test_the_corpus_is_large_and_its_ids_are_unique_and_readable():
    everything = cases.corpus()
    assert len(everything) >= 700
    ids = [case.id for case in everything]
    assert len(set(ids)) == len(ids)
    assert all(case_id.isprintable() for case_id in ids)
    kinds = Counter(case.kind for case in everything)
    assert all(kinds[kind] >= 50 for kind in cases.KINDS), kinds
    expected = Counter(case.expected for case in everything)
    assert expected[cases.REFUSED] > expected[cases.ACCEPTED] > 50, expected
    missing = [case_id for case_id in NAMED_IN_THE_ISSUE if case_id not in ids]
    assert not missing, missing


def test_the_classification_names_each_kind_of_failure():
    case = cases.Case(id="cli/x", kind="cli", expected=cases.REFUSED, mentions=("tcp.window",))

    def classify(code: int, out: str = "", err: str = "", timed_out: bool = False) -> str:
        return harness.classify_cli(case, code, out, err, timed_out, case.mentions)[0]

    assert classify(2, err="error: a.toml: tcp.window: must be 1 to 1073741824\n") == "clean-refusal"
    assert classify(2, err="error: a.toml: something else\n") == "unclear-message"
    assert classify(2, err="error: a.toml: tcp.window: x\nerror: again\n") == "unclear-message"
    assert classify(2, err="error: a.toml: tcp.window: \x1b[2J\n") == "unsafe-output"
    assert classify(0) == "nonsense-accepted"
    assert classify(1, err="Traceback (most recent call last):\n  ...\nKeyError: 'x'\n") == "traceback"
    assert classify(-6, err="thread 'main' panicked at src/x.rs:1:1:\nboom\n") == "panic"
    assert classify(-6, err="memory allocation of 595200248 bytes failed\n") == "oom"
    assert classify(-9) == "abort"
    assert classify(1) == "bad-exit"
    assert classify(0, timed_out=True) == "hang"
    accepted = cases.Case(id="cli/y", kind="cli", expected=cases.ACCEPTED)
    assert harness.classify_cli(accepted, 2, "", "error: no\n", False, ())[0] == "wrong-refusal"
    warned = cases.Case(id="cli/z", kind="cli", expected=cases.WARNING, mentions=("links[0]",))
    assert harness.classify_cli(warned, 0, "", "", False, warned.mentions)[0] == "nonsense-accepted"
    assert harness.classify_cli(warned, 0, "", "warning: f: links[0]: x\n", False, warned.mentions)[0] == (
        "accepted-with-warning"
    )
    assert harness._death(-6, "memory allocation of 8 bytes failed\n")[0] == "oom"
    assert harness._death(-11, "")[0] == "abort"


def test_every_bad_input_ends_cleanly():
    results = harness.run_corpus(cases.corpus(), jobs=2)
    if not all(r.clean for r in results):
        pytest.fail(harness.summary(results), pytrace=False)
