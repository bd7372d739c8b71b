"""Dask scheduler addresses (issue #27 point 4): a malformed address is refused before any
connection, and every failure to reach a scheduler, even a peer that accepts the connection and
then says nothing, is one line within the deadline (`CONGSIM_DASK_TIMEOUT`, default 5 s)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from congsim.sweep import SchedulerError, load_plan, run_sweep, runner
from congsim.sweep import dask_address as da

#: What a check may take beyond its deadline (thread start, closing an event loop, a slow CI).
SLACK_S = 1.0


@pytest.fixture(autouse=True)
def default_deadline(monkeypatch):
    monkeypatch.delenv(da.TIMEOUT_VARIABLE, raising=False)


# The parser: no connection is tried.

BAD = [
    ("not-an-address", "not an address"),
    ("tcp://[::1:8786", "brackets"),
    ("http://127.0.0.1:8786", "scheme"),
    ("https://head:8787", "scheme"),
    ("udp://head:8786", "scheme"),
    ("inproc://head:8786", "scheme"),
    ("ucx://head:8786", "scheme"),
    ("://head:8786", "scheme"),
    ("tcp:/head:8786", "not an address"),
    ("", "empty"),
    ("tcp://127.0.0.1:0", "1 to 65535"),
    ("tcp://127.0.0.1:70000", "1 to 65535"),
    ("tcp://127.0.0.1:65536", "1 to 65535"),
    ("tcp://127.0.0.1:" + "9" * 5000, "1 to 65535"),
    ("tcp://127.0.0.1:-1", "1 to 65535"),
    ("tcp://127.0.0.1:+80", "1 to 65535"),
    ("tcp://127.0.0.1:80a", "1 to 65535"),
    ("tcp://127.0.0.1:\u0663", "1 to 65535"),  # an Arabic-Indic digit: isdigit(), not a port
    ("tcp://127.0.0.1", "port is missing"),
    ("tcp://127.0.0.1:", "port is missing"),
    ("tcp://[::1]", "port is missing"),
    ("tcp://:8786", "host is missing"),
    (":8786", "host is missing"),
    ("tcp://[]:8786", "host is missing"),
    ("tcp://::1:8786", "brackets"),
    ("tcp://[::1]]:8786", "brackets"),
    ("tcp://]::1[:8786", "brackets"),
    ("tcp://[::1]8786", "':PORT'"),
    ("tcp://[not-v6]:8786", "not an IPv6 address"),
    ("tcp://999.1.1.1:8786", "not an IPv4 address"),
    ("tcp://-head:8786", "not a host name"),
    ("tcp://he*ad:8786", "not a host name"),
    ("tcp://" + "a" * 300 + ":8786", "not a host name"),
    ("tcp://head:8786/", "a path"),
    ("tcp://head:8786/status", "a path"),
    ("tcp://user@head:8786", "a user name"),
    ("tcp://head:8786?x=1", "a query"),
    ("head:8786:1", "brackets"),
    (" tcp://127.0.0.1:8786", "spaces"),
    ("tcp://127.0.0.1:8786 ", "spaces"),
    ("tcp://127.0.0.1 :8786", "spaces"),
    ("tcp://127.0.0.1:\t8786", "spaces"),
    ("tcp://head\n:8786", "control characters"),
    ("tcp://\x1b[31m:1", "control characters"),
    ("tcp://head\x00:8786", "control characters"),
    ("tcp://head:8786\u202e", "control characters"),
]


@pytest.mark.parametrize(("address", "problem"), BAD, ids=[ascii(a)[:60] for a, _ in BAD])
def test_a_malformed_address_is_one_line_naming_it_and_what_is_allowed(address, problem):
    with pytest.raises(SchedulerError) as raised:
        da.parse_scheduler_address(address)
    message = str(raised.value)
    assert message.isprintable() and "\n" not in message
    assert message.startswith("--scheduler '")
    assert problem in message
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in address)
    assert shown[:100] in message
    assert len(message) < 600


def test_a_bad_scheme_lists_the_allowed_ones():
    with pytest.raises(SchedulerError, match=r"one of tcp://, tls://, ws://, wss://") as raised:
        da.parse_scheduler_address("http://127.0.0.1:8786")
    assert "dashboard" in str(raised.value)


@pytest.mark.parametrize("value", [5, None, b"tcp://127.0.0.1:8786", ["tcp://127.0.0.1:8786"]])
def test_neither_an_address_nor_a_client(value):
    with pytest.raises(SchedulerError, match=r"--scheduler .*must be an address .*or a distributed\.Client"):
        da.parse_scheduler_address(value)


GOOD = [
    ("tcp://127.0.0.1:8786", "tcp", "127.0.0.1", 8786, "tcp://127.0.0.1:8786"),
    ("127.0.0.1:8786", "tcp", "127.0.0.1", 8786, "tcp://127.0.0.1:8786"),
    ("localhost:1", "tcp", "localhost", 1, "tcp://localhost:1"),
    ("tcp://head:65535", "tcp", "head", 65535, "tcp://head:65535"),
    ("tcp://node_7.cluster.example.org:08786", "tcp", "node_7.cluster.example.org", 8786, None),
    ("TCP://Head:8786", "tcp", "Head", 8786, "tcp://Head:8786"),
    ("tls://head.example.org:8786", "tls", "head.example.org", 8786, "tls://head.example.org:8786"),
    ("ws://head:80", "ws", "head", 80, "ws://head:80"),
    ("wss://head:443", "wss", "head", 443, "wss://head:443"),
    ("tcp://[::1]:8786", "tcp", "::1", 8786, "tcp://[::1]:8786"),
    ("[::1]:8786", "tcp", "::1", 8786, "tcp://[::1]:8786"),
    ("tls://[2001:db8::7]:8786", "tls", "2001:db8::7", 8786, "tls://[2001:db8::7]:8786"),
    ("tcp://[fe80::1%eth0]:8786", "tcp", "fe80::1%eth0", 8786, "tcp://[fe80::1%eth0]:8786"),
]


@pytest.mark.parametrize(("address", "scheme", "host", "port", "canonical"), GOOD, ids=[g[0] for g in GOOD])
def test_well_formed_addresses(address, scheme, host, port, canonical):
    parsed = da.parse_scheduler_address(address)
    assert (parsed.scheme, parsed.host, parsed.port) == (scheme, host, port)
    assert str(parsed) == (canonical or f"{scheme}://{host}:{port}")
    assert da.parse_scheduler_address(str(parsed)) == parsed


def test_the_schemes_are_ones_distributed_connects_with():
    registry = pytest.importorskip("distributed.comm.registry")
    for scheme in da.SCHEMES:
        assert registry.get_backend(scheme).get_connector() is not None


# The deadline.


def test_the_deadline_is_5_s_unless_the_environment_or_the_caller_says_otherwise(monkeypatch):
    assert da.timeout_seconds() == da.DEFAULT_TIMEOUT_S == 5.0
    monkeypatch.setenv(da.TIMEOUT_VARIABLE, "2.5")
    assert da.timeout_seconds() == 2.5
    assert da.timeout_seconds(0.25) == 0.25
    assert da.timeout_seconds(environ={da.TIMEOUT_VARIABLE: " 30 "}) == 30.0


@pytest.mark.parametrize("text", ["", "abc", "5s", "0", "-1", "nan", "inf", "1e9", "\x1b[2J"])
def test_a_bad_deadline_in_the_environment_is_one_line(monkeypatch, text):
    monkeypatch.setenv(da.TIMEOUT_VARIABLE, text)
    with pytest.raises(SchedulerError, match=rf"^{da.TIMEOUT_VARIABLE}=.*a number of seconds") as raised:
        da.timeout_seconds()
    assert str(raised.value).isprintable()
    # Before any connection: the address is a good one.
    with pytest.raises(SchedulerError, match=da.TIMEOUT_VARIABLE):
        da.connect("tcp://127.0.0.1:8786")


@pytest.mark.parametrize(
    ("value", "error"), [(0, ValueError), (-1.0, ValueError), (1e9, ValueError), ("5", TypeError)]
)
def test_a_bad_deadline_argument(value, error):
    with pytest.raises(error, match="timeout"):
        da.timeout_seconds(value)


# Connecting: every failure is one line, within the deadline.


def _serve(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """A TCP server on localhost whose every connection is given to `answer` in a thread of
    its own; yields its address."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()
    connections: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connections.append(connection)
            threading.Thread(target=answer, args=(connection,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        server.close()
        for connection in connections:
            connection.close()


def _say_nothing(connection: socket.socket) -> None:
    """Accepts and never writes (nor closes)."""


def _http_400(connection: socket.socket) -> None:
    """An HTTP server: reads the request, answers 400 and closes."""
    try:
        connection.settimeout(5)
        connection.recv(65536)
        connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _banner_then_silence(connection: socket.socket) -> None:
    """Speaks first, as SSH does: a plausible start of a Dask message (1000 bytes follow), a few
    bytes of it, then nothing."""
    try:
        connection.sendall((1000).to_bytes(8, "little") + b"SSH-2.0")
    except OSError:
        pass


@pytest.fixture
def silent() -> Iterator[str]:
    yield from _serve(_say_nothing)


@pytest.fixture
def http() -> Iterator[str]:
    yield from _serve(_http_400)


@pytest.fixture
def banner() -> Iterator[str]:
    yield from _serve(_banner_then_silence)


@pytest.fixture
def refused() -> str:
    """An address where nothing listens: a port just bound and closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def _fails(address: str, timeout: float | None = None) -> tuple[str, float]:
    pytest.importorskip("distributed")
    started = time.monotonic()
    with pytest.raises(SchedulerError) as raised:
        da.connect(address, timeout=timeout)
    elapsed = time.monotonic() - started
    message = str(raised.value)
    assert message.isprintable() and "\n" not in message, message
    assert address in message
    return message, elapsed


def test_a_refused_connection_is_reported_at_once(refused):
    message, elapsed = _fails(refused)
    assert "refused" in message
    assert elapsed < 5.0


def test_a_listener_that_never_answers_is_reported_at_the_deadline(silent):
    message, elapsed = _fails(silent)
    assert "within 5 s" in message and "Dask's protocol" in message and da.TIMEOUT_VARIABLE in message
    assert 4.5 < elapsed < 5.0 + SLACK_S


def test_the_deadline_comes_from_the_environment(silent, monkeypatch):
    monkeypatch.setenv(da.TIMEOUT_VARIABLE, "1")
    message, elapsed = _fails(silent)
    assert "within 1 s" in message
    assert elapsed < 1.0 + SLACK_S


def test_an_http_server_is_not_a_scheduler(http):
    message, elapsed = _fails(http)
    assert "not Dask's handshake" in message
    assert elapsed < 5.0


def test_a_server_that_speaks_first_and_stops_is_reported_at_the_deadline(banner):
    message, elapsed = _fails(banner, timeout=1.0)
    assert "within 1 s" in message
    assert elapsed < 1.0 + SLACK_S


def test_a_host_that_does_not_resolve():
    message, elapsed = _fails("tcp://no-such-host.invalid:8786")
    assert "resolve" in message
    assert elapsed < 5.0 + SLACK_S


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    distributed = pytest.importorskip("distributed")
    # In this process (quick to start), but over TCP as a remote cluster is.
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        protocol="tcp://",
        host="127.0.0.1",
        dashboard_address=None,
    ) as local:
        yield local


def test_a_real_scheduler_is_connected_to(cluster):
    address = cluster.scheduler_address
    client = da.connect(address)
    try:
        assert client.status == "running"
        assert client.submit(sum, [1, 2]).result() == 3
    finally:
        client.close()


def test_a_worker_is_not_the_scheduler(cluster):
    worker = next(iter(cluster.scheduler_info["workers"]))
    message, _ = _fails(worker)
    assert "a Dask worker answers there, not a Dask scheduler" in message


def test_a_version_mismatch_is_one_line(cluster, monkeypatch):
    """With warnings as errors (as here), distributed's VersionMismatchWarning is a failure: one
    line naming the packages, not a table in a traceback."""
    versions = pytest.importorskip("distributed.versions")
    real = versions.get_versions

    def other_dask(packages=None):
        found = real(packages)
        return {**found, "packages": {**found["packages"], "dask": "1999.1.0"}}

    # The in-process scheduler and this client report the fake version; the worker, the real one.
    monkeypatch.setattr(versions, "get_versions", other_dask)
    message, _ = _fails(cluster.scheduler_address)
    assert "versions of dask differ" in message


def test_a_client_that_starts_too_late_is_closed_when_it_starts():
    release, closed = threading.Event(), threading.Event()

    class Slow:
        def __init__(self, address, timeout, set_as_default):
            release.wait(10)

        def close(self):
            closed.set()

    where = da.parse_scheduler_address("tcp://127.0.0.1:8786")
    started = time.monotonic()
    with pytest.raises(SchedulerError, match=r"did not start within 0\.3 s"):
        da._client(Slow, where, 0.3, time.monotonic() + 0.3)
    assert time.monotonic() - started < 0.3 + SLACK_S
    release.set()
    assert closed.wait(5)


def test_a_client_that_fails_half_way_is_closed_and_one_line():
    closed = threading.Event()

    class Broken:
        def __init__(self, address, timeout, set_as_default):
            raise RuntimeError("first line\nsecond line")

        def close(self):
            closed.set()

    where = da.parse_scheduler_address("tcp://127.0.0.1:8786")
    with pytest.raises(SchedulerError, match=r"tcp://127\.0\.0\.1:8786: first line$"):
        da._client(Broken, where, 1.0, time.monotonic() + 1.0)
    assert closed.is_set()


# Through run_sweep and the command line.

PLAN = """
name = "tiny"
scenario = "{scenario}"
replications = 1
[set]
"simulation.duration" = "1s"
"""


@pytest.fixture
def plan(tmp_path, root) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(PLAN.format(scenario=root / "scenarios" / "single-flow.toml"))
    return path


@pytest.mark.parametrize("scheduler", ["http://127.0.0.1:8786", "tcp://127.0.0.1:0", ""])
def test_run_sweep_refuses_a_bad_scheduler_with_one_line(plan, tmp_path, scheduler):
    with pytest.raises(SchedulerError, match="--scheduler") as raised:
        run_sweep(load_plan(plan), tmp_path / "out", scheduler=scheduler)
    assert "\n" not in str(raised.value)
    assert runner.SchedulerError is SchedulerError  # its old home still has it


def test_the_runner_refuses_what_is_neither_an_address_nor_a_client():
    pytest.importorskip("distributed")
    with pytest.raises(SchedulerError, match=r"--scheduler '5\.0': must be an address"):
        with runner.started([], scheduler=5.0):
            pass


def test_a_client_object_is_used_as_it_is(plan, tmp_path, cluster):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(cluster, set_as_default=False) as client:
        outcome = run_sweep(load_plan(plan), tmp_path / "out", scheduler=client)
        assert client.status == "running"  # not closed: it is the caller's
    assert outcome.failures == {} and outcome.executed == 1


@pytest.fixture(scope="module")
def congsim_command() -> list[str]:
    command = Path(sys.executable).parent / "congsim"
    if not command.exists():
        pytest.skip(f"{command} is not installed")
    return [str(command)]


def _sweep_through(
    congsim_command, plan, out, address, **environment
) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_") and k != da.TIMEOUT_VARIABLE}
    command = [
        *congsim_command,
        "sweep",
        str(plan),
        "--out",
        str(out),
        "--executor",
        "dask",
        "--scheduler",
        address,
    ]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env={**env, **environment})
    return done, time.monotonic() - started


def _one_error_line(done: subprocess.CompletedProcess[str], elapsed: float) -> str:
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert done.stderr.endswith("\n")
    assert elapsed < 8.0
    return lines[0]


@pytest.mark.parametrize(
    "address", ["not-an-address", "tcp://[::1:8786", "http://127.0.0.1:8786", "tcp://:8786"]
)
def test_the_command_refuses_a_malformed_address_in_one_line(congsim_command, plan, tmp_path, address):
    done, elapsed = _sweep_through(congsim_command, plan, tmp_path / "out", address)
    assert address in _one_error_line(done, elapsed)


def test_the_command_gives_up_on_a_silent_listener_in_one_line(congsim_command, plan, tmp_path, silent):
    done, elapsed = _sweep_through(congsim_command, plan, tmp_path / "out", silent)
    line = _one_error_line(done, elapsed)
    assert silent in line and "within 5 s" in line


def test_the_command_reports_a_refused_connection_in_one_line(congsim_command, plan, tmp_path, refused):
    done, elapsed = _sweep_through(congsim_command, plan, tmp_path / "out", refused)
    assert "refused" in _one_error_line(done, elapsed)


def test_the_command_refuses_a_bad_deadline_in_one_line(congsim_command, plan, tmp_path, silent):
    done, elapsed = _sweep_through(
        congsim_command, plan, tmp_path / "out", silent, CONGSIM_DASK_TIMEOUT="soon"
    )
    assert da.TIMEOUT_VARIABLE in _one_error_line(done, elapsed)
