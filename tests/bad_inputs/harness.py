"""Runs the bad-input corpus (`cases.py`) and classifies every outcome.

    .venv/bin/python tests/bad_inputs/harness.py [--filter SUBSTR] [--kind KIND] [--jobs 2] [--json FILE]

Python-level cases (scenario, plan, api) run one after another in a child process whose
address space is limited to 4 GiB (RLIMIT_AS); it prints a JSON line as each case starts and
ends. The parent gives each case its time limit (20 s unless the case says otherwise): a child
that overruns it, or dies (a signal, an abort, Rust's "memory allocation failed"), is recorded
as `hang`, `abort` or `oom` for that case and ended, and a new child goes on from the next
case. Command-line cases run as `python -m congsim ...` processes under the same memory limit
and their own time limit, `--jobs` at a time, each in a new folder.

Outcomes: `clean-refusal`, `accepted`, `accepted-with-warning` are clean when they are what the
case expects; the failures are `panic`, `traceback`, `abort`, `bad-exit` (an exit status other
than 0 or 2), `hang`, `oom`, `unexpected-exception` (an exception other than the clean ones:
AttributeError, OverflowError, RecursionError, ...), `nonsense-accepted` (expected refused,
or a warning that did not come), `wrong-refusal` (expected accepted), `unclear-message` (the
message does not name the field or argument, or the command line printed more than one
`error:` line) and `unsafe-output` (a raw control character, such as ESC, in what was printed
or raised).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import cases as corpus_module  # noqa: E402
from cases import ACCEPTED, REFUSED, SAFE, WARNING, Case  # noqa: E402

MEMORY_LIMIT = 4 * 2**30
#: Seconds a new child may take to start (import congsim, build the corpus) before its first case.
CHILD_START_S = 120.0

CLEAN = ("clean-refusal", "accepted", "accepted-with-warning")
FAILURES = (
    "panic",
    "traceback",
    "abort",
    "bad-exit",
    "hang",
    "oom",
    "unexpected-exception",
    "nonsense-accepted",
    "wrong-refusal",
    "unclear-message",
    "unsafe-output",
)
PANIC_MARKS = ("panicked at", "RUST_BACKTRACE", "PanicException")
OOM_MARKS = ("memory allocation of", "MemoryError", "Cannot allocate memory", "out of memory")
#: Characters that must never reach a terminal or a message raw.
UNSAFE = {chr(c) for c in range(32) if chr(c) not in "\n\t"} | {chr(c) for c in range(0x7F, 0xA0)}
UNSAFE |= {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"}


@dataclass
class Result:
    id: str
    kind: str
    expected: str
    outcome: str
    detail: str
    seconds: float

    @property
    def clean(self) -> bool:
        return self.outcome in CLEAN


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def unsafe_chars(text: str) -> list[str]:
    return sorted({f"U+{ord(ch):04X}" for ch in text if ch in UNSAFE})


def one_line(text: str, width: int = 300) -> str:
    """`text` shortened to one printable line, for details."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text.replace("\n", " | "))
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def missing_mentions(message: str, mentions: tuple[str, ...]) -> list[str]:
    """The mentions (`a|b`: either) that `message` does not contain."""
    return [m for m in mentions if not any(alt in message for alt in m.split("|"))]


def judge_refusal(case: Case, message: str, mentions: tuple[str, ...]) -> tuple[str, str]:
    """The outcome of a clean refusal with `message`."""
    if case.expected in (ACCEPTED, WARNING):
        return "wrong-refusal", one_line(message)
    unsafe = unsafe_chars(message)
    if unsafe:
        return "unsafe-output", f"raw {', '.join(unsafe)} in: {one_line(message)}"
    missing = missing_mentions(message, mentions)
    if missing:
        return "unclear-message", f"does not name {' / '.join(missing)}: {one_line(message)}"
    return "clean-refusal", one_line(message, 200)


