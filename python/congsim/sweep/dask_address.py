"""The address of a Dask scheduler: checked before any connection, then connected to within a
deadline, so that every mistake ends in one line (`SchedulerError`), never in a traceback or a
silent wait.

Accepted forms: `tcp://HOST:PORT`, `tls://HOST:PORT`, `ws://HOST:PORT`, `wss://HOST:PORT`, and
`HOST:PORT` alone for `tcp://HOST:PORT` (the schemes `distributed` can reach a remote scheduler
with); an IPv6 HOST goes in brackets: `tcp://[::1]:8786`.

Connecting, Dask's handshake and the scheduler's first answer must all happen within
`CONGSIM_DASK_TIMEOUT` seconds (default 5). `distributed` alone bounds the TCP connection but
not the handshake: a peer that accepts connections but never speaks Dask's protocol (a plain
server, the dashboard's HTTP port) would hold `distributed.Client(address)` forever. So the
address is first probed from a thread of its own, within the deadline; the `Client` is then
created, also within what is left of it, and a client left half-created is closed.
"""

from __future__ import annotations

import asyncio
import importlib
import ipaddress
import math
import os
import re
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from distributed import Client

#: The schemes of a remote scheduler's address that `distributed` connects with.
SCHEMES = ("tcp", "tls", "ws", "wss")
#: Seconds that connecting to a scheduler may take, unless `CONGSIM_DASK_TIMEOUT` says otherwise.
DEFAULT_TIMEOUT_S = 5.0
TIMEOUT_VARIABLE = "CONGSIM_DASK_TIMEOUT"
#: The longest deadline accepted (a day): longer ones are mistakes (or overflow timers).
MAX_TIMEOUT_S = 86_400.0
#: What an address may look like, as error messages say it.
FORMS = (
    "tcp://HOST:PORT, tls://HOST:PORT, ws://HOST:PORT, wss://HOST:PORT, or HOST:PORT for tcp://HOST:PORT "
    "(an IPv6 HOST in brackets: tcp://[::1]:8786)"
)

_HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")
_MAX_HOST_LEN = 253  # DNS
_SHOWN_LEN = 120  # characters of a bad address quoted in a message


class SchedulerError(ConnectionError):
    """A Dask scheduler's address is malformed, or no Dask scheduler answers there (in time)."""


@dataclass(frozen=True)
class SchedulerAddress:
    """A checked scheduler address; `str()` gives it in the form `distributed` takes."""

    scheme: str
    #: A name, an IPv4 address, or an IPv6 address (without its brackets).
    host: str
    port: int

    @property
    def location(self) -> str:
        """`HOST:PORT`, an IPv6 host in brackets."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def __str__(self) -> str:
        return f"{self.scheme}://{self.location}"


def _shown(text: str) -> str:
    """`text` quoted for a one-line message: control characters escaped, long text cut."""
    cut = text if len(text) <= _SHOWN_LEN else text[:_SHOWN_LEN] + "..."
    return "'" + "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in cut) + "'"


def _bad(address: str, problem: str) -> SchedulerError:
    return SchedulerError(f"--scheduler {_shown(address)}: {problem}")


def not_a_scheduler(value: object) -> SchedulerError:
    """The error for a scheduler that is neither an address nor a `distributed.Client`."""
    return SchedulerError(
        f"--scheduler {_shown(repr(value))}: must be an address ({FORMS}) or a distributed.Client, "
        f"not {type(value).__name__}"
    )


def parse_scheduler_address(address: object) -> SchedulerAddress:
    """Checks a scheduler address without connecting: a scheme of `SCHEMES` (none means tcp), a
    host, and a port from 1 to 65535. Raises `SchedulerError` naming the address and what is
    wrong with it."""
    if not isinstance(address, str):
        raise not_a_scheduler(address)
    if not address:
        raise _bad(address, f"is empty; give the scheduler's address: {FORMS}")
    if any(ch.isspace() or not ch.isprintable() for ch in address):
        raise _bad(address, f"holds spaces or control characters; expected {FORMS}")
    scheme, separator, location = address.partition("://")
    if separator:
        scheme = scheme.lower()
        if scheme not in SCHEMES:
            allowed = ", ".join(f"{s}://" for s in SCHEMES)
            hint = (
                "; http:// is the dashboard's address, the scheduler's is tcp://HOST:8786 by default"
                if scheme in ("http", "https")
                else ""
            )
            raise _bad(
                address,
                f"the scheme must be one of {allowed}, or none (HOST:PORT means tcp://HOST:PORT){hint}",
            )
    elif "/" in address or ":" not in address:
        raise _bad(address, f"not an address; expected {FORMS}")
    else:
        scheme, location = "tcp", address
    for ch, what in (("/", "a path"), ("?", "a query"), ("#", "a fragment"), ("@", "a user name")):
        if ch in location:
            raise _bad(address, f"{what} is not allowed after the host; expected {FORMS}")
    host, port = _split_host_port(address, location)
    return SchedulerAddress(scheme, host, _port(address, port))


def _split_host_port(address: str, location: str) -> tuple[str, str | None]:
    if location.startswith("["):
        inner, closing, rest = location[1:].partition("]")
        if not closing or "[" in inner or "]" in rest or "[" in rest:
            raise _bad(address, "unbalanced brackets around the IPv6 host; expected e.g. tcp://[::1]:8786")
        try:
            host = str(ipaddress.IPv6Address(inner)) if inner else ""
        except ValueError:
            raise _bad(address, f"{_shown(inner)} in brackets is not an IPv6 address") from None
        if not host:
            raise _bad(address, f"the host is missing; expected {FORMS}")
        if not rest:
            return host, None
        if not rest.startswith(":"):
            raise _bad(address, f"expected ':PORT' after the bracketed IPv6 host; expected {FORMS}")
        return host, rest[1:]
    if "[" in location or "]" in location:
        raise _bad(address, "unbalanced brackets around the IPv6 host; expected e.g. tcp://[::1]:8786")
    if location.count(":") > 1:
        raise _bad(address, "an IPv6 host must be in brackets, e.g. tcp://[::1]:8786")
    host, colon, port = location.partition(":")
    if not host:
        raise _bad(address, f"the host is missing; expected {FORMS}")
    if len(host) > _MAX_HOST_LEN or not _HOST_NAME.fullmatch(host):
        raise _bad(
            address,
            f"{_shown(host)} is not a host name or an IP address "
            "(letters, digits, '.', '-' and '_' only; an IPv6 address in brackets)",
        )
    if re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise _bad(address, f"{_shown(host)} is not an IPv4 address") from None
    return host, port if colon else None


def _port(address: str, port: str | None) -> int:
    if port is None or port == "":
        raise _bad(address, "the port is missing, e.g. tcp://HOST:8786 (8786 is Dask's default)")
    # At most 5 digits: int() of thousands would be slow, and they are out of range anyway.
    if not (port.isascii() and port.isdigit()) or len(port.lstrip("0")) > 5 or not 1 <= int(port) <= 65535:
        raise _bad(address, f"the port must be a number from 1 to 65535, not {_shown(port)}")
    return int(port)


def timeout_seconds(timeout: float | None = None, environ: Mapping[str, str] | None = None) -> float:
    """The deadline for connecting: `timeout` if given, else `CONGSIM_DASK_TIMEOUT` (seconds),
    else `DEFAULT_TIMEOUT_S`. A bad `CONGSIM_DASK_TIMEOUT` is a `SchedulerError`; a bad
    `timeout`, a `ValueError`."""
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
        if not 0 < timeout <= MAX_TIMEOUT_S:
            raise ValueError(
                f"timeout must be a number of seconds in (0, {MAX_TIMEOUT_S:g}], not {timeout!r}"
            )
        return float(timeout)
    text = (os.environ if environ is None else environ).get(TIMEOUT_VARIABLE)
    if text is None:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(text.strip())
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_TIMEOUT_S:  # also refuses nan
        raise SchedulerError(
            f"{TIMEOUT_VARIABLE}={_shown(text)}: must be a number of seconds, more than 0 and at most "
            f"{MAX_TIMEOUT_S:g} (default {DEFAULT_TIMEOUT_S:g})"
        )
    return value


def connect(address: str | SchedulerAddress, timeout: float | None = None) -> Client:
    """A `distributed.Client` of the scheduler at `address`, connected within `timeout` seconds
    (default: `timeout_seconds()`). Every failure, whatever `distributed` raises, and a peer
    that is not a Dask scheduler are a one-line `SchedulerError` naming the address; the
    deadline is kept even when the peer accepts the connection and then says nothing."""
    where = address if isinstance(address, SchedulerAddress) else parse_scheduler_address(address)
    limit = timeout_seconds(timeout)
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerError("the dask executor needs the dask extra: pip install 'congsim[dask]'") from None
    deadline = time.monotonic() + limit
    _probe(where, limit, deadline)
    return _client(Client, where, limit, deadline)


# Probing: one connection, Dask's handshake, and an `identity` request, within the deadline.


class _Refused(Exception):
    """Why the probe failed, as the one-line message's reason."""