def judge_acceptance(case: Case, warnings: list[str], detail: str = "") -> tuple[str, str]:
    """The outcome of an accepted input that gave `warnings`."""
    warned = " | ".join(warnings)
    if case.expected == REFUSED:
        return "nonsense-accepted", (
            f"with warnings: {one_line(warned)}" if warnings else "no warning"
        ) + detail
    if case.expected == WARNING:
        if not warnings:
            return "nonsense-accepted", "accepted without the expected warning" + detail
        missing = missing_mentions(warned, case.mentions)
        if missing:
            return "unclear-message", f"the warning does not name {' / '.join(missing)}: {one_line(warned)}"
    unsafe = unsafe_chars(warned)
    if unsafe:
        return "unsafe-output", f"raw {', '.join(unsafe)} in the warnings: {one_line(warned)}"
    return ("accepted-with-warning" if warnings else "accepted"), one_line(warned or detail.strip(), 200)


# ---------------------------------------------------------------------------------------------
# Fixtures: valid files the cases refer to, written once per harness run.


def write_fixtures(folder: Path) -> Path:
    """`ip.toml`, `plan.toml` (two runs over ip.toml), `trace.toml` and `trace_run/` (a run
    with a sequence trace, for plot-sequence)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ip.toml").write_text(corpus_module.dumps(corpus_module.IP), encoding="utf-8")
    (folder / "plan.toml").write_text(corpus_module.plan_text(), encoding="utf-8")
    trace = corpus_module.with_value(corpus_module.IP, "metrics.sequence_trace", True)
    (folder / "trace.toml").write_text(corpus_module.dumps(trace), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "congsim",
            "run",
            str(folder / "trace.toml"),
            "--out",
            str(folder / "trace_run"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=case_environment({}),
    )
    if done.returncode != 0:
        print(f"warning: the trace fixture did not run: {done.stderr[-500:]}", file=sys.stderr)
    return folder


def write_file(path: Path, content: Any) -> None:
    """A case's file: text, bytes, or `("repeat", head, filler, size)` written in pieces."""
    if isinstance(content, tuple) and content[0] == "repeat":
        _, head, filler, size = content
        with path.open("wb") as file:
            head_bytes = head.encode()
            file.write(head_bytes)
            left = size - len(head_bytes)
            block = filler * (2**20 // len(filler))
            while left > 0:
                part = block[: min(left, len(block))]
                file.write(part)
                left -= len(part)
            file.write(b"\n")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def file_name(name: str) -> str:
    return name if "." in name else f"{name}.toml"


def case_environment(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CONGSIM_LIMITS"}
    env.update(extra)
    return env


@contextlib.contextmanager
def environment(extra: dict[str, str]) -> Iterator[None]:
    """`extra` in os.environ for the duration (CONGSIM_LIMITS is read at each call)."""
    saved = {k: os.environ.get(k) for k in {*extra, "CONGSIM_LIMITS"}}
    os.environ.pop("CONGSIM_LIMITS", None)
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ---------------------------------------------------------------------------------------------
# The child: Python-level cases, one after another.


def _selfref_dict() -> dict[str, Any]:
    looped: dict[str, Any] = {"simulation": {}}
    looped["simulation"] = looped
    return looped


def _selfref_list() -> list[Any]:
    looped: list[Any] = []
    looped.append(looped)
    return looped


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def api_namespace(fixtures: Path) -> dict[str, Any]:
    """The names an `api` case's expression may use."""
    import copy
    import datetime
    import types
    from dataclasses import replace
    from decimal import Decimal

    import numpy as np

    import congsim
    import congsim.sweep as sweep

    scenario_path = str(fixtures / "ip.toml")
    scenario = congsim.load(scenario_path)
    return {
        "congsim": congsim,
        "sweep": sweep,
        "S": scenario,
        "P": scenario_path,
        "TEXT": scenario.text,
        "IP_DICT": copy.deepcopy(corpus_module.IP),
        "PLAN": sweep.load_plan(fixtures / "plan.toml"),
        "PLAN_FILE": fixtures / "plan.toml",
        "PLAN_TEXT": (fixtures / "plan.toml").read_text(encoding="utf-8"),
        "TMP_FIXTURES": fixtures,
        "AXES_OF_10_TO_THE_9_RUNS": {
            name: list(range(1, 1001))
            for name in ("tcp.window", "tcp.initial_window", "links[0].queue.limit_packets")
        },
        "R": congsim.run(scenario),
        "Path": Path,
        "np": np,
        "datetime": datetime,
        "types": types,
        "Decimal": Decimal,
        "replace": replace,
        "selfref_dict": _selfref_dict,
        "selfref_list": _selfref_list,
        "nested": _nested,
    }


class Refused(Exception):
    """An accepted plan whose runs failed (judged as a refusal)."""


def execute(case: Case, folder: Path, namespace: Callable[[], dict[str, Any]]) -> tuple[list[str], str]:
    """Runs one Python-level case; returns the warnings and a note, or raises what congsim
    raised."""
    import congsim

    if case.kind == "scenario":
        if case.path is not None:
            scenario = congsim.load(case.path)
        elif case.data is not None:
            path = folder / "bad.toml"
            write_file(path, case.data)
            scenario = congsim.load(path)
        else:
            assert case.text is not None
            scenario = congsim.loads(case.text, "bad.toml", case.overrides)
        if not case.run:
            return [], " (validated, not run)"
        results = congsim.run(scenario)
        return list(results.warnings), f" (ran: {len(results.flows)} flows)"
    if case.kind == "plan":
        from congsim.sweep import loads_plan, run_sweep

        for name, content in case.files.items():
            write_file(folder / name, content)
        assert case.text is not None
        plan = loads_plan(case.text, "plan.toml", folder)
        if not case.run:
            return [], " (loaded, not run)"
        outcome = run_sweep(plan, folder / "out", workers=1)
        if outcome.failures:
            raise Refused(f"{len(outcome.failures)} runs failed: {next(iter(outcome.failures.values()))}")
        return [], f" (swept: {len(outcome.runs)} runs)"
    assert case.kind == "api" and case.expr is not None
    names = namespace()
    names["TMP"] = folder
    value = eval(compile(case.expr, case.id, "eval"), names)
    shown = repr(value)
    return [], f" -> {one_line(shown, 80)}"


def classify_exception(case: Case, error: BaseException, stderr: str) -> tuple[str, str]:
    name = type(error).__name__
    message = str(error)
    if name == "PanicException" or any(mark in stderr for mark in PANIC_MARKS):
        return "panic", one_line(f"{name}: {message} | {stderr[-400:]}")
    if isinstance(error, MemoryError) or "memory allocation of" in stderr:
        return "oom", one_line(f"{name}: {message}")
    clean = isinstance(error, TypeError | ValueError | Refused) and not isinstance(error, RecursionError)
    clean = clean or any(base.__name__ in case.raises for base in type(error).__mro__)
    if not clean:
        where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
        at = f" at {Path(where.filename).name}:{where.lineno}" if where else ""
        return "unexpected-exception", one_line(f"{name}{at}: {message}")
    outcome, detail = judge_refusal(case, message, case.mentions)
    return outcome, f"{name}: {detail}"


def child_main(fixtures: Path, workdir: Path, stderr_path: Path) -> None:
    """Runs the cases whose ids come on standard input (a JSON list), printing a JSON line as
    each starts and ends."""
    limit_memory()
    os.chdir(workdir)
    ids = json.loads(sys.stdin.read())
    by_id = {case.id: case for case in corpus_module.corpus()}
    names: dict[str, Any] = {}

    def namespace() -> dict[str, Any]:
        if not names:
            names.update(api_namespace(fixtures))
        return names

    out = sys.stdout
    for case_id in ids:
        case = by_id[case_id]
        print(json.dumps({"event": "start", "id": case_id}), file=out, flush=True)
        folder = Path(tempfile.mkdtemp(dir=workdir, prefix="case-"))
        sys.stderr.flush()
        stderr_start = stderr_path.stat().st_size
        started = time.perf_counter()
        error: BaseException | None = None
        warnings: list[str] = []
        note = ""
        try:
            # In the case's folder: a call that writes to "" or "." writes there.
            os.chdir(folder)
            with environment(case.env):
                warnings, note = execute(case, folder, namespace)
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            error = e
        seconds = time.perf_counter() - started
        os.chdir(workdir)
        sys.stderr.flush()
        with stderr_path.open("rb") as file:
            file.seek(stderr_start)
            stderr = file.read().decode("utf-8", "replace")
        if error is not None:
            outcome, detail = classify_exception(case, error, stderr)
        elif any(mark in stderr for mark in PANIC_MARKS):
            outcome, detail = "panic", one_line(stderr[-400:])
        else:
            outcome, detail = judge_acceptance(case, warnings, note)
        shutil.rmtree(folder, ignore_errors=True)
        line = {"event": "end", "id": case_id, "outcome": outcome, "detail": detail, "seconds": seconds}
        print(json.dumps(line), file=out, flush=True)


def run_python_cases(
    todo: list[Case], fixtures: Path, workdir: Path, record: Callable[[Result], None]
) -> None:
    """Runs `todo` in child processes, a new one after each death or overrun."""
    by_id = {case.id: case for case in todo}
    pending = [case.id for case in todo]
    done: set[str] = set()
    while pending:
        stderr_file = tempfile.NamedTemporaryFile(dir=workdir, prefix="child-stderr-", delete=False)
        stderr_path = Path(stderr_file.name)
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", str(fixtures), str(workdir), str(stderr_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            env=case_environment({}),
            start_new_session=True,
        )
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(pending).encode())
        child.stdin.close()
        current: str | None = None
        current_start = 0.0
        deadline = time.monotonic() + CHILD_START_S
        buffer = b""
        fd = child.stdout.fileno()
        ended = False
        while not ended:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                stuck = current or pending[0]
                _end_child(child)
                limit = by_id[stuck].limit_s if current else CHILD_START_S
                seconds = time.monotonic() - current_start if current else CHILD_START_S
                record(_result(by_id[stuck], "hang", f"still running after {limit:g} s", seconds))
                done.add(stuck)
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = child.wait()
                if current is not None:
                    stderr = stderr_path.read_text(encoding="utf-8", errors="replace")
                    outcome, detail = _death(code, stderr)
                    record(_result(by_id[current], outcome, detail, time.monotonic() - current_start))
                    done.add(current)
                elif any(i not in done for i in pending):
                    stderr = stderr_path.read_text(encoding="utf-8", errors="replace")
                    raise RuntimeError(
                        f"the case runner ended with status {code} before a case: {stderr[-2000:]}"
                    )
                ended = True
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                message = json.loads(raw)
                if message["event"] == "start":
                    current = message["id"]
                    current_start = time.monotonic()
                    deadline = current_start + by_id[current].limit_s
                else:
                    case = by_id[message["id"]]
                    record(_result(case, message["outcome"], message["detail"], message["seconds"]))
                    done.add(message["id"])
                    current = None
                    deadline = time.monotonic() + CHILD_START_S
        child.stdout.close()
        if child.poll() is None:
            _end_child(child)
        stderr_file.close()
        stderr_path.unlink(missing_ok=True)
        pending = [i for i in pending if i not in done]