def _chain(error: BaseException) -> list[BaseException]:
    """`error` and the errors it wraps: causes, contexts, tornado's `real_error`."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not e for e in chain):
        chain.append(current)
        nested = getattr(current, "real_error", None)
        current = current.__cause__ or current.__context__
        current = current or (nested if isinstance(nested, BaseException) else None)
    return chain


def _os_reason(error: BaseException) -> str | None:
    """The operating system's words in `error`'s chain (`connection refused`), if any."""
    for e in _chain(error):
        if isinstance(e, OSError) and e.strerror:
            text = str(e.strerror)
            return text[:1].lower() + text[1:] if text[1:2].islower() else text
    return None


def _reason(error: BaseException) -> str:
    """The most telling one-line reason in `error`'s chain: the operating system's words rather
    than `distributed`'s wrapping of them, else the first line of a message."""
    found = _os_reason(error)
    if found:
        return found
    for e in _chain(error):
        text = str(e).strip()
        if text:
            # distributed wraps errors as "in <TCPConnector object at 0x...>: ...": the object is noise.
            first = re.sub(r"^in <[^<>]*>: ", "", text.splitlines()[0])
            return _shown(first)[1:-1]
    return type(error).__name__


def _locations(where: SchedulerAddress) -> list[str]:
    """`HOST:PORT` to try: for tcp, the host's numeric addresses (resolved here, where a slow
    resolver cannot outlive the deadline's thread); for the others, the name (TLS checks it)."""
    try:
        infos = socket.getaddrinfo(where.host, where.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        raise _Refused(f"cannot resolve the host {_shown(where.host)}: {_reason(e)}") from None
    if where.scheme != "tcp":
        return [where.location]
    numeric = []
    for family, *_, sockaddr in infos:
        ip = str(sockaddr[0])
        location = f"[{ip}]:{where.port}" if family == socket.AF_INET6 else f"{ip}:{where.port}"
        if location not in numeric:
            numeric.append(location)
    return numeric or [where.location]


async def _speak(where: SchedulerAddress, locations: list[str], stage: list[str]) -> None:
    # distributed is not typed: used through Any.
    distributed: Any = importlib.import_module("distributed")
    registry: Any = importlib.import_module("distributed.comm.registry")
    connector = registry.get_backend(where.scheme).get_connector()
    connection_args = distributed.Security().get_connection_args("client")
    comm: Any = None
    first_error: BaseException | None = None
    stage[0] = "connect"
    for location in locations:
        try:
            comm = await connector.connect(location, deserialize=True, **connection_args)
            break
        except Exception as e:  # refused, unreachable, TLS: try the host's next address
            first_error = first_error or e
    if comm is None:
        assert first_error is not None
        raise _Refused(_reason(first_error))
    try:
        stage[0] = "handshake"
        try:
            await comm.write(comm.handshake_info())
            await comm.read()
        except Exception as e:
            what = _os_reason(e) or (
                "the connection was closed" if "closed" in str(e).lower() else "a reply in another protocol"
            )
            raise _Refused(
                f"something answers there, but not Dask's handshake ({what}): is it a Dask scheduler's "
                "address, not the dashboard's?"
            ) from None
        stage[0] = "identity"
        try:
            await comm.write({"op": "identity", "reply": True})
            identity = await comm.read()
        except Exception as e:
            raise _Refused(f"no answer to Dask's identity request ({_reason(e)})") from None
        kind = identity.get("type") if isinstance(identity, dict) else None
        if kind != "Scheduler":
            what = f"a Dask {_shown(kind)[1:-1].lower()}" if isinstance(kind, str) else "a Dask server"
            raise _Refused(f"{what} answers there, not a Dask scheduler")
        # Says goodbye, as distributed's own connections do: the scheduler logs nothing.
        await comm.write({"op": "close", "reply": False})
    finally:
        comm.abort()


_WAITING_FOR = {
    "resolve": "the host name did not resolve",
    "connect": "no TCP connection (is the host down, or a firewall in the way?)",
    "handshake": "something accepts connections there but does not speak Dask's protocol (is it a Dask "
    "scheduler's address, not the dashboard's?)",
    "identity": "the scheduler did not answer",
}


def _timed_out(where: SchedulerAddress, limit: float, stage: str) -> SchedulerError:
    return SchedulerError(
        f"cannot reach the Dask scheduler at {where} within {limit:g} s: {_WAITING_FOR.get(stage, stage)}; "
        f"{TIMEOUT_VARIABLE} sets this deadline in seconds"
    )


def _probe(where: SchedulerAddress, limit: float, deadline: float) -> None:
    """Raises `SchedulerError` unless a Dask scheduler answers at `where` by `deadline`
    (`time.monotonic()`). Runs in a thread of its own, so that a resolver that hangs, or a
    caller's running event loop, does not matter; that thread's event loop cancels and closes
    the connection at the deadline."""
    stage = ["resolve"]
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            locations = _locations(where)
            asyncio.run(
                asyncio.wait_for(_speak(where, locations, stage), max(0.0, deadline - time.monotonic()))
            )
            outcome.append(None)
        except BaseException as e:  # reported by the waiting thread
            outcome.append(e)

    thread = threading.Thread(target=run, name="congsim-dask-probe", daemon=True)
    thread.start()
    # The thread's own deadline fires first, and says what it was waiting for; the margin covers
    # closing its event loop. Only a resolver that hangs keeps the thread longer.
    thread.join(max(0.0, deadline - time.monotonic()) + 0.5)
    if not outcome:
        raise _timed_out(where, limit, stage[0])
    error = outcome[0]
    if error is None:
        return
    if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
        raise _timed_out(where, limit, stage[0])
    if isinstance(error, _Refused):
        raise SchedulerError(f"cannot reach the Dask scheduler at {where}: {error}")
    if isinstance(error, Exception):
        raise SchedulerError(f"cannot reach the Dask scheduler at {where}: {_reason(error)}")
    raise error  # KeyboardInterrupt or SystemExit in the thread: not ours to turn into a message


# The client itself, within what is left of the deadline.


def _client(client_class: type[Client], where: SchedulerAddress, limit: float, deadline: float) -> Client:
    """Creates the `Client` in a thread and waits for it until `deadline`. A client that comes
    too late, or fails half-way, is closed by that thread: nothing is left running."""
    lock = threading.Lock()
    made: list[Client] = []
    failed: list[BaseException] = []
    abandoned = False

    def create() -> None:
        # __new__ then __init__: a client that fails half-way can still be closed.
        client: Any = client_class.__new__(client_class)
        try:
            client.__init__(str(where), timeout=limit, set_as_default=False)
        except BaseException as e:  # reported by the waiting thread, once the client is closed
            _close_quietly(client)
            failed.append(e)
            return
        with lock:
            if not abandoned:
                made.append(client)
                return
        _close_quietly(client)

    thread = threading.Thread(target=create, name="congsim-dask-client", daemon=True)
    thread.start()
    try:
        thread.join(max(0.0, deadline - time.monotonic()))
    finally:
        with lock:
            if not made:
                abandoned = True
    if made:
        return made[0]
    if failed:
        error = failed[0]
        if not isinstance(error, Exception):
            raise error
        raise SchedulerError(f"cannot connect to the Dask scheduler at {where}: {_client_reason(error)}")
    raise SchedulerError(
        f"cannot connect to the Dask scheduler at {where}: the client did not start within {limit:g} s; "
        f"{TIMEOUT_VARIABLE} sets the deadline in seconds"
    )


def _client_reason(error: Exception) -> str:
    text = str(error)
    if "Mismatched versions" in text:  # a VersionMismatchWarning turned into an error
        packages = [
            row.split("|")[1].strip()
            for row in text.splitlines()
            if row.startswith("|") and row.count("|") > 2 and "Package" not in row
        ]
        return (
            f"the versions of {', '.join(packages) or 'some packages'} differ between here and the "
            "cluster: install the same versions everywhere"
        )
    return _reason(error)


def _close_quietly(client: Any) -> None:
    try:
        client.close()
    except Exception:  # already failed: its closing has nothing more to tell
        pass