def _end_child(child: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def key_lines(stderr: str) -> str:
    """What matters in a dead process's stderr: the allocation failure or panic line and the
    first frames in congsim's own code (a backtrace is long), else its end."""
    lines = stderr.splitlines()
    marks = [line for line in lines if any(m in line for m in (*OOM_MARKS, "panicked at", "Error", "error"))]
    frames = [line.strip() for line in lines if "congsim" in line and ": " in line and "at /" not in line]
    if marks:
        return one_line(" | ".join([*marks[:2], *frames[:3]]), 500)
    return one_line(stderr[-600:])


def _death(code: int, stderr: str) -> tuple[str, str]:
    """The outcome of a child that died during a case."""
    tail = key_lines(stderr)
    how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
    if any(mark in stderr for mark in OOM_MARKS):
        return "oom", f"{how}: {tail}"
    if "panicked at" in stderr:
        return "panic", f"{how}: {tail}"
    return "abort", f"{how}: {tail}"


def _result(case: Case, outcome: str, detail: str, seconds: float) -> Result:
    return Result(case.id, case.kind, case.expected, outcome, detail, round(seconds, 3))


# ---------------------------------------------------------------------------------------------
# Command-line cases.


def substitute(text: str, paths: dict[str, Path]) -> str:
    for name, path in paths.items():
        text = text.replace(f"{{{name}}}", str(path))
    return text


def run_cli_case(case: Case, fixtures: Path, workdir: Path) -> Result:
    folder = Path(tempfile.mkdtemp(dir=workdir, prefix="cli-"))
    paths = {
        "ip": fixtures / "ip.toml",
        "plan": fixtures / "plan.toml",
        "trace_run": fixtures / "trace_run",
    }
    for name, content in case.files.items():
        path = folder / file_name(name)
        write_file(path, content)
        paths[name] = path
    paths["tmp"] = folder
    args = [substitute(a, paths) for a in case.args]
    mentions = tuple(substitute(m, paths) for m in case.mentions)
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "congsim", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=folder,
        env=case_environment(case.env),
        preexec_fn=limit_memory,
        start_new_session=True,
    )
    try:
        out_bytes, err_bytes = child.communicate(timeout=case.limit_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        _end_child(child)
        out_bytes, err_bytes = child.communicate()
        timed_out = True
    seconds = time.monotonic() - started
    # Anything the command started in its session (sweep workers) ends with it.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)
    out = out_bytes.decode("utf-8", "replace")
    err = err_bytes.decode("utf-8", "replace")
    outcome, detail = classify_cli(case, child.returncode, out, err, timed_out, mentions)
    return _result(case, outcome, detail, seconds)


def classify_cli(
    case: Case, code: int, out: str, err: str, timed_out: bool, mentions: tuple[str, ...]
) -> tuple[str, str]:
    both = out + err
    if timed_out:
        errors = [line for line in err.splitlines() if line.strip() and not line.startswith(" ")]
        shown = (
            f"; it had printed a traceback ending {one_line(errors[-1], 160)}" if "Traceback" in err else ""
        )
        return "hang", f"still running after {case.limit_s:g} s{shown}"
    if any(mark in both for mark in OOM_MARKS):
        return "oom", f"exit status {code}: {key_lines(err)}"
    if any(mark in both for mark in PANIC_MARKS):
        return "panic", f"exit status {code}: {key_lines(err)}"
    if "Traceback (most recent call last)" in both:
        lines = [line for line in err.splitlines() if line.strip()]
        frames = [line.strip() for line in lines if line.strip().startswith("File ") and "/congsim/" in line]
        where = f"in {frames[-1].split('/congsim/')[-1]}: " if frames else ""
        return "traceback", one_line(where + (lines[-1] if lines else ""))
    if code < 0:
        return "abort", f"killed by {signal.Signals(-code).name}: {one_line(err[-300:])}"
    if code not in (0, 2):
        return "bad-exit", f"exit status {code}: {one_line(err[-300:])}"
    lines = err.splitlines()
    warnings = [line for line in lines if line.startswith("warning:")]
    if code == 2:
        errors = [line for line in lines if line.startswith("error:")]
        others = [line for line in lines if not line.startswith(("error:", "warning:"))]
        if case.expected in (ACCEPTED, WARNING):
            return "wrong-refusal", one_line(err)
        if len(errors) != 1 or others:
            return "unclear-message", f"{len(errors)} error lines, {len(others)} other lines: {one_line(err)}"
        unsafe = unsafe_chars(both)
        if unsafe:
            return "unsafe-output", f"raw {', '.join(unsafe)} in the output: {one_line(err)}"
        return judge_refusal(case, errors[0], mentions)
    unsafe = unsafe_chars(both)
    if unsafe:
        return "unsafe-output", f"raw {', '.join(unsafe)} in the output: {one_line(both[-300:])}"
    return judge_acceptance(case, [w.removeprefix("warning: ") for w in warnings])


# ---------------------------------------------------------------------------------------------
# The whole corpus.


def run_corpus(
    cases: list[Case], jobs: int = 2, progress: Callable[[Result], None] | None = None
) -> list[Result]:
    """Every case's result, in corpus order."""
    results: dict[str, Result] = {}
    lock = threading.Lock()

    def record(result: Result) -> None:
        with lock:
            results[result.id] = result
            if progress is not None:
                progress(result)

    with tempfile.TemporaryDirectory(prefix="congsim-bad-inputs-") as temporary:
        workdir = Path(temporary)
        fixtures = write_fixtures(workdir / "fixtures")
        python_cases = [c for c in cases if c.kind != "cli"]
        cli_cases = [c for c in cases if c.kind == "cli"]
        python_thread = threading.Thread(
            target=run_python_cases, args=(python_cases, fixtures, workdir, record), name="python-cases"
        )
        python_thread.start()
        try:
            with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
                for result in pool.map(lambda c: run_cli_case(c, fixtures, workdir), cli_cases):
                    record(result)
        finally:
            python_thread.join()
    missing = [c.id for c in cases if c.id not in results]
    if missing:
        raise RuntimeError(f"{len(missing)} cases have no result, the first: {missing[0]}")
    return [results[c.id] for c in cases]


def summary(results: list[Result], seconds: float | None = None) -> str:
    counts = Counter(r.outcome for r in results)
    lines = [f"{len(results)} cases" + (f" in {seconds:.1f} s" if seconds is not None else "")]
    for outcome in (*CLEAN, *FAILURES):
        if counts.get(outcome):
            lines.append(f"  {outcome:24} {counts[outcome]:5}")
    failing = [r for r in results if not r.clean]
    if failing:
        lines.append(f"\n{len(failing)} failing cases, by outcome:")
        for outcome in FAILURES:
            group = [r for r in failing if r.outcome == outcome]
            if group:
                lines.append(f"\n== {outcome} ({len(group)})")
                lines += [f"  {r.id}\n      {r.detail} [{r.seconds:.2f} s]" for r in group]
    slow = sorted(results, key=lambda r: -r.seconds)[:5]
    lines.append("\nslowest: " + ", ".join(f"{r.id} {r.seconds:.1f} s" for r in slow))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--filter", default="", help="only cases whose id contains this text")
    parser.add_argument("--kind", choices=corpus_module.KINDS, help="only cases of this kind")
    parser.add_argument("--jobs", type=int, default=2, help="command-line cases run at once")
    parser.add_argument("--json", type=Path, help="also write every result here (JSON lines)")
    parser.add_argument("--verbose", action="store_true", help="print each result as it comes")
    parser.add_argument("--child", nargs=3, metavar=("FIXTURES", "WORKDIR", "STDERR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_main(*(Path(p) for p in args.child))
        return 0
    cases = [
        c
        for c in corpus_module.corpus()
        if args.filter in c.id and (args.kind is None or c.kind == args.kind)
    ]
    started = time.perf_counter()

    def show(result: Result) -> None:
        if args.verbose or not result.clean:
            mark = "ok " if result.clean else "BAD"
            print(f"{mark} {result.outcome:22} {result.id}  [{result.seconds:.2f} s]", flush=True)

    results = run_corpus(cases, args.jobs, show)
    elapsed = time.perf_counter() - started
    print()
    print(summary(results, elapsed))
    if args.json:
        with args.json.open("w", encoding="utf-8") as file:
            for result in results:
                file.write(json.dumps(asdict(result)) + "\n")
    return 0 if all(r.clean for r in results) else 1


__all__ = ["ACCEPTED", "REFUSED", "SAFE", "WARNING", "Result", "run_corpus", "summary"]

if __name__ == "__main__":
    sys.exit(main())
