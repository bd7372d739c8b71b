"""The bad-input corpus (issue #27 point 8): hand-designed cases of four kinds, built by code
from the tables below.

* `scenario`: a scenario file's text (a base scenario with one field changed), or a file's
  bytes, given to `congsim.loads` / `congsim.load` and, when it validates, run.
* `plan`: a sweep plan's text, given to `congsim.sweep.loads_plan` in a folder holding the
  plan's scenario files.
* `cli`: the arguments of one `congsim` command, run as a process.
* `api`: one Python expression calling congsim's public functions.

Every case says what must happen: `refused` (a clean error naming the field or argument:
`ScenarioError`, `PlanError`, `TypeError` or `ValueError` in Python; exit status 2 and one
`error:` line on the command line), `accepted`, `warning` (accepted with a `warning:` naming
the field) or `safe` (refused or accepted, as long as nothing it prints or raises holds a raw
control character). The tables are not random: each value was chosen for its field, and the
scenario fuzzer (`tests/scenario_fuzz.py`) covers random mutations.

Case ids are stable and readable: `scenario/<base>/<field path>=<value as TOML>`,
`plan/<what>`, `cli/<command> <arguments>`, `api/<expression>`.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

REFUSED, ACCEPTED, WARNING, SAFE = "refused", "accepted", "warning", "safe"
KINDS = ("scenario", "plan", "cli", "api")

#: Seconds a case may take, unless it says otherwise.
TIME_LIMIT_S = 20.0


@dataclass(frozen=True)
class Case:
    """One bad input and what must become of it."""

    id: str
    kind: str
    expected: str
    #: Text the refusal (or, for `warning`, a warning) must contain; "a|b" accepts either.
    #: `{name}` is a file of the case (cli), as in `args`.
    mentions: tuple[str, ...] = ()
    #: scenario or plan: the TOML text.
    text: str | None = None
    #: scenario: the file's content instead of `text` (bytes, or `("repeat", head, filler,
    #: size)` for a large file made when the case runs), loaded with `congsim.load`.
    data: Any = None
    #: scenario: an existing path to load instead (`/dev/zero`).
    path: str | None = None
    #: scenario: overrides given to `congsim.loads`.
    overrides: dict[str, Any] | None = None
    #: plan and cli: files written into the case's folder (name -> text, bytes or a repeat).
    files: dict[str, Any] = field(default_factory=dict)
    #: cli: the arguments after `congsim`; `{name}` is the path of file `name` (or of a fixture:
    #: `ip`, `plan`, `trace_run`, `tmp`).
    args: tuple[str, ...] = ()
    #: api: a Python expression (names in `harness.api_namespace`).
    expr: str | None = None
    #: Environment variables set for the case (`CONGSIM_LIMITS`).
    env: dict[str, str] = field(default_factory=dict)
    #: Accepted scenarios are run (and accepted plans swept) unless this is False.
    run: bool = True
    limit_s: float = TIME_LIMIT_S
    #: api: names of further exception types that count as a clean refusal (`OSError`).
    raises: tuple[str, ...] = ()
    note: str = ""


# ---------------------------------------------------------------------------------------------
# A small TOML writer: base scenarios are dicts; a case puts a value at a field path.


@dataclass(frozen=True)
class Raw:
    """TOML text put in the file as it is (`nan`, `-1`, `{}`, a string with escapes)."""

    text: str


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


#: Removes the key at a field path.
DELETE = _Delete()

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def quote(text: str) -> str:
    """A TOML basic string holding `text` exactly, control characters as escapes (so every
    string in the corpus, and every case id, is printable)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 0x20 or 0x7F <= code <= 0x9F or not (ch.isprintable() or ch == " "):
            out.append(f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def S(text: str) -> Raw:
    """A string value."""
    return Raw(quote(text))


def key(name: str) -> str:
    return name if _BARE.match(name) else quote(name)


def value(v: Any) -> str:
    """One value as inline TOML."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        items = [f"{key(k)} = {value(x)}" for k, x in v.items() if x is not DELETE]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    raise TypeError(f"no TOML for {v!r}")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dumps(doc: dict[str, Any]) -> str:
    """A scenario file: top-level values, then `[tables]`, then `[[arrays of tables]]`; deeper
    tables inline."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []
    arrays: list[tuple[str, list[dict[str, Any]]]] = []
    for k, v in doc.items():
        if v is DELETE:
            continue
        if isinstance(v, dict):
            tables.append((k, v))
        elif _is_table_array(v):
            arrays.append((k, v))
        else:
            lines.append(f"{key(k)} = {value(v)}")
    for k, table in tables:
        lines.append(f"\n[{key(k)}]")
        lines += [f"{key(name)} = {value(x)}" for name, x in table.items() if x is not DELETE]
    for k, entries in arrays:
        for entry in entries:
            lines.append(f"\n[[{key(k)}]]")
            lines += [f"{key(name)} = {value(x)}" for name, x in entry.items() if x is not DELETE]
    return "\n".join(lines) + "\n"


def parse_path(path: str) -> list[str | int]:
    """`links[1].queue.kind` as ["links", 1, "queue", "kind"]."""
    return [int(index) if index else name for name, index in _PATH_PART.findall(path)]


def with_value(doc: dict[str, Any], path: str, v: Any) -> dict[str, Any]:
    """A copy of `doc` with `v` at `path` (tables made on the way; DELETE removes the key)."""
    doc = copy.deepcopy(doc)
    parts = parse_path(path)
    node: Any = doc
    for part, following in itertools.pairwise(parts):
        if isinstance(part, int):
            while len(node) <= part:
                node.append({})
            node = node[part]
        else:
            if part not in node or not isinstance(node[part], dict | list):
                node[part] = [] if isinstance(following, int) else {}
            node = node[part]
    last = parts[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append({})
        node[last] = v
    elif v is DELETE:
        node.pop(last, None)
    else:
        node[last] = v
    return doc


def with_values(doc: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    for path, v in changes.items():
        doc = with_value(doc, path, v)
    return doc


def label(v: Any) -> str:
    """A value as it stands in the file, shortened for a case id."""
    text = "DELETE" if v is DELETE else value(v)
    text = text.replace("\n", "\\n")
    return text if len(text) <= 40 else f"{text[:24]}...({len(text)} chars)"


# ---------------------------------------------------------------------------------------------
# Base scenarios: small, valid, 0.2 s (a case that is accepted runs in milliseconds).

IP: dict[str, Any] = {
    "name": "ip",
    "nodes": ["a", "r", "b"],
    "simulation": {"duration": "0.2s", "seed": 1},
    "links": [
        {"from": "a", "to": "r", "rate": "100Mbps", "delay": "1ms"},
        {"from": "r", "to": "b", "rate": "10Mbps", "delay": "10ms", "queue": {"limit_packets": 50}},
    ],
    "tcp": {"profile": "ns2_2000", "variant": "reno", "packet_size": "1000B", "window": 20},
    "flows": [{"name": "f1", "from": "a", "to": "b"}],
    "metrics": {"series_interval": "10ms"},
}
RED = with_value(
    IP,
    "links[1].queue",
    {"kind": "red", "limit_packets": 50, "min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1},
)
CODEL = with_value(IP, "links[1].queue", {"kind": "codel"})
FQ_CODEL = with_value(IP, "links[1].queue", {"kind": "fq_codel", "flows": 16})
_VIDEO = [{"name": "v", "from": "a", "to": "b", "rate": "1Mbps"}]
CBQ = with_values(
    IP,
    {
        "links[1].queue": {
            "kind": "cbq",
            "classes": [
                {"name": "link", "allot": 1.0},
                {
                    "name": "video",
                    "parent": "link",
                    "allot": 0.3,
                    "priority": 1,
                    "flows": ["v"],
                    "limit_packets": 100,
                },
                {"name": "data", "parent": "link", "allot": 0.7, "priority": 2, "limit_packets": 100},
            ],
        },
        "cbr": _VIDEO,
    },
)
PRIORITY = with_values(
    IP,
    {
        "links[1].queue": {
            "kind": "priority",
            "classes": [{"flows": ["v"], "limit_packets": 20}, {"limit_packets": 50}],
        },
        "cbr": _VIDEO,
    },
)
CBR = with_value(
    IP,
    "cbr",
    [
        {
            "name": "v",
            "from": "a",
            "to": "b",
            "rate": "2Mbps",
            "packet_size": "500B",
            "pattern": "shaped",
            "phase": "zero",
        }
    ],
)
TRANSFERS = with_values(
    IP,
    {
        "flows": DELETE,
        "transfers": [
            {
                "name": "web",
                "from": "a",
                "to": "b",
                "sizes": "exponential",
                "mean_size": "8KB",
                "arrivals_per_second": 50.0,
            }
        ],
    },
)
_ATM_PAIRS = [("s1", "sw1"), ("s2", "sw1"), ("sw1", "sw2"), ("sw2", "d1"), ("sw2", "d2")]
ATM: dict[str, Any] = {
    "name": "atm",
    "nodes": ["s1", "s2", "sw1", "sw2", "d1", "d2"],
    "simulation": {"duration": "0.2s"},
    "atm": {"buffer_cells": 1000, "policy": "epd", "threshold": 0.9},
    "links": [{"from": f, "to": t, "rate": "155.52Mbps", "delay": "5us", "atm": True} for f, t in _ATM_PAIRS],
    "tcp": {"profile": "bsd", "variant": "reno", "packet_size": "512B", "receiver_buffer": "64KB"},
    "flows": [{"name": "f1", "from": "s1", "to": "d1"}, {"name": "f2", "from": "s2", "to": "d2"}],
}
ABR = with_values(
    ATM,
    {
        "name": "abr",
        "atm": {
            "service": "abr",
            "switch": "erica",
            "erica": {"target": 0.9},
            "abr": {"icr": "10Mbps", "nrm": 32},
        },
        "vbr": [{"from": "sw1", "to": "sw2", "on": "10ms", "off": "10ms"}],
    },
)
EPRCA = with_value(
    ABR, "atm", {"service": "abr", "switch": "eprca", "eprca": {"alpha": 0.0625, "queue_threshold": 500}}
)
DUMBBELL: dict[str, Any] = {
    "name": "dumbbell",
    "simulation": {"duration": "0.2s"},
    "topology": {
        "kind": "dumbbell",
        "pairs": 2,
        "bottleneck_rate": "10Mbps",
        "bottleneck_delay": "10ms",
        "access_rate": "100Mbps",
        "access_delay": "1ms",
    },
}
PARKING: dict[str, Any] = {
    "name": "parking",
    "simulation": {"duration": "0.2s"},
    "topology": {
        "kind": "parking_lot",
        "hops": 2,
        "hop_rate": "10Mbps",
        "hop_delay": "5ms",
        "access_rate": "100Mbps",
        "access_delay": "1ms",
    },
}
INCAST: dict[str, Any] = {
    "name": "incast",
    "simulation": {"duration": "0.2s"},
    "topology": {
        "kind": "incast",
        "senders": 4,
        "rate": "1Gbps",
        "delay": "25us",
        "switch_queue": {"limit_packets": 32},
        "transfer_size": "64KB",
    },
    "tcp": {"profile": "rfc", "variant": "sack", "min_rto": "200ms"},
}
FAT: dict[str, Any] = {
    "name": "fat",
    "simulation": {"duration": "0.05s"},
    "topology": {
        "kind": "fat_tree",
        "k": 4,
        "rate": "1Gbps",
        "delay": "5us",
        "queue": {"limit_packets": 100},
        "traffic": "stride",
    },
    "tcp": {"profile": "rfc", "variant": "newreno", "packet_size": "1500B"},
}
BASES: dict[str, dict[str, Any]] = {
    "ip": IP,
    "red": RED,
    "codel": CODEL,
    "fq_codel": FQ_CODEL,
    "cbq": CBQ,
    "priority": PRIORITY,
    "cbr": CBR,
    "transfers": TRANSFERS,
    "atm": ATM,
    "abr": ABR,
    "eprca": EPRCA,
    "dumbbell": DUMBBELL,
    "parking": PARKING,
    "incast": INCAST,
    "fat": FAT,
}

R, A, W, X = REFUSED, ACCEPTED, WARNING, SAFE

# ---------------------------------------------------------------------------------------------
# Value vocabularies: (value, expected). The FULL lists go to one field of each type; the SHORT
# ones to every other field of that type (the same parser, checked at each place).

ESC = "\x1b[31m"

RATE_FULL = [
    (Raw("10"), R),
    (Raw("1.5e7"), R),
    (S("-5Mbps"), R),
    (S("0Mbps"), R),
    (S("0bps"), R),
    (S("-0Mbps"), R),
    (S("10"), R),
    (S("10MB"), R),
    (S("10 parsecs"), R),
    (S("10MBps"), R),
    (S("10mbps"), R),
    (S("1Pbps"), R),
    (S("1000001Gbps"), R),
    (S("1e9bps"), R),
    (S("NaNMbps"), R),
    (S("infMbps"), R),
    (S("0.5bps"), R),
    (S("1." + "0" * 30 + "1Mbps"), R),
    (S("1" * 400 + "bps"), R),
    (S(""), R),
    (S(" "), R),
    (S("Mbps"), R),
    (S(ESC + "10Mbps"), R),
    (S("10\x00Mbps"), R),
    (S("10Mbps\n"), X),
    (Raw("true"), R),
    (Raw('["10Mbps"]'), R),
    (Raw("{}"), R),
    (S("+10Mbps"), R),
    (S("\uff11\uff10Mbps"), R),
    (S("10,5Mbps"), R),
    (S("0x10Mbps"), R),
    (S("10 Mbps"), A),
    (S("10Mb/s"), A),
    (S("10Mb"), A),
    (S("10000kbps"), A),
    (S("1000Gbps"), A),
    (S("1bps"), A),
]
RATE_SHORT = [
    (Raw("10"), R),
    (S("-5Mbps"), R),
    (S("0Mbps"), R),
    (S("10 parsecs"), R),
    (S("10MB"), R),
    (S("NaNMbps"), R),
    (S(ESC + "1Mbps"), R),
    (S("1000001Gbps"), R),
]
DURATION_FULL = [
    (Raw("5"), R),
    (Raw("0.2"), R),
    (S("-1s"), R),
    (S("0s"), R),
    (S("0ms"), R),
    (S("5"), R),
    (S("5 parsecs"), R),
    (S("5m"), R),
    (S("5min"), R),
    (S("1h"), R),
    (S("0.5ps"), R),
    (S("1e3s"), R),
    (S("NaNs"), R),
    (S("infs"), R),
    (S("99999999999999999999s"), R),
    (S(""), R),
    (S("\x1b[2J5s"), R),
    (S("5s\x00"), R),
    (S("5\ns"), X),
    (Raw("true"), R),
    (Raw("[]"), R),
    (Raw("{}"), R),
    (S("\uff15s"), R),
    (S("0.2 s"), A),
    (S("200ms"), A),
    (S("1ps"), A),
    (S("200000\u00b5s"), A),
    (S("200000\u03bcs"), X),
]
DURATION_SHORT = [
    (Raw("5"), R),
    (S("-1ms"), R),
    (S("5 parsecs"), R),
    (S("NaNs"), R),
    (S(ESC + "1ms"), R),
    (S("99999999999999999999s"), R),
]
SIZE_FULL = [
    (Raw("1000"), R),
    (S("0B"), R),
    (S("-1B"), R),
    (S("1.5B"), R),
    (S("1kB"), R),
    (S("10 parsecs"), R),
    (S("1000"), R),
    (S("1000b"), R),
    (S("64KB"), R),
    (S("1GB"), R),
    (S("9999999999GB"), R),
    (S("NaNB"), R),
    (S("infB"), R),
    (S(""), R),
    (S(ESC + "1000B"), R),
    (Raw("true"), R),
    (Raw("[]"), R),
    (S("1e3B"), R),
    (S("1000B "), X),
    (S("1 KiB"), A),
    (S("1KB"), A),
    (S("1000 bytes"), A),
    (S("1B"), A),
]
SIZE_SHORT = [
    (Raw("1000"), R),
    (S("-1B"), R),
    (S("10 parsecs"), R),
    (S("1kB"), R),
    (S("NaNB"), R),
    (S(ESC + "1B"), R),
    (S("99999999999999999999GB"), R),
]
INT_FULL = [
    (Raw("-1"), R),
    (Raw("0"), R),
    (Raw("1.5"), R),
    (S("20"), R),
    (Raw("true"), R),
    (Raw("[]"), R),
    (Raw("{}"), R),
    (Raw("nan"), R),
    (Raw("inf"), R),
    (Raw("-inf"), R),
    (Raw("1e9"), R),
    (Raw("1073741825"), R),
    (Raw("9223372036854775807"), R),
    (Raw("18446744073709551615"), R),
    (Raw("18446744073709551616"), R),
    (Raw("-9223372036854775808"), R),
    (Raw("1e400"), R),
    (Raw("0x14"), A),
    (Raw("2_0"), A),
    (Raw("+20"), A),
    (Raw("1073741824"), A),
]
INT_SHORT = [
    (Raw("-1"), R),
    (Raw("1.5"), R),
    (S("5"), R),
    (Raw("nan"), R),
    (Raw("18446744073709551615"), R),
    (Raw("true"), R),
]
PROBABILITY_FULL = [
    (Raw("-0.1"), R),
    (Raw("1.0"), R),
    (Raw("1.5"), R),
    (Raw("nan"), R),
    (Raw("-nan"), R),
    (Raw("inf"), R),
    (Raw("-inf"), R),
    (S("0.1"), R),
    (Raw("true"), R),
    (Raw("[0.1]"), R),
    (Raw("1"), R),
    (Raw("-0.0"), A),
    (Raw("0"), A),
    (Raw("1e-320"), A),
    (Raw("0.999999"), A),
]
FLOAT_SHORT = [
    (Raw("nan"), R),
    (Raw("inf"), R),
    (Raw("-1.0"), R),
    (S("0.5"), R),
]
BOOL_SHORT = [(S("yes"), R), (Raw("1"), R), (S("true"), R), (Raw("[]"), R)]
NAME_FULL = [
    (S(""), R),
    (S(ESC + "red"), R),
    (S("a\x00b"), R),
    (S("a\nb"), R),
    (S("a\rb"), R),
    (S("a\tb"), R),
    (S("\x7f"), R),
    (S("\x9b31m"), R),
    (S("\x1b]0;title\x07"), R),
    (S("x" * 257), R),
    (S("x" * 100_000), R),
    (Raw("1"), R),
    (Raw("true"), R),
    (Raw("[]"), R),
    (S("\u202eevil"), X),
    (S("\u200b"), X),
    (S(" "), X),
    (S("x" * 256), A),
    (S("[red]markup[/red]"), A),
    (S("\u540d\u524d"), A),
    (S("\U0001f600"), A),
    (S('a"b,c'), A),
    (S("=cmd|' /C calc'!A0"), A),
    (S("../../x"), A),
]
NAME_SHORT = [
    (S(""), R),
    (S(ESC + "red"), R),
    (S("a\x00b"), R),
    (S("a\nb"), R),
    (S("x" * 257), R),
    (Raw("1"), R),
]
REF_SHORT = [
    (S("nowhere"), R),
    (S(""), R),
    (S("\x1b[2J"), R),
    (S("a\x00"), R),
    (Raw("1"), R),
    (S("x" * 100_000), R),
]


def enum_values(valid: str) -> list[tuple[Raw, str]]:
    return [
        (S("bogus"), R),
        (S(""), R),
        (S(valid.upper()), R),
        (S(valid + "\n"), R),
        (S(ESC + valid), R),
        (Raw("1"), R),
    ]


# (base, field path, vocabulary, {value label: expected} for the values whose fate depends
# on the field, mentions instead of the path)
FieldTable = list[tuple[str, str, list[tuple[Any, str]], dict[str, str], tuple[str, ...]]]

FIELDS: FieldTable = [
    # IP links and queues
    ("ip", "links[1].rate", RATE_FULL, {}, ()),
    ("ip", "links[0].delay", DURATION_SHORT, {}, ()),
    ("ip", "links[1].delay", [(S("0s"), A), (S("0ps"), A), (S("1s"), A), (S("1000000s"), A)], {}, ()),
    ("ip", "links[1].random_loss", PROBABILITY_FULL, {}, ()),
    ("ip", "links[1].duplex", BOOL_SHORT, {}, ()),
    ("ip", "links[1].atm", BOOL_SHORT, {}, ()),
    (
        "ip",
        "links[1].queue.limit_packets",
        [*INT_SHORT, (Raw("0"), X), (Raw("1"), X), (Raw("1000000000"), A)],
        {},
        (),
    ),
    ("ip", "links[1].queue.kind", enum_values("droptail"), {}, ()),
    ("ip", "links[1].queue.semantics", enum_values("ns2"), {}, ()),
    ("ip", "links[1].queue.drop_front", BOOL_SHORT, {}, ()),
    ("ip", "links[0].from", REF_SHORT, {}, ()),
    ("ip", "links[0].to", REF_SHORT, {}, ()),
    ("red", "links[1].queue.min_th", [*FLOAT_SHORT, (Raw("-5"), R)], {}, ("links[1].queue.", "min_th")),
    ("red", "links[1].queue.max_th", [*FLOAT_SHORT, (Raw("4"), R)], {"inf": W}, ()),
    (
        "red",
        "links[1].queue.w_q",
        [*FLOAT_SHORT, (Raw("0"), R), (Raw("1.5"), R), (Raw("-1"), A)],
        {"-1.0": A},
        (),
    ),
    ("red", "links[1].queue.max_p", [*FLOAT_SHORT, (Raw("0"), X), (Raw("1.5"), R)], {}, ()),
    ("red", "links[1].queue.mean_packet_size", SIZE_SHORT, {}, ()),
    ("red", "links[1].queue.gentle", BOOL_SHORT, {}, ()),
    ("red", "links[1].queue.ecn_marking", BOOL_SHORT, {}, ()),
    ("red", "links[1].queue.limit_packets", [(Raw("-1"), R), (Raw("nan"), R)], {}, ()),
    (
        "codel",
        "links[1].queue.target",
        [*DURATION_SHORT, (S("0s"), R), (S("100ms"), R), (S("1ms"), A)],
        {},
        ("links[1].queue.target",),
    ),
    ("codel", "links[1].queue.interval", [*DURATION_SHORT, (S("0s"), R), (S("5ms"), R)], {}, ()),
    ("codel", "links[1].queue.limit_packets", [*INT_SHORT, (Raw("0"), R)], {}, ()),
    ("codel", "links[1].queue.mtu", SIZE_SHORT, {}, ()),
    ("codel", "links[1].queue.ecn_marking", BOOL_SHORT, {}, ()),
    ("codel", "links[1].queue.ce_threshold", DURATION_SHORT, {}, ()),
    ("codel", "links[1].queue.flows", [(Raw("3"), R)], {}, ("fq_codel",)),
    (
        "fq_codel",
        "links[1].queue.flows",
        [*INT_SHORT, (Raw("0"), R), (Raw("65537"), R), (Raw("65536"), A)],
        {},
        (),
    ),
    ("fq_codel", "links[1].queue.quantum", [*SIZE_SHORT, (S("0B"), R)], {}, ()),
    ("fq_codel", "links[1].queue.drop_batch_size", [*INT_SHORT, (Raw("0"), R)], {}, ()),
    ("fq_codel", "links[1].queue.hash_seed", [(Raw("-1"), R), (S("7"), R), (Raw("1.5"), R)], {}, ()),
    (
        "ip",
        "metrics.sojourn_links",
        [(Raw('["nowhere"]'), R), (S("r->b"), R), (Raw("[1]"), R), (Raw('["r->b", "b->r"]'), A)],
        {},
        (),
    ),
    ("priority", "metrics.sojourn_links", [(Raw('["r->b"]'), R)], {}, ("priority",)),
    ("codel", "metrics.sojourn_links", [(Raw('["r->b"]'), A)], {}, ()),
    ("cbq", "links[1].queue.classes[1].allot", [*FLOAT_SHORT, (Raw("0"), R), (Raw("1.5"), R)], {}, ()),
    ("cbq", "links[1].queue.classes[1].priority", [*INT_SHORT, (Raw("10"), R), (Raw("256"), R)], {}, ()),
    ("cbq", "links[1].queue.classes[1].name", NAME_SHORT, {}, ("links[1].queue.classes",)),
    ("cbq", "links[1].queue.classes[1].parent", REF_SHORT, {}, ("links[1].queue.classes",)),
    ("cbq", "links[1].queue.classes[1].max_idle", DURATION_SHORT, {}, ()),
    ("cbq", "links[1].queue.classes[1].borrow", BOOL_SHORT, {}, ()),
    ("cbq", "links[1].queue.link_sharing", enum_values("formal"), {}, ()),
    ("cbq", "links[1].queue.max_packet_size", SIZE_SHORT, {}, ()),
    ("priority", "links[1].queue.classes[0].limit_packets", INT_SHORT, {}, ()),
    (
        "priority",
        "links[1].queue.classes[0].flows",
        [(S("v"), R), (Raw("[1]"), R), (Raw('["nowhere"]'), R)],
        {},
        (),
    ),
    # TCP
    ("ip", "tcp.window", INT_FULL, {}, ()),
    ("ip", "tcp.packet_size", SIZE_FULL, {}, ()),
    ("ip", "tcp.variant", enum_values("reno"), {}, ()),
    ("ip", "tcp.profile", enum_values("ns2_2000"), {}, ()),
    ("ip", "tcp.congestion_control", enum_values("cubic"), {}, ()),
    ("ip", "tcp.delayed_ack", enum_values("ns2"), {}, ()),
    ("ip", "tcp.timer", enum_values("tick"), {}, ()),
    ("ip", "tcp.boot_phase", enum_values("random"), {}, ()),
    ("ip", "tcp.reno_flavour", enum_values("bsd"), {}, ()),
    ("ip", "tcp.tahoe_resume", enum_values("restore"), {}, ()),
    ("ip", "tcp.congestion_marks", enum_values("ecn"), {}, ()),
    (
        "ip",
        "tcp.initial_window",
        [*INT_SHORT, (Raw("0"), R), (Raw("1048577"), R), (Raw("1048576"), A)],
        {},
        (),
    ),
    ("ip", "tcp.header_bytes", [*INT_SHORT, (Raw("121"), R), (Raw("0"), A), (Raw("120"), A)], {}, ()),
    ("ip", "tcp.max_burst", [*INT_SHORT, (Raw("0"), A)], {}, ()),
    ("ip", "tcp.max_cwnd", [*INT_SHORT, (Raw("0"), A)], {}, ()),
    ("ip", "tcp.min_rto", [*DURATION_SHORT, (S("0s"), X)], {}, ()),
    ("ip", "tcp.initial_rto", [*DURATION_SHORT, (S("0s"), R)], {}, ()),
    ("ip", "tcp.tick", [*DURATION_SHORT, (S("0s"), R)], {}, ()),
    ("ip", "tcp.delayed_ack_interval", [*DURATION_SHORT, (S("0s"), X)], {}, ()),
    ("ip", "tcp.fast_retransmit", BOOL_SHORT, {}, ()),
    ("ip", "tcp.syn", BOOL_SHORT, {}, ()),
    ("ip", "tcp.pacing", BOOL_SHORT, {}, ()),
    ("ip", "tcp.limited_transmit", BOOL_SHORT, {}, ()),
    ("ip", "tcp.bcn_factor", [*FLOAT_SHORT, (Raw("0"), R), (Raw("1"), R)], {}, ()),
    ("atm", "tcp.receiver_buffer", [*SIZE_SHORT, (S("0B"), R), (S("2GB"), R), (S("1GB"), A)], {}, ()),
    ("atm", "tcp.window_scaling", BOOL_SHORT, {}, ()),
    ("atm", "tcp.packet_size", [(S("64KB"), R), (S("0B"), R)], {}, ()),
    # flows
    ("ip", "flows[0].name", NAME_FULL, {}, ()),
    ("ip", "flows[0].from", REF_SHORT, {}, ()),
    ("ip", "flows[0].to", [*REF_SHORT, (S("a"), R), (S("r"), X)], {}, ()),
    ("ip", "flows[0].start", [*DURATION_SHORT, (S("0.2s"), R), (S("1s"), R), (S("0.1s"), A)], {}, ()),
    ("ip", "flows[0].stop", [*DURATION_SHORT, (S("0s"), X), (S("1s"), A)], {}, ()),
    ("ip", "flows[0].start_jitter", [*DURATION_SHORT, (S("1s"), X)], {}, ()),
    ("ip", "flows[0].size", [*SIZE_SHORT, (S("0B"), R), (S("1B"), A)], {}, ()),
    (
        "ip",
        "flows[0].count",
        [*INT_SHORT, (Raw("0"), R), (Raw("4294967296"), R), (Raw("1000001"), R), (Raw("3"), A)],
        {},
        ("flows", "count"),
    ),
    (
        "ip",
        "flows[0].tcp.window",
        [(Raw("-1"), R), (Raw("0"), R), (Raw("nan"), R), (Raw("18446744073709551615"), R)],
        {},
        (),
    ),
    ("ip", "flows[0].tcp.variant", enum_values("sack"), {}, ()),
    ("ip", "flows[0].tcp", [(S("reno"), R), (Raw("[]"), R), (Raw("{ bogus = 1 }"), R)], {}, ()),
    # simulation
    ("ip", "simulation.duration", DURATION_FULL, {}, ()),
    (
        "ip",
        "simulation.seed",
        [
            (Raw("-1"), R),
            (Raw("1.5"), R),
            (S("1"), R),
            (Raw("nan"), R),
            (Raw("18446744073709551616"), R),
            (Raw("0"), A),
            (Raw("9223372036854775807"), A),
        ],
        {},
        (),
    ),
    (
        "ip",
        "simulation.replications",
        [*INT_SHORT, (Raw("0"), R), (Raw("4294967296"), R), (Raw("1000000"), A)],
        {},
        (),
    ),
    ("ip", "simulation.measure_from", [*DURATION_SHORT, (S("0.2s"), R), (S("1s"), R), (S("0s"), A)], {}, ()),
    (
        "ip",
        "simulation.measure_until",
        [*DURATION_SHORT, (S("0s"), R), (S("1s"), R), (S("0.2s"), A)],
        {},
        ("simulation.measure_",),
    ),
    ("ip", "simulation.start_jitter", [*DURATION_SHORT, (S("0.2s"), X), (S("10s"), X)], {}, ()),
    ("ip", "simulation.tie_order", enum_values("random"), {}, ()),
    # metrics
    (
        "ip",
        "metrics.series_interval",
        [*DURATION_SHORT, (S("0s"), R), (S("1ps"), R), (S("1ns"), R), (S("1s"), A)],
        {},
        (),
    ),
    ("ip", "metrics.efficiency_max_rate", RATE_SHORT, {}, ()),
    ("ip", "metrics.sequence_trace", BOOL_SHORT, {}, ()),
    ("ip", "metrics.tcp_events", BOOL_SHORT, {}, ()),
    ("ip", "metrics.flow_monitor", BOOL_SHORT, {}, ()),
    ("ip", "routing.ecmp", BOOL_SHORT, {}, ()),
    # names
    ("ip", "name", NAME_SHORT, {}, ()),
    (
        "ip",
        "description",
        [(S(ESC + "x"), X), (S("a\x00b"), X), (S("x" * 100_000), X), (Raw("1"), R)],
        {},
        (),
    ),
    ("ip", "nodes[0]", NAME_SHORT, {}, ("nodes",)),
    # CBR
    ("cbr", "cbr[0].rate", [*RATE_SHORT, (S("999999Gbps"), R)], {}, ()),
    (
        "cbr",
        "cbr[0].packet_size",
        [
            *SIZE_SHORT,
            (S("0B"), R),
            (S("1B"), R),
            (S("19B"), R),
            (S("65536B"), R),
            (S("20B"), A),
            (S("65535B"), A),
        ],
        {},
        (),
    ),
    ("cbr", "cbr[0].pattern", enum_values("burst"), {}, ()),
    ("cbr", "cbr[0].phase", enum_values("random"), {}, ()),
    ("cbr", "cbr[0].name", NAME_SHORT, {}, ()),
    ("cbr", "cbr[0].from", REF_SHORT, {}, ()),
    ("cbr", "cbr[0].count", [*INT_SHORT, (Raw("0"), A), (Raw("1000001"), R)], {}, ()),
    (
        "cbr",
        "cbr[0].on",
        [
            (S("0s"), R),
            (Raw('[["1s"]]'), R),
            (Raw('[["0.1s", "0.05s"]]'), R),
            (Raw('[["0s", "1s"]]'), R),
            (Raw('[["-1s", "0.1s"]]'), R),
            (Raw("[[]]"), R),
            (Raw('[["0s", "0.1s"], ["0.05s", "0.15s"]]'), R),
            (Raw("[]"), A),
        ],
        {},
        (),
    ),
    (
        "cbr",
        "cbr[0].square_wave",
        [
            (S("10ms"), R),
            (Raw('{ on = "0s", off = "10ms" }'), R),
            (Raw('{ on = "10ms", off = "-1ms" }'), R),
            (Raw('{ on = "10ms" }'), R),
            (Raw('{ on = "1ps", off = "1ps" }'), R),
            (Raw('{ on = "10ms", off = "10ms" }'), A),
        ],
        {},
        (),
    ),
    # transfers
    (
        "transfers",
        "transfers[0].arrivals_per_second",
        [*FLOAT_SHORT, (Raw("0"), R), (Raw("1e12"), R), (Raw("1e300"), R), (Raw("1e-9"), A)],
        {},
        (),
    ),
    ("transfers", "transfers[0].sizes", enum_values("web"), {}, ()),
    ("transfers", "transfers[0].mean_size", [*SIZE_SHORT, (S("0B"), R)], {}, ()),
    ("transfers", "transfers[0].max_size", [(S("0B"), R), (S("-1B"), R)], {}, ()),
    ("transfers", "transfers[0].start", [*DURATION_SHORT, (S("1s"), X)], {}, ("transfers[0].st",)),
    ("transfers", "transfers[0].stop", [(S("-1s"), R), (S("0s"), X)], {}, ()),
    ("transfers", "transfers[0].name", NAME_SHORT, {}, ()),
    ("transfers", "transfers[0].to", REF_SHORT, {}, ()),
    ("transfers", "transfers[0].tcp.window", [(Raw("0"), R), (Raw("-1"), R)], {}, ()),
    # ATM
    ("atm", "links[2].rate", RATE_SHORT, {}, ()),
    ("atm", "atm.buffer_cells", [*INT_SHORT, (Raw("0"), X)], {"18446744073709551615": X}, ()),
    ("atm", "atm.policy", enum_values("epd"), {}, ()),
    ("atm", "atm.contention", enum_values("random"), {}, ()),
    ("atm", "atm.threshold", [*FLOAT_SHORT, (Raw("0"), R), (Raw("1.5"), R)], {}, ()),
    ("atm", "atm.z", [*FLOAT_SHORT, (Raw("0"), X)], {}, ()),
    ("atm", "atm.ppd_after_overflow", BOOL_SHORT, {}, ()),
    ("atm", "atm.service", enum_values("abr"), {}, ()),
    ("atm", "atm.uni_buffer", SIZE_SHORT, {}, ()),
    ("abr", "atm.switch", enum_values("erica"), {}, ()),
    ("abr", "atm.erica.target", [*FLOAT_SHORT, (Raw("0"), R), (Raw("1.5"), R)], {}, ()),
    ("abr", "atm.erica.delta", FLOAT_SHORT, {}, ()),
    ("abr", "atm.erica.interval", [*DURATION_SHORT, (S("0s"), R)], {}, ()),
    ("abr", "atm.erica.interval_cells", [*INT_SHORT, (Raw("0"), R)], {}, ()),
    ("abr", "atm.erica.capacity", enum_values("target_link_minus_vbr"), {}, ()),
    ("abr", "atm.erica.ccr_cap", enum_values("never"), {}, ()),
    ("abr", "atm.abr.pcr", RATE_SHORT, {}, ()),
    ("abr", "atm.abr.icr", [*RATE_SHORT, (S("200Mbps"), R)], {}, ("atm.abr",)),
    ("abr", "atm.abr.mcr", [(S("-1Mbps"), R), (S("200Mbps"), R), (S("0Mbps"), A)], {}, ("atm.abr",)),
    ("abr", "atm.abr.nrm", [*INT_SHORT, (Raw("0"), R)], {}, ()),
    ("abr", "atm.abr.tbe", [(Raw("0"), X), (Raw("-1"), R)], {}, ()),
    ("abr", "atm.abr.trm", [*DURATION_SHORT, (S("0s"), R)], {}, ()),
    ("abr", "atm.abr.rif", [*FLOAT_SHORT, (Raw("0"), R), (Raw("2"), R)], {}, ()),
    ("abr", "atm.abr.rdf", [*FLOAT_SHORT, (Raw("0"), X), (Raw("2"), R)], {}, ()),
    ("abr", "atm.abr.cdf", [(Raw("nan"), R), (Raw("-1"), R)], {}, ()),
    ("abr", "vbr[0].rate", [*RATE_SHORT, (S("200Mbps"), R)], {}, ()),
    ("abr", "vbr[0].on", [*DURATION_SHORT, (S("0s"), R)], {}, ()),
    ("abr", "vbr[0].off", [(S("-1ms"), R), (S("NaNs"), R)], {}, ()),
    ("abr", "vbr[0].from", [*REF_SHORT, (S("s1"), R)], {}, ("vbr[0]",)),
    ("eprca", "atm.eprca.alpha", [*FLOAT_SHORT, (Raw("0"), R)], {}, ()),
    ("eprca", "atm.eprca.queue_threshold", INT_SHORT, {"18446744073709551615": X}, ()),
    # generated topologies
    (
        "dumbbell",
        "topology.pairs",
        [
            *INT_SHORT,
            (Raw("0"), R),
            (Raw("1000000000"), R),
            (Raw("2000000"), R),
            (Raw("1e9"), R),
            (Raw("4294967296"), R),
        ],
        {},
        (),
    ),
    ("dumbbell", "topology.kind", enum_values("dumbbell"), {}, ()),
    ("dumbbell", "topology.bottleneck_rate", RATE_SHORT, {}, ()),
    ("dumbbell", "topology.access_rate", [(S("0bps"), R), (S("10 parsecs"), R)], {}, ()),
    ("dumbbell", "topology.bottleneck_delay", DURATION_SHORT, {}, ()),
    (
        "dumbbell",
        "topology.access_delay_max",
        # Below access_delay is a decreasing spread, which the generator supports.
        [(S("-1ms"), R), (S("0.5ms"), A), (S("NaNs"), R), (S("5ms"), A)],
        {},
        (),
    ),
    ("dumbbell", "topology.receiver_delay", [(S("-1ms"), R), (Raw("5"), R)], {}, ()),
    ("dumbbell", "topology.flows", BOOL_SHORT, {}, ()),
    (
        "dumbbell",
        "topology.bottleneck_queue",
        [
            (S("droptail"), R),
            (Raw('{ kind = "sfq" }'), R),
            (Raw('{ kind = "fq_codel" }'), A),
            (Raw("{ limit_packets = -1 }"), R),
        ],
        {},
        (),
    ),
    ("dumbbell", "topology.hops", [(Raw("2"), R)], {}, ()),
    (
        "parking",
        "topology.hops",
        [*INT_SHORT, (Raw("0"), R), (Raw("1000000000"), R), (Raw("4294967296"), R)],
        {},
        (),
    ),
    ("parking", "topology.hop_rate", RATE_SHORT, {}, ()),
    ("parking", "topology.hop_delay", DURATION_SHORT, {}, ()),
    ("parking", "topology.hop_queue", [(Raw('{ kind = "red", min_th = nan }'), R)], {}, ()),
    ("incast", "topology.senders", [*INT_SHORT, (Raw("0"), R), (Raw("1000000000"), R)], {}, ()),
    ("incast", "topology.transfer_size", [*SIZE_SHORT, (S("0B"), R)], {}, ()),
    ("incast", "topology.rate", RATE_SHORT, {}, ()),
    (
        "incast",
        "topology.switch_queue",
        [(Raw("{ limit_packets = 0 }"), X), (Raw('{ limit_bytes = "1B" }'), X)],
        {},
        (),
    ),
    (
        "fat",
        "topology.k",
        [
            *INT_SHORT,
            (Raw("0"), R),
            (Raw("2"), A),
            (Raw("3"), R),
            (Raw("5"), R),
            (Raw("66"), R),
            (Raw("1000000000"), R),
        ],
        {},
        (),
    ),
    ("fat", "topology.traffic", enum_values("all_to_all"), {}, ()),
    ("fat", "topology.rate", RATE_SHORT, {}, ()),
    ("fat", "topology.delay", DURATION_SHORT, {}, ()),
    ("fat", "topology.queue", [(Raw("{ limit_packets = -1 }"), R), (Raw('{ kind = "cbq" }'), R)], {}, ()),
    ("fat", "routing.ecmp", [(Raw("false"), A), (S("yes"), R)], {}, ()),
]


def field_cases() -> Iterable[Case]:
    for base, path, values, per_value, mentions in FIELDS:
        for v, expected in values:
            text = dumps(with_value(BASES[base], path, v))
            lab = label(v)
            yield Case(
                id=f"scenario/{base}/{path}={lab}",
                kind="scenario",
                expected=per_value.get(lab, expected),
                mentions=mentions or (path,),
                text=text,
            )


# ---------------------------------------------------------------------------------------------
# Hand-written scenario cases: a base with several changes, each with its reason.

# (id, base, changes, expected, mentions, environment, run the accepted scenario)
Edit = tuple[str, str, dict[str, Any], str, tuple[str, ...], dict[str, str], bool]

_LONG_TRACE = {
    "simulation.duration": "3000s",
    "metrics.series_interval": DELETE,
    "links[0].rate": "1Gbps",
    "links[1].rate": "1Gbps",
}
_BIG_CBR = {"cbr[0].rate": "100Gbps", "cbr[0].packet_size": "20B", "simulation.duration": "10s"}


def _down(at: str) -> dict[str, str]:
    return {"at": at, "action": "link_down", "link": "r->b"}


def _up(at: str) -> dict[str, str]:
    return {"at": at, "action": "link_up", "link": "r->b"}


def _rate(at: str, rate: str) -> dict[str, str]:
    return {"at": at, "action": "link_rate", "link": "r->b", "rate": rate}


EDITS: list[Edit] = [
    # The issue's known failures.
    (
        "topology.fat_tree.k=24.all_to_all",
        "fat",
        {"topology.k": 24, "topology.traffic": "all_to_all"},
        R,
        ("topology.k",),
        {},
        True,
    ),
    (
        "topology.fat_tree.k=32.all_to_all",
        "fat",
        {"topology.k": 32, "topology.traffic": "all_to_all"},
        R,
        ("topology.k",),
        {},
        True,
    ),
    (
        "topology.fat_tree.k=64.all_to_all",
        "fat",
        {"topology.k": 64, "topology.traffic": "all_to_all"},
        R,
        ("topology.k",),
        {},
        True,
    ),
    ("topology.fat_tree.k=64.stride", "fat", {"topology.k": 64}, R, ("topology.k",), {}, True),
    ("topology.fat_tree.k=64.none", "fat", {"topology.k": 64, "topology.traffic": "none"}, X, (), {}, False),
    (
        "metrics.sequence_trace.long-run",
        "ip",
        {**_LONG_TRACE, "metrics.sequence_trace": True},
        R,
        ("metrics.sequence_trace",),
        {},
        True,
    ),
    (
        "metrics.tcp_events.long-run",
        "ip",
        {**_LONG_TRACE, "metrics.tcp_events": True},
        R,
        ("metrics.tcp_events",),
        {},
        True,
    ),
    (
        "metrics.sequence_trace.dumbbell-long-run",
        "dumbbell",
        {"simulation.duration": "100000s", "metrics": {"sequence_trace": True}},
        R,
        ("metrics.sequence_trace",),
        {},
        True,
    ),
    (
        "metrics.series_interval.1ns-long-run",
        "ip",
        {"simulation.duration": "100s", "metrics.series_interval": "1ns"},
        R,
        ("metrics.series_interval",),
        {},
        True,
    ),
    (
        "cbr.100Gbps-of-1B-packets",
        "cbr",
        {"cbr[0].rate": "100Gbps", "cbr[0].packet_size": "1B"},
        R,
        ("cbr[0].packet_size",),
        {},
        True,
    ),
    ("cbr.100Gbps-of-20B-packets-10s", "cbr", _BIG_CBR, R, ("cbr[0].rate",), {}, True),
    ("cbr.rate=999999Gbps", "cbr", {"cbr[0].rate": "999999Gbps"}, R, ("cbr[0].rate",), {}, True),
    (
        "cbr.1000-sources-at-1Gbps",
        "cbr",
        {"cbr[0].count": 1000, "cbr[0].rate": "1Gbps", "simulation.duration": "10s"},
        R,
        ("cbr[0]",),
        {},
        True,
    ),
    (
        "tcp.window=2^64-1",
        "ip",
        {"tcp.window": Raw("18446744073709551615")},
        R,
        ("tcp.window", "1073741824|2^30"),
        {},
        True,
    ),
    ("tcp.packet_size-below-headers.0B", "ip", {"tcp.packet_size": "0B"}, R, ("tcp.packet_size",), {}, True),
    (
        "tcp.header_bytes-above-packet",
        "ip",
        {"tcp.packet_size": "40B", "tcp.header_bytes": 100},
        X,
        (),
        {},
        True,
    ),
    # Limits raised on purpose: refused by default, accepted with CONGSIM_LIMITS.
    (
        "limits.flows-raised.count=1000001",
        "ip",
        {"flows[0].count": 1_000_001, "metrics.series_interval": DELETE},
        A,
        (),
        {"CONGSIM_LIMITS": "flows=2000000"},
        False,
    ),
    (
        "limits.transfers-raised",
        "transfers",
        {"transfers[0].arrivals_per_second": 1e6, "simulation.duration": "10s"},
        A,
        (),
        {"CONGSIM_LIMITS": "transfers=1e8"},
        False,
    ),
    (
        "limits.transfers-default",
        "transfers",
        {"transfers[0].arrivals_per_second": 1e6, "simulation.duration": "10s"},
        R,
        ("transfers[0]", "transfers"),
        {},
        True,
    ),
    (
        "limits.source_packets-raised",
        "cbr",
        _BIG_CBR,
        A,
        (),
        {"CONGSIM_LIMITS": "source_packets=1e10"},
        False,
    ),
    (
        "limits.series_rows-raised",
        "ip",
        {"simulation.duration": "100s", "metrics.series_interval": "1us"},
        A,
        (),
        {"CONGSIM_LIMITS": "series_rows=1e9"},
        False,
    ),
    (
        "limits.series_rows-default",
        "ip",
        {"simulation.duration": "100s", "metrics.series_interval": "1us"},
        R,
        ("metrics.series_interval", "series_rows"),
        {},
        True,
    ),
    (
        "limits.trace_rows-raised",
        "ip",
        {**_LONG_TRACE, "metrics.tcp_events": True},
        A,
        (),
        {"CONGSIM_LIMITS": "trace_rows=1e10"},
        False,
    ),
    (
        "limits.fat_tree-k=16.all_to_all-default",
        "fat",
        {"topology.k": 16, "topology.traffic": "all_to_all"},
        R,
        ("topology.k", "flows"),
        {},
        True,
    ),
    # Just under the default limits: validation must fit the memory and time limits too.
    (
        "limits.flows-count=1000000-at-default",
        "ip",
        {"flows[0].count": 1_000_000, "metrics.series_interval": DELETE},
        A,
        (),
        {},
        False,
    ),
    (
        "limits.fat_tree-k=12.all_to_all-at-default",
        "fat",
        {"topology.k": 12, "topology.traffic": "all_to_all"},
        A,
        (),
        {},
        False,
    ),
    ("limits.dumbbell-pairs=999999-at-default", "dumbbell", {"topology.pairs": 999_999}, X, (), {}, False),
    # Limits lowered: a small scenario refused, naming the limit.
    ("limits.nodes=2", "ip", {}, R, ("nodes",), {"CONGSIM_LIMITS": "nodes=2"}, True),
    ("limits.links=1", "ip", {}, R, ("links",), {"CONGSIM_LIMITS": "links=1"}, True),
    (
        "limits.flows=1.count=2",
        "ip",
        {"flows[0].count": 2},
        R,
        ("flows",),
        {"CONGSIM_LIMITS": "flows=1"},
        True,
    ),
    ("limits.route_entries=1", "ip", {}, R, ("route_entries",), {"CONGSIM_LIMITS": "route_entries=1"}, True),
    ("limits.transfers=1", "transfers", {}, R, ("transfers",), {"CONGSIM_LIMITS": "transfers=1"}, True),
    (
        "limits.source_packets=10",
        "cbr",
        {},
        R,
        ("source_packets",),
        {"CONGSIM_LIMITS": "source_packets=10"},
        True,
    ),
    ("limits.series_rows=10", "ip", {}, R, ("series_rows",), {"CONGSIM_LIMITS": "series_rows=10"}, True),
    (
        "limits.trace_rows=10",
        "ip",
        {"metrics.sequence_trace": True},
        R,
        ("trace_rows",),
        {"CONGSIM_LIMITS": "trace_rows=10"},
        True,
    ),
    ("limits.file_bytes=100", "ip", {}, R, ("file_bytes",), {"CONGSIM_LIMITS": "file_bytes=100"}, True),
    (
        "limits.dumbbell-pairs=30-flows=20",
        "dumbbell",
        {"topology.pairs": 30},
        R,
        ("topology.pairs", "flows"),
        {"CONGSIM_LIMITS": "flows=20"},
        True,
    ),
    (
        "limits.dumbbell-pairs=30-flows=30",
        "dumbbell",
        {"topology.pairs": 30},
        A,
        (),
        {"CONGSIM_LIMITS": "flows=30"},
        True,
    ),
    (
        "limits.parking-hops=50-nodes=100",
        "parking",
        {"topology.hops": 50},
        R,
        ("topology.hops", "nodes"),
        {"CONGSIM_LIMITS": "nodes=100"},
        True,
    ),
    (
        "limits.parking-hops=50-nodes=200",
        "parking",
        {"topology.hops": 50},
        A,
        (),
        {"CONGSIM_LIMITS": "nodes=200"},
        True,
    ),
    (
        "limits.incast-senders=40-flows=10",
        "incast",
        {"topology.senders": 40},
        R,
        ("topology.senders", "flows"),
        {"CONGSIM_LIMITS": "flows=10"},
        True,
    ),
    ("limits.fat-k=4-links=10", "fat", {}, R, ("topology.k", "links"), {"CONGSIM_LIMITS": "links=10"}, True),
    # Bad CONGSIM_LIMITS values: refused, naming the variable.
    *[
        (f"limits.env={lim!r}", "ip", {}, R, ("CONGSIM_LIMITS",), {"CONGSIM_LIMITS": lim}, True)
        for lim in (
            "flows=lots",
            "flows=-1",
            "flows=0",
            "flows=1.5",
            "flows=nan",
            "flows=inf",
            "flows=1e400",
            "flows=99999999999999999999999",
            "flows=",
            "flows",
            "=5",
            "bogus=5",
            "FLOWS=5",
            "flows=5;nodes=5",
            "flows=0x10",
            "flows=\x1b[31m5",
        )
    ],
    *[
        (f"limits.env={lim!r}", "ip", {}, A, (), {"CONGSIM_LIMITS": lim}, True)
        for lim in ("", " ", "flows=1_000_000", "flows=2e6", "flows=5,flows=7", ",", " flows = 5 ")
    ],
    # Structure: the shape of the file.
    ("structure.no-simulation", "ip", {"simulation": DELETE}, R, ("simulation",), {}, True),
    ("structure.no-duration", "ip", {"simulation.duration": DELETE}, R, ("duration",), {}, True),
    ("structure.no-nodes", "ip", {"nodes": DELETE}, R, ("nodes",), {}, True),
    ("structure.nodes-empty", "ip", {"nodes": []}, R, ("nodes",), {}, True),
    ("structure.one-node", "ip", {"nodes": ["a"]}, R, ("nodes|links[0]",), {}, True),
    ("structure.nodes-a-string", "ip", {"nodes": "a r b"}, R, ("nodes",), {}, True),
    ("structure.nodes-of-ints", "ip", {"nodes": [1, 2, 3]}, R, ("nodes",), {}, True),
    ("structure.nodes-duplicate", "ip", {"nodes": ["a", "r", "b", "a"]}, R, ("nodes[3]",), {}, True),
    (
        "structure.nodes-200000-unused",
        "ip",
        {"nodes": ["a", "r", "b", *(f"n{i}" for i in range(200_000))], "metrics.series_interval": DELETE},
        A,
        (),
        {},
        True,
    ),
    ("structure.no-links", "ip", {"links": DELETE}, R, ("links|flows[0]",), {}, True),
    ("structure.links-a-table", "ip", {"links": {"from": "a", "to": "b"}}, R, ("links",), {}, True),
    ("structure.links-a-string", "ip", {"links": "a-b"}, R, ("links",), {}, True),
    ("structure.link-missing-rate", "ip", {"links[1].rate": DELETE}, R, ("links[1]", "rate"), {}, True),
    ("structure.link-missing-from", "ip", {"links[1].from": DELETE}, R, ("links[1]", "from"), {}, True),
    ("structure.link-self-loop", "ip", {"links[1].to": "r"}, R, ("links[1]|flows[0]",), {}, True),
    (
        "structure.link-duplicate",
        "ip",
        {"links[2]": {"from": "r", "to": "b", "rate": "1Mbps", "delay": "1ms"}},
        X,
        (),
        {},
        True,
    ),
    (
        "structure.link-unknown-key",
        "ip",
        {"links[1].bandwidth": "1Mbps"},
        R,
        ("links[1].bandwidth",),
        {},
        True,
    ),
    (
        "structure.queue-both-limits",
        "ip",
        {"links[1].queue.limit_bytes": "10KB"},
        R,
        ("links[1].queue",),
        {},
        True,
    ),
    ("structure.queue-a-string", "ip", {"links[1].queue": "droptail"}, R, ("links[1].queue",), {}, True),
    ("structure.queue-red-no-limit", "ip", {"links[1].queue": {"kind": "red"}}, A, (), {}, True),
    (
        "structure.queue-priority-no-classes",
        "ip",
        {"links[1].queue": {"kind": "priority"}},
        R,
        ("links[1].queue",),
        {},
        True,
    ),
    (
        "structure.queue-priority-empty-classes",
        "ip",
        {"links[1].queue": {"kind": "priority", "classes": []}},
        R,
        ("links[1].queue",),
        {},
        True,
    ),
    (
        "structure.cbq-cycle",
        "cbq",
        {"links[1].queue.classes[0].parent": "data"},
        R,
        ("links[1].queue.classes",),
        {},
        True,
    ),
    (
        "structure.cbq-self-parent",
        "cbq",
        {"links[1].queue.classes[1].parent": "video"},
        R,
        ("links[1].queue.classes",),
        {},
        True,
    ),
    (
        "structure.cbq-duplicate-names",
        "cbq",
        {"links[1].queue.classes[2].name": "video"},
        R,
        ("links[1].queue.classes",),
        {},
        True,
    ),
    ("structure.cbq-allots-over-1", "cbq", {"links[1].queue.classes[1].allot": 0.9}, X, (), {}, True),
    ("structure.no-traffic", "ip", {"flows": DELETE}, R, ("flows",), {}, True),
    ("structure.flows-a-table", "ip", {"flows": {"from": "a", "to": "b"}}, R, ("flows",), {}, True),
    ("structure.flow-missing-to", "ip", {"flows[0].to": DELETE}, R, ("flows[0]", "to"), {}, True),
    ("structure.flow-to-itself", "ip", {"flows[0].to": "a"}, R, ("flows[0]",), {}, True),
    (
        "structure.flow-no-route-one-way",
        "ip",
        {"links[1].duplex": False, "flows[0].from": "b", "flows[0].to": "a"},
        R,
        ("flows[0]",),
        {},
        True,
    ),
    (
        "structure.flow-duplicate-names",
        "ip",
        {"flows[1]": {"name": "f1", "from": "a", "to": "b"}},
        R,
        ("flows[1].name",),
        {},
        True,
    ),
    ("structure.flow-and-cbr-same-name", "cbr", {"cbr[0].name": "f1"}, R, ("cbr[0].name",), {}, True),
    (
        "structure.flow-stop-before-start",
        "ip",
        {"flows[0].start": "0.1s", "flows[0].stop": "0.05s"},
        R,
        ("flows[0].stop",),
        {},
        True,
    ),
    (
        "structure.measure-until-before-from",
        "ip",
        {"simulation.measure_from": "0.1s", "simulation.measure_until": "0.05s"},
        R,
        ("simulation.measure_until|simulation.measure_from",),
        {},
        True,
    ),
    ("structure.unknown-top-level-key", "ip", {"flow": [{"from": "a", "to": "b"}]}, R, ("flow",), {}, True),
    ("structure.unknown-table", "ip", {"network": {"x": 1}}, R, ("network",), {}, True),
    (
        "structure.simulation-an-array",
        "ip",
        {"simulation": [{"duration": "1s"}]},
        R,
        ("simulation",),
        {},
        True,
    ),
    ("structure.tcp-a-string", "ip", {"tcp": "reno"}, R, ("tcp",), {}, True),
    ("structure.metrics-a-list", "ip", {"metrics": [1, 2]}, R, ("metrics",), {}, True),
    ("structure.topology-kind-missing", "dumbbell", {"topology.kind": DELETE}, R, ("topology",), {}, True),
    (
        "structure.topology-pairs-missing",
        "dumbbell",
        {"topology.pairs": DELETE},
        R,
        ("topology", "pairs"),
        {},
        True,
    ),
    ("structure.topology-and-own-nodes-clash", "dumbbell", {"nodes": ["s1", "x"]}, R, ("nodes",), {}, True),
    (
        "structure.topology-plus-own-flow",
        "dumbbell",
        {"flows": [{"name": "extra", "from": "s1", "to": "d2"}]},
        A,
        (),
        {},
        True,
    ),
    (
        "structure.topology-flow-name-clash",
        "dumbbell",
        {"flows": [{"name": "tcp1", "from": "s1", "to": "d2"}]},
        R,
        ("flows[0].name",),
        {},
        True,
    ),
    (
        "structure.topology-no-flows-no-traffic",
        "dumbbell",
        {"topology.flows": False},
        R,
        ("flows",),
        {},
        True,
    ),
    (
        "structure.sack-huge-window",
        "ip",
        {"tcp.variant": "sack", "tcp.window": 100_000},
        R,
        ("tcp.variant|tcp.window",),
        {},
        True,
    ),
    ("structure.window-with-bsd-profile", "ip", {"tcp.profile": "bsd"}, R, ("tcp.window",), {}, True),
    (
        "structure.sack_sender-without-sack",
        "ip",
        {"tcp.sack_sender": "rfc6675"},
        R,
        ("tcp.sack_sender",),
        {},
        True,
    ),
    (
        "structure.bcn-reaction-without-bcn",
        "ip",
        {"tcp.bcn_reaction": "calhoun"},
        R,
        ("tcp.bcn_reaction",),
        {},
        True,
    ),
    ("structure.ecmp-over-atm", "atm", {"routing.ecmp": True}, R, ("routing.ecmp",), {}, True),
    ("structure.atm-without-atm-links", "ip", {"atm": {"buffer_cells": 10}}, R, ("atm",), {}, True),
    ("structure.atm-path-mixes-ip", "atm", {"links[2].atm": False}, R, ("flows",), {}, True),
    (
        "structure.atm-queue-on-atm-link",
        "atm",
        {"links[2].queue": {"limit_packets": 5}},
        R,
        ("links[2].queue",),
        {},
        True,
    ),
    ("structure.erica-on-ubr", "atm", {"atm.switch": "erica"}, R, ("atm.switch",), {}, True),
    (
        "structure.vbr-without-atm",
        "ip",
        {"vbr": [{"from": "r", "to": "b", "on": "1ms", "off": "1ms"}]},
        R,
        ("vbr[0]",),
        {},
        True,
    ),
    (
        "structure.vbr-at-a-host",
        "abr",
        {"vbr[0].from": "s1", "vbr[0].to": "sw1"},
        R,
        ("vbr[0].from",),
        {},
        True,
    ),
    (
        "structure.transfers-no-rate",
        "transfers",
        {"transfers[0].arrivals_per_second": DELETE},
        R,
        ("transfers[0]",),
        {},
        True,
    ),
    (
        "structure.transfers-load-without-capacity",
        "transfers",
        {"transfers[0].arrivals_per_second": DELETE, "transfers[0].load": 0.5},
        R,
        ("transfers[0]",),
        {},
        True,
    ),
    (
        "structure.transfers-load-nan",
        "transfers",
        {
            "transfers[0].arrivals_per_second": DELETE,
            "transfers[0].load": Raw("nan"),
            "transfers[0].capacity": "10Mbps",
        },
        R,
        ("transfers[0].load",),
        {},
        True,
    ),
    (
        "structure.transfers-load-1e300",
        "transfers",
        {
            "transfers[0].arrivals_per_second": DELETE,
            "transfers[0].load": 1e300,
            "transfers[0].capacity": "10Mbps",
        },
        R,
        ("transfers[0]",),
        {},
        True,
    ),
    (
        "structure.transfers-load-and-rate",
        "transfers",
        {"transfers[0].load": 0.5, "transfers[0].capacity": "10Mbps"},
        R,
        ("transfers[0]",),
        {},
        True,
    ),
    (
        "structure.transfers-web-max-size-tiny",
        "transfers",
        {"transfers[0].sizes": "web", "transfers[0].mean_size": DELETE, "transfers[0].max_size": "10B"},
        R,
        ("transfers[0].max_size",),
        {},
        True,
    ),
    (
        "structure.drop-unknown-flow",
        "ip",
        {"drops": [{"flow": "nope", "from": "r", "to": "b", "packet": 3}]},
        R,
        ("drops[0].flow",),
        {},
        True,
    ),
    (
        "structure.drop-packet-0",
        "ip",
        {"drops": [{"flow": "f1", "from": "r", "to": "b", "packet": 0}]},
        R,
        ("drops[0].packet",),
        {},
        True,
    ),
    (
        "structure.drop-packet-2^63",
        "ip",
        {"drops": [{"flow": "f1", "from": "r", "to": "b", "packet": 2**63 - 1}]},
        X,
        (),
        {},
        True,
    ),
    (
        "structure.drop-on-a-missing-link",
        "ip",
        {"drops": [{"flow": "f1", "from": "a", "to": "b", "packet": 3}]},
        R,
        ("drops[0]",),
        {},
        True,
    ),
    (
        "structure.mark-unknown-node",
        "ip",
        {"marks": [{"flow": "f1", "from": "r", "to": "zz", "packet": 3}]},
        R,
        ("marks[0].to",),
        {},
        True,
    ),
    (
        "structure.capture-path-up",
        "ip",
        {"captures": [{"file": "../../x.pcap", "links": ["r->b"]}]},
        R,
        ("captures[0].file",),
        {},
        True,
    ),
    (
        "structure.capture-absolute",
        "ip",
        {"captures": [{"file": "/tmp/x.pcap", "links": ["r->b"]}]},
        R,
        ("captures[0].file",),
        {},
        True,
    ),
    (
        "structure.capture-empty-name",
        "ip",
        {"captures": [{"file": "", "links": ["r->b"]}]},
        R,
        ("captures[0].file",),
        {},
        True,
    ),
    (
        "structure.capture-escape-name",
        "ip",
        {"captures": [{"file": ESC + "x.pcap", "links": ["r->b"]}]},
        R,
        ("captures[0].file",),
        {},
        True,
    ),
    (
        "structure.capture-dotdot",
        "ip",
        {"captures": [{"file": "..", "links": ["r->b"]}]},
        R,
        ("captures[0].file",),
        {},
        True,
    ),
    (
        "structure.capture-unknown-link",
        "ip",
        {"captures": [{"file": "x.pcap", "links": ["nowhere"]}]},
        R,
        ("captures[0].links",),
        {},
        True,
    ),
    ("structure.capture-no-links", "ip", {"captures": [{"file": "x.pcap", "links": []}]}, X, (), {}, True),
    (
        "structure.capture-headers-only-yes",
        "ip",
        {"captures": [{"file": "x.pcap", "links": ["r->b"], "headers_only": "yes"}]},
        R,
        ("captures[0].headers_only",),
        {},
        True,
    ),
    # Warnings: allowed, but doing nothing.
    (
        "warning.red-thresholds-above-limit",
        "red",
        {"links[1].queue.limit_packets": 10, "links[1].queue.min_th": 10, "links[1].queue.max_th": 30},
        W,
        ("links[1].queue.min_th",),
        {},
        True,
    ),
    (
        "warning.red-max_th-inf",
        "red",
        {"links[1].queue.limit_packets": 10, "links[1].queue.min_th": 2, "links[1].queue.max_th": Raw("inf")},
        W,
        ("links[1].queue.max_th",),
        {},
        True,
    ),
    (
        "warning.limit_bytes-below-a-packet",
        "ip",
        {"links[1].queue": {"limit_bytes": "500B"}},
        W,
        ("links[1].queue.limit_bytes",),
        {},
        True,
    ),
    (
        "warning.drop-on-the-ack-path",
        "ip",
        {"drops": [{"flow": "f1", "from": "b", "to": "r", "packet": 3}]},
        W,
        ("drops[0]",),
        {},
        True,
    ),
    (
        "warning.mark-on-the-ack-path",
        "ip",
        {"marks": [{"flow": "f1", "from": "b", "to": "r", "packet": 3}]},
        W,
        ("marks[0]",),
        {},
        True,
    ),
    # BBR paces by its model and answers no marks (issue #29).
    (
        "tcp.bbr.pacing=false",
        "ip",
        {"tcp.congestion_control": "bbr", "tcp.pacing": False},
        R,
        ("tcp.pacing",),
        {},
        False,
    ),
    ("tcp.bbr.pacing=true", "ip", {"tcp.congestion_control": "bbr", "tcp.pacing": True}, A, (), {}, True),
    (
        "tcp.bbr.congestion_marks=ecn",
        "ip",
        {"tcp.congestion_control": "bbr", "tcp.congestion_marks": "ecn"},
        R,
        ("tcp.congestion_marks",),
        {},
        False,
    ),
    (
        "flows.bbr.congestion_marks=bcn",
        "ip",
        {"flows[0].tcp": {"congestion_control": "bbr", "congestion_marks": "bcn"}},
        R,
        ("congestion_marks",),
        {},
        False,
    ),
    # Scheduled events (issue #30): the base runs 0.2 s; r->b is its bottleneck.
    ("events.link_down-and-up", "ip", {"events": [_down("0.05s"), _up("0.1s")]}, A, (), {}, True),
    ("events.at-after-the-end", "ip", {"events": [_down("1s")]}, R, ("events[0].at",), {}, True),
    ("events.at-the-end", "ip", {"events": [_down("0.2s")]}, R, ("events[0].at",), {}, True),
    (
        "events.unknown-link",
        "ip",
        {"events": [{"at": "0.1s", "action": "link_down", "link": "r->nowhere"}]},
        R,
        ("events[0].link", "r->nowhere"),
        {},
        True,
    ),
    (
        "events.link_rate.rate=0Mbps",
        "ip",
        {"events": [_rate("0.1s", "0Mbps")]},
        R,
        ("events[0].rate",),
        {},
        True,
    ),
    (
        "events.link_rate.no-rate",
        "ip",
        {"events": [{"at": "0.1s", "action": "link_rate", "link": "r->b"}]},
        R,
        ("events[0].rate",),
        {},
        True,
    ),
    (
        "events.two-rates-at-one-instant",
        "ip",
        {"events": [_rate("0.1s", "1Mbps"), _rate("0.1s", "2Mbps")]},
        R,
        ("events[1]", "events[0]"),
        {},
        True,
    ),
    (
        "events.down-and-up-at-one-instant",
        "ip",
        {"events": [_down("0.1s"), _up("0.1s")]},
        R,
        ("events[1]", "events[0]"),
        {},
        True,
    ),
    (
        "events.link_up-while-up",
        "ip",
        {"events": [_up("0.1s")]},
        R,
        ("events[0].action", "already up"),
        {},
        True,
    ),
    (
        "events.link_down-while-down",
        "ip",
        {"events": [_down("0.05s"), _down("0.1s")]},
        R,
        ("events[1].action", "already down"),
        {},
        True,
    ),
    (
        "events.rate-on-link_down",
        "ip",
        {"events": [{**_down("0.1s"), "rate": "1Mbps"}]},
        R,
        ("events[0].rate",),
        {},
        True,
    ),
    (
        "events.flow-on-link_down",
        "ip",
        {"events": [{**_down("0.1s"), "flow": "f1"}]},
        R,
        ("events[0].flow",),
        {},
        True,
    ),
    (
        "events.unknown-action",
        "ip",
        {"events": [{"at": "0.1s", "action": "link_explode", "link": "r->b"}]},
        R,
        ("events[0].action",),
        {},
        True,
    ),
    (
        "events.flow_stop-of-a-cbr-source",
        "cbr",
        {"events": [{"at": "0.1s", "action": "flow_stop", "flow": "v"}]},
        R,
        ("events[0].flow",),
        {},
        True,
    ),
    (
        "events.link_down-of-an-atm-link",
        "atm",
        {"events": [{"at": "0.1s", "action": "link_down", "link": "sw1->sw2"}]},
        R,
        ("events[0].link",),
        {},
        True,
    ),
    (
        "events.link_rate-of-an-atm-link",
        "atm",
        {"events": [{"at": "0.1s", "action": "link_rate", "link": "sw1->sw2", "rate": "100Mbps"}]},
        R,
        ("events[0].link",),
        {},
        True,
    ),
    # FQ-PIE's flow queues and the change trace's flow names (issue #30).
    (
        "queue.fq_pie.flows=0",
        "ip",
        {"links[1].queue": {"kind": "fq_pie", "flows": 0}},
        R,
        ("links[1].queue.flows",),
        {},
        True,
    ),
    (
        "metrics.tcp_changes-unknown-flow",
        "ip",
        {"metrics.tcp_changes": ["f1", "nosuch"]},
        R,
        ("metrics.tcp_changes[1]", "nosuch"),
        {},
        True,
    ),
]


def edit_cases() -> Iterable[Case]:
    for name, base, changes, expected, mentions, env, run in EDITS:
        yield Case(
            id=f"scenario/{base}/{name}",
            kind="scenario",
            expected=expected,
            mentions=mentions,
            text=dumps(with_values(BASES[base], changes)),
            env=env,
            run=run,
        )


# ---------------------------------------------------------------------------------------------
# Whole files: syntax, encodings, sizes.

IP_TEXT = dumps(IP)
_NEST = 5000


def file_cases() -> Iterable[Case]:
    texts: list[tuple[str, str, str, tuple[str, ...]]] = [
        ("empty", "", R, ("simulation",)),
        ("only-comments", "# nothing\n# at all\n", R, ("simulation",)),
        ("only-whitespace", " \n\t\n\n", R, ("simulation",)),
        ("crlf-line-ends", IP_TEXT.replace("\n", "\r\n"), A, ()),
        ("cr-only-line-ends", IP_TEXT.replace("\n", "\r"), R, ("line",)),
        (
            "duplicate-key",
            IP_TEXT.replace('duration = "0.2s"', 'duration = "0.2s"\nduration = "1s"'),
            R,
            ("line",),
        ),
        ("table-twice", IP_TEXT + "\n[simulation]\nseed = 2\n", R, ("line",)),
        ("unclosed-string", IP_TEXT.replace('"0.2s"', '"0.2s'), R, ("line",)),
        ("unclosed-array", IP_TEXT.replace('"b"]', '"b"'), R, ("line",)),
        ("unclosed-table-header", IP_TEXT.replace("[simulation]", "[simulation"), R, ("line",)),
        ("key-without-value", IP_TEXT + "\nname =\n", R, ("line",)),
        ("bare-word", IP_TEXT + "\nhello\n", R, ("line",)),
        ("nul-byte-in-comment", IP_TEXT + "# a\x00b\n", R, ("line",)),
        ("esc-byte-in-comment", IP_TEXT + "# a\x1b[2Jb\n", R, ("line",)),
        ("raw-esc-in-string", IP_TEXT.replace('name = "ip"', 'name = "a\x1b[2Jb"'), R, ("line|name",)),
        ("raw-newline-in-string", IP_TEXT.replace('name = "ip"', 'name = "a\nb"'), R, ("line",)),
        ("multiline-name", IP_TEXT.replace('name = "ip"', 'name = """a\nb"""'), R, ("name",)),
        ("literal-string-name-with-backslash", IP_TEXT.replace('name = "ip"', "name = 'a\\b'"), A, ()),
        (
            "dotted-key-links",
            IP_TEXT.replace('name = "ip"', 'name = "ip"\nlinks.rate = "1Mbps"'),
            R,
            ("links|line",),
        ),
        ("array-of-tables-simulation", IP_TEXT.replace("[simulation]", "[[simulation]]"), R, ("simulation",)),
        ("links-as-table-header", IP_TEXT.replace("[[links]]", "[links]", 1), R, ("links|line",)),
        (
            "datetime-duration",
            IP_TEXT.replace('duration = "0.2s"', "duration = 1979-05-27T07:32:00Z"),
            R,
            ("simulation.duration",),
        ),
        (
            "time-of-day-duration",
            IP_TEXT.replace('duration = "0.2s"', "duration = 00:00:01"),
            R,
            ("simulation.duration",),
        ),
        (
            "deeply-nested-arrays",
            IP_TEXT.replace('name = "ip"', "name = " + "[" * _NEST + "]" * _NEST),
            R,
            ("name|line",),
        ),
        (
            "deeply-nested-inline-tables",
            IP_TEXT.replace('name = "ip"', "name = " + "{ a = " * _NEST + "1" + " }" * _NEST),
            R,
            ("name|line",),
        ),
        (
            "deeply-dotted-key",
            IP_TEXT.replace('name = "ip"', "x" + ".x" * _NEST + ' = 1\nname = "ip"'),
            R,
            ("x|line|TOML",),
        ),
        (
            "100000-unknown-keys",
            IP_TEXT.replace(
                'name = "ip"', 'name = "ip"\n' + "".join(f"k{i} = {i}\n" for i in range(100_000))
            ),
            R,
            ("k0|k",),
        ),
        ("1MB-comment-line", "#" + "x" * 1_000_000 + "\n" + IP_TEXT, A, ()),
        (
            "100000-flows-entries",
            IP_TEXT.replace("[metrics]", "[x]").split("[x]")[0]
            + "".join(f'\n[[flows]]\nname = "g{i}"\nfrom = "a"\nto = "b"\n' for i in range(100_000)),
            X,
            (),
        ),
    ]
    for name, text, expected, mentions in texts:
        yield Case(
            id=f"scenario/file/{name}",
            kind="scenario",
            expected=expected,
            mentions=mentions,
            text=text,
            run=name != "100000-flows-entries",
        )
    datas: list[tuple[str, Any, str, tuple[str, ...]]] = [
        ("binary", bytes(range(256)) * 4, R, ("UTF-8",)),
        ("utf-16", IP_TEXT.encode("utf-16"), R, ("UTF-8",)),
        ("utf-16-le-no-bom", IP_TEXT.encode("utf-16-le"), R, ("UTF-8|line",)),
        ("utf-8-bom", b"\xef\xbb\xbf" + IP_TEXT.encode(), X, ()),
        ("latin-1-comment", IP_TEXT.encode() + b"# caf\xe9\n", R, ("UTF-8",)),
        ("truncated-utf-8", IP_TEXT.encode() + b"# \xe2\x82\n", R, ("UTF-8",)),
        ("overlong-utf-8-nul", IP_TEXT.encode() + b"# \xc0\x80\n", R, ("UTF-8",)),
        ("surrogate-utf-8", IP_TEXT.encode() + b"# \xed\xa0\x80\n", R, ("UTF-8",)),
        ("gzip-magic", b"\x1f\x8b\x08\x00" + bytes(100), R, ("UTF-8|line",)),
        ("all-nul", bytes(10_000), R, ("line|UTF-8",)),
        ("100MB-of-comment", ("repeat", "# ", b"x", 100 * 2**20), R, ("file_bytes",)),
        ("100MB-single-string", ("repeat", 'name = "', b"y", 100 * 2**20), R, ("file_bytes",)),
        ("70MB-comment-limit-raised", ("repeat", IP_TEXT + "# ", b"z", 70 * 2**20), A, ()),
    ]
    for name, data, expected, mentions in datas:
        env = {"CONGSIM_LIMITS": "file_bytes=1e8"} if "raised" in name else {}
        yield Case(
            id=f"scenario/file/{name}",
            kind="scenario",
            expected=expected,
            mentions=mentions,
            data=data,
            env=env,
        )
    paths = [
        ("/dev/zero", R, ("/dev/zero", "file_bytes")),
        ("/dev/urandom", R, ("/dev/urandom",)),
        ("/dev/null", R, ("simulation",)),
        ("/", R, ("/",)),
        ("/proc/self/mem", R, ("/proc/self/mem",)),
        ("/proc/self/status", R, ("/proc/self/status",)),
        ("/nonexistent/x.toml", R, ("/nonexistent/x.toml",)),
        ("/etc/shadow-not-there-\x1b[2J", R, ("/etc/shadow-not-there",)),
    ]
    for path, expected, mentions in paths:
        yield Case(
            id=f"scenario/path/{label(path)}",
            kind="scenario",
            expected=expected,
            mentions=mentions,
            path=path,
        )


# ---------------------------------------------------------------------------------------------
# Sweep plans (Python: loads_plan with the case's folder as base_dir).

#: The plans' base scenario (`ip.toml` in the case folder).
PLAN_SCENARIO = dumps(with_value(IP, "metrics", {}))


def plan_text(
    name: Any = "p",
    scenario: Any = "ip.toml",
    replications: Any = 1,
    axes: str = '"tcp.window" = [10, 20]',
    extra: str = "",
) -> str:
    lines = []
    if name is not DELETE:
        lines.append(f"name = {value(name)}")
    if scenario is not DELETE:
        lines.append(f"scenario = {value(scenario)}")
    if replications is not DELETE:
        lines.append(f"replications = {value(replications)}")
    lines.append(extra)
    lines.append(f"[axes]\n{axes}\n")
    return "\n".join(lines)


def _axis(name: str, count: int) -> str:
    return f'"{name}" = [{", ".join(str(i) for i in range(1, count + 1))}]'


_BIG_AXES = "\n".join(
    _axis(name, 1000) for name in ("tcp.window", "tcp.initial_window", "links[1].queue.limit_packets")
)
_FORTY_AXES = (
    "\n".join(f'"links[{i % 2}].queue.limit_packets" = [10, 20]' for i in range(2))
    + "\n"
    + "\n".join(f'"tcp.window{i}" = [1, 2]' for i in range(38))
)


def plan_cases() -> Iterable[Case]:
    files = {"ip.toml": PLAN_SCENARIO}
    rows: list[tuple[str, str, str, tuple[str, ...], dict[str, Any], dict[str, str], bool]] = [
        ("valid", plan_text(), A, (), {}, {}, True),
        (
            "valid-points",
            plan_text(
                axes="", extra='points = [{ "tcp.window" = 10, label = "small" }, { "tcp.window" = 30 }]'
            ),
            A,
            (),
            {},
            {},
            True,
        ),
        ("valid-every-link", plan_text(axes='"links[*].delay" = ["1ms", "2ms"]'), A, (), {}, {}, True),
        # names
        *[
            (f"name={label(n)}", plan_text(name=n), R, ("name",), {}, {}, False)
            for n in (
                "../../../x",
                "..",
                ".",
                "",
                " ",
                "a/b",
                "a\\b",
                "/abs",
                ESC + "red",
                "a\x00b",
                "a\nb",
                "a\rb",
                "\x7f",
                "\x9b2J",
                "x" * 101,
                Raw("1"),
                Raw("true"),
                Raw("[]"),
            )
        ],
        ("name=\\u202e", plan_text(name="\u202eevil"), X, (), {}, {}, False),
        ("name=unicode", plan_text(name="\u540d\u524d"), A, (), {}, {}, False),
        ("name-missing", plan_text(name=DELETE), A, (), {}, {}, False),
        # the scenario
        ("scenario-missing", plan_text(scenario=DELETE), R, ("scenario",), {}, {}, False),
        ("scenario=1", plan_text(scenario=Raw("1")), R, ("scenario",), {}, {}, False),
        ("scenario=empty", plan_text(scenario=""), R, ("scenario",), {}, {}, False),
        ("scenario=not-there", plan_text(scenario="nope.toml"), R, ("scenario", "nope.toml"), {}, {}, False),
        ("scenario=/dev/zero", plan_text(scenario="/dev/zero"), R, ("scenario", "file_bytes"), {}, {}, False),
        ("scenario=/etc/passwd", plan_text(scenario="/etc/passwd"), R, ("/etc/passwd",), {}, {}, False),
        ("scenario=folder", plan_text(scenario="."), R, ("scenario",), {}, {}, False),
        (
            "scenario=invalid",
            plan_text(scenario="bad.toml"),
            R,
            ("bad.toml", "links[1].rate"),
            {"bad.toml": dumps(with_value(IP, "links[1].rate", "fast"))},
            {},
            False,
        ),
        (
            "scenario=binary",
            plan_text(scenario="bin.toml"),
            R,
            ("scenario",),
            {"bin.toml": bytes(range(256))},
            {},
            False,
        ),
        ("scenario=esc-path", plan_text(scenario=ESC + ".toml"), R, ("scenario",), {}, {}, False),
        # replications
        *[
            (f"replications={label(r)}", plan_text(replications=r), R, ("replications",), {}, {}, False)
            for r in (
                Raw("0"),
                Raw("-1"),
                Raw("1.5"),
                S("5"),
                Raw("true"),
                Raw("nan"),
                Raw("inf"),
                Raw("1000000000"),
                Raw("9223372036854775807"),
                Raw("18446744073709551616"),
            )
        ],
        (
            "replications=2000000-limit-raised",
            plan_text(replications=Raw("2000000"), axes=""),
            A,
            (),
            {},
            {"CONGSIM_LIMITS": "plan_runs=3e6"},
            False,
        ),
        (
            "replications=2000000-default",
            plan_text(replications=Raw("2000000"), axes=""),
            R,
            ("plan_runs",),
            {},
            {},
            False,
        ),
        ("plan_runs=1", plan_text(), R, ("plan_runs",), {}, {"CONGSIM_LIMITS": "plan_runs=1"}, False),
        # axes
        ("axes-product-10^9", plan_text(axes=_BIG_AXES), R, ("axes", "plan_runs"), {}, {}, False),
        ("axes-2^40", plan_text(axes=_FORTY_AXES), R, ("axes", "plan_runs"), {}, {}, False),
        (
            "axes-a-string",
            plan_text(axes="").replace("[axes]", 'axes = "tcp.window"'),
            R,
            ("axes",),
            {},
            {},
            False,
        ),
        ("axis-not-a-list", plan_text(axes='"tcp.window" = 5'), R, ("axes.tcp.window",), {}, {}, False),
        ("axis-empty", plan_text(axes='"tcp.window" = []'), R, ("axes.tcp.window",), {}, {}, False),
        ("axis-bad-value", plan_text(axes='"tcp.window" = [10, -1]'), R, ("tcp.window",), {}, {}, False),
        ("axis-nan", plan_text(axes='"tcp.window" = [nan]'), R, ("tcp.window",), {}, {}, False),
        ("axis-mixed-types", plan_text(axes='"tcp.window" = [10, "x"]'), R, ("tcp.window",), {}, {}, False),
        ("axis-unknown-field", plan_text(axes='"tcp.colour" = ["red"]'), R, ("tcp.colour",), {}, {}, False),
        ("axis-empty-path", plan_text(axes='"" = [1]'), R, ("axes",), {}, {}, False),
        (
            "axis-index-out-of-range",
            plan_text(axes='"links[99].rate" = ["1Mbps"]'),
            R,
            ("links[99]",),
            {},
            {},
            False,
        ),
        ("axis-bad-index", plan_text(axes='"links[x].rate" = ["1Mbps"]'), R, ("links[x]",), {}, {}, False),
        (
            "axis-negative-index",
            plan_text(axes='"links[-1].rate" = ["1Mbps"]'),
            R,
            ("links[-1]",),
            {},
            {},
            False,
        ),
        (
            "axis-huge-index",
            plan_text(axes='"links[18446744073709551616].rate" = ["1Mbps"]'),
            R,
            ("links[",),
            {},
            {},
            False,
        ),
        ("axis-double-dot", plan_text(axes='"tcp..window" = [1]'), R, ("tcp..window",), {}, {}, False),
        ("axis-control-char", plan_text(axes='"tcp.\\u001b[2Jwindow" = [1]'), R, ("tcp.",), {}, {}, False),
        ("axis-replaces-a-table", plan_text(axes='"tcp" = ["reno"]'), R, ("tcp",), {}, {}, False),
        ("axis-sets-nodes-empty", plan_text(axes='"nodes" = [[]]'), R, ("nodes",), {}, {}, False),
        (
            "axis-simulation-replications-0",
            plan_text(axes='"simulation.replications" = [0]'),
            X,
            (),
            {},
            {},
            False,
        ),
        (
            "axis-1000001-values",
            plan_text(axes=_axis("tcp.window", 1_000_001)),
            R,
            ("plan_runs",),
            {},
            {},
            False,
        ),
        # set and points
        ("set-a-string", plan_text(extra='set = "x"'), R, ("set",), {}, {}, False),
        (
            "set-bad-value",
            plan_text(extra='[set]\n"tcp.initial_window" = 0\n'),
            R,
            ("tcp.initial_window",),
            {},
            {},
            False,
        ),
        (
            "set-and-axis-same-field",
            plan_text(extra='[set]\n"tcp.window" = 5\n'),
            R,
            ("tcp.window",),
            {},
            {},
            False,
        ),
        ("points-a-string", plan_text(axes="", extra='points = "x"'), R, ("points",), {}, {}, False),
        ("points-of-ints", plan_text(axes="", extra="points = [1, 2]"), R, ("points",), {}, {}, False),
        ("points-empty-table", plan_text(axes="", extra="points = [{}]"), R, ("points",), {}, {}, False),
        (
            "points-label-not-a-string",
            plan_text(axes="", extra='points = [{ label = 5, "tcp.window" = 5 }]'),
            R,
            ("points|label",),
            {},
            {},
            False,
        ),
        (
            "points-bad-value",
            plan_text(axes="", extra='points = [{ "tcp.window" = -5 }]'),
            R,
            ("tcp.window",),
            {},
            {},
            False,
        ),
        (
            "points-and-axis-same-field",
            plan_text(extra='points = [{ "tcp.window" = 5 }]'),
            R,
            ("tcp.window",),
            {},
            {},
            False,
        ),
        (
            "points-label-escape",
            plan_text(axes="", extra='points = [{ label = "\\u001b[2J", "tcp.window" = 5 }]'),
            X,
            (),
            {},
            {},
            False,
        ),
        # the file
        ("unknown-key", plan_text(extra="axis = 1"), R, ("axis",), {}, {}, False),
        ("not-toml", "name = \n", R, ("TOML|line",), {}, {}, False),
        ("empty", "", R, ("scenario",), {}, {}, False),
        ("file_bytes=10", plan_text(), R, ("file_bytes",), {}, {"CONGSIM_LIMITS": "file_bytes=10"}, False),
    ]
    for name, text, expected, mentions, extra_files, env, run in rows:
        yield Case(
            id=f"plan/{name}",
            kind="plan",
            expected=expected,
            mentions=mentions,
            text=text,
            files={**files, **extra_files},
            env=env,
            run=run,
        )


# ---------------------------------------------------------------------------------------------
# The command line. `{ip}`, `{plan}`, `{trace_run}` are valid fixtures; `{tmp}` the case folder.

_BAD_IP = dumps(
    with_value(
        IP,
        "topology",
        {
            "kind": "dumbbell",
            "pairs": 1_000_000_000,
            "bottleneck_rate": "1Mbps",
            "bottleneck_delay": "1ms",
            "access_rate": "1Mbps",
            "access_delay": "1ms",
        },
    )
)
_RATE_IP = dumps(with_value(IP, "links[1].rate", "10 parsecs"))
_ESC_IP = dumps(with_value(IP, "flows[0].to", "\x1b[2J"))
_WARN_IP = dumps(with_value(IP, "links[1].queue", {"limit_bytes": "500B"}))
_BIG_PLAN = plan_text(axes=_BIG_AXES)
_FORTY_PLAN = plan_text(axes=_FORTY_AXES)
_DOTDOT_PLAN = plan_text(name="../../../x")
_ESC_PLAN = plan_text(name=ESC + "x")
_DASK = ("sweep", "{plan}", "--executor", "dask", "--scheduler")
#: Accepted files whose text reaches the output: what is printed must hold no raw control character.
_DESC_IP = dumps(with_value(IP, "description", "\x1b[2J\x1b[31mred\x07"))
_MARKUP_IP = dumps(with_value(IP, "flows[0].name", "[red]markup[/red]"))
_RLO_IP = dumps(with_values(IP, {"flows[0].name": "\u202eevil", "nodes[1]": "\u202er"}))
_QUOTE_IP = dumps(
    with_values(IP, {"nodes[1]": 'r" -> "x', "links[0].to": 'r" -> "x', "links[1].from": 'r" -> "x'})
)
_LABELLED_PLAN = plan_text(axes="", extra='points = [{ label = "\\u001b[2J", "tcp.window" = 5 }]')

# (arguments, expected, mentions, files, environment, time limit)
CliRow = tuple[tuple[str, ...], str, tuple[str, ...], dict[str, Any], dict[str, str], float]

CLI: list[CliRow] = [
    # run
    (("run", "{ip}"), A, (), {}, {}, 20),
    (("run", "{ip}", "--out", "{tmp}/out"), A, (), {}, {}, 20),
    (("run", "{warn}"), W, ("links[1].queue.limit_bytes",), {"warn": _WARN_IP}, {}, 20),
    (("run", "/dev/zero"), R, ("/dev/zero", "file_bytes"), {}, {}, 20),
    (("validate", "/dev/zero"), R, ("/dev/zero", "file_bytes"), {}, {}, 20),
    (("show", "/dev/zero"), R, ("/dev/zero", "file_bytes"), {}, {}, 20),
    (("run", "/dev/urandom"), R, ("/dev/urandom",), {}, {}, 20),
    (("run", "{big}"), R, ("{big}", "file_bytes"), {"big": ("repeat", "# ", b"x", 100 * 2**20)}, {}, 20),
    (("validate", "{big}"), R, ("{big}", "file_bytes"), {"big": ("repeat", "# ", b"x", 100 * 2**20)}, {}, 20),
    (
        ("validate", "{big}"),
        A,
        (),
        {"big": ("repeat", dumps(IP) + "# ", b"x", 100 * 2**20)},
        {"CONGSIM_LIMITS": "file_bytes=2e8"},
        20,
    ),
    (("run", "{tmp}/missing.toml"), R, ("missing.toml",), {}, {}, 20),
    (("run", "{tmp}"), R, ("{tmp}",), {}, {}, 20),
    (("run", ""), R, ("FILE|empty",), {}, {}, 20),
    (("run",), R, ("FILE",), {}, {}, 20),
    (("run", "{pairs}"), R, ("{pairs}", "topology.pairs"), {"pairs": _BAD_IP}, {}, 20),
    (("validate", "{pairs}"), R, ("{pairs}", "topology.pairs"), {"pairs": _BAD_IP}, {}, 20),
    (("show", "{pairs}"), R, ("{pairs}", "topology.pairs"), {"pairs": _BAD_IP}, {}, 20),
    (("run", "{rate}"), R, ("{rate}", "links[1].rate"), {"rate": _RATE_IP}, {}, 20),
    (("validate", "{esc}"), R, ("{esc}", "flows[0].to"), {"esc": _ESC_IP}, {}, 20),
    (("run", "{bin}"), R, ("{bin}", "UTF-8"), {"bin": bytes(range(256))}, {}, 20),
    (("run", "{ip}", "--replication", "-1"), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--replication", str(2**70)), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--replication", "4294967296"), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--replication", "4294967295"), A, (), {}, {}, 20),
    (("run", "{ip}", "--replication", "1.5"), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--replication", "nan"), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--replication", ""), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--replication"), R, ("--replication",), {}, {}, 20),
    (("run", "{ip}", "--out", ""), R, ("--out",), {}, {}, 20),
    (("run", "{ip}", "--out", "/sys/kernel"), R, ("/sys/kernel",), {}, {}, 8),
    (("run", "{ip}", "--out", "/proc/self"), R, ("/proc/self",), {}, {}, 8),
    (("run", "{ip}", "--out", "/dev/null"), R, ("/dev/null",), {}, {}, 8),
    (("run", "{ip}", "--out", "{ip}/sub"), R, ("{ip}/sub",), {}, {}, 8),
    (("run", "{ip}", "--out", "{tmp}/" + "x" * 300), R, ("x" * 20,), {}, {}, 8),
    (("run", "{ip}", "--out", "{tmp}/\x1b[31mred"), X, (), {}, {}, 20),
    (("run", "{ip}", "--out", "{tmp}/a\nb"), X, (), {}, {}, 20),
    (("run", "{ip}", "--bogus"), R, ("--bogus",), {}, {}, 20),
    (("run", "{ip}", "extra-argument"), R, ("extra-argument",), {}, {}, 20),
    (("run", "{tmp}/\x1b[2Jmissing.toml"), R, ("missing.toml",), {}, {}, 20),
    (("run", "{tmp}/a\nb.toml"), R, ("b.toml",), {}, {}, 20),
    (("run", "{tmp}/" + "y" * 5000), R, ("yyyy",), {}, {}, 20),
    (
        ("run", "{dumb}"),
        R,
        ("{dumb}", "topology.pairs"),
        {"dumb": dumps(with_value(DUMBBELL, "topology.pairs", 30))},
        {"CONGSIM_LIMITS": "flows=20"},
        20,
    ),
    (
        ("run", "{dumb}"),
        A,
        (),
        {"dumb": dumps(with_value(DUMBBELL, "topology.pairs", 30))},
        {"CONGSIM_LIMITS": "flows=30"},
        20,
    ),
    (("run", "{ip}"), R, ("CONGSIM_LIMITS",), {}, {"CONGSIM_LIMITS": "flows=lots"}, 20),
    (("validate", "{ip}"), R, ("CONGSIM_LIMITS",), {}, {"CONGSIM_LIMITS": "nodes=-5"}, 20),
    (("run", "{ip}"), R, ("nodes",), {}, {"CONGSIM_LIMITS": "nodes=2"}, 20),
    (("run", "{desc}"), X, (), {"desc": _DESC_IP}, {}, 20),
    (("validate", "{desc}"), X, (), {"desc": _DESC_IP}, {}, 20),
    (("show", "{desc}"), X, (), {"desc": _DESC_IP}, {}, 20),
    (("run", "{markup}"), A, (), {"markup": _MARKUP_IP}, {}, 20),
    (("run", "{rlo}"), X, (), {"rlo": _RLO_IP}, {}, 20),
    (("validate", "{rlo}", "--routes"), X, (), {"rlo": _RLO_IP}, {}, 20),
    (("show", "{rlo}"), X, (), {"rlo": _RLO_IP}, {}, 20),
    (("show", "{quote}"), A, (), {"quote": _QUOTE_IP}, {}, 20),
    (("validate", "{quote}", "--routes"), A, (), {"quote": _QUOTE_IP}, {}, 20),
    (
        ("sweep", "{labelled}", "--workers", "1", "--out", "{tmp}/s"),
        X,
        (),
        {"labelled": _LABELLED_PLAN, "ip.toml": PLAN_SCENARIO},
        {},
        30,
    ),
    # validate, show, schema
    (("validate", "{ip}"), A, (), {}, {}, 20),
    (("validate", "{ip}", "--routes"), A, (), {}, {}, 20),
    (("validate", "{warn}"), W, ("links[1].queue.limit_bytes",), {"warn": _WARN_IP}, {}, 20),
    (("validate", ""), R, ("FILE|empty",), {}, {}, 20),
    (("validate", "/"), R, ("/",), {}, {}, 20),
    (("validate", "/proc/self/mem"), R, ("/proc/self/mem",), {}, {}, 20),
    (("validate", "{tmp}/nope.toml", "--routes"), R, ("nope.toml",), {}, {}, 20),
    (("show", "{ip}"), A, (), {}, {}, 20),
    (("show", "{ip}", "--out", "{tmp}/x.jpg"), R, ("--out",), {}, {}, 20),
    (("show", "{ip}", "--out", "{tmp}/x"), R, ("--out",), {}, {}, 20),
    (("show", "{ip}", "--out", ""), R, ("--out",), {}, {}, 20),
    (("show", "{ip}", "--out", "/sys/kernel/x.dot"), R, ("/sys/kernel/x.dot",), {}, {}, 20),
    (("show", "{ip}", "--out", "{tmp}/nodir/x.dot"), R, ("x.dot",), {}, {}, 20),
    (("show", "{esc}"), R, ("{esc}",), {"esc": _ESC_IP}, {}, 20),
    (("schema",), A, (), {}, {}, 20),
    (("schema", "--out", ""), R, ("--out",), {}, {}, 20),
    (("schema", "--out", "/sys/kernel/schema.json"), R, ("/sys/kernel/schema.json",), {}, {}, 20),
    (("schema", "--out", "{tmp}"), R, ("{tmp}",), {}, {}, 20),
    (("schema", "extra"), R, ("extra",), {}, {}, 20),
    # sweep
    (("sweep", "{plan}", "--workers", "1", "--out", "{tmp}/s"), A, (), {}, {}, 30),
    (("sweep", "{plan}", "--workers", "-1"), R, ("--workers",), {}, {}, 20),
    (("sweep", "{plan}", "--workers", "0"), R, ("--workers",), {}, {}, 20),
    (("sweep", "{plan}", "--workers", "4097"), R, ("--workers",), {}, {}, 20),
    (("sweep", "{plan}", "--workers", str(2**70)), R, ("--workers",), {}, {}, 20),
    (("sweep", "{plan}", "--workers", "two"), R, ("--workers",), {}, {}, 20),
    (("sweep", "{plan}", "--out", ""), R, ("--out",), {}, {}, 20),
    (("sweep", "{plan}", "--out", "/sys/kernel"), R, ("/sys/kernel",), {}, {}, 8),
    (("sweep", "{plan}", "--out", "/dev/null"), R, ("/dev/null",), {}, {}, 8),
    (("sweep", "{plan}", "--executor", "threads"), R, ("--executor",), {}, {}, 20),
    (("sweep", "{plan}", "--executor", "dask"), R, ("--scheduler",), {}, {}, 20),
    (("sweep", "{plan}", "--scheduler", "tcp://127.0.0.1:8786"), R, ("--executor|--scheduler",), {}, {}, 20),
    ((*_DASK, "not-an-address"), R, ("not-an-address",), {}, {}, 8),
    ((*_DASK, "tcp://[::1:8786"), R, ("tcp://[::1:8786",), {}, {}, 8),
    ((*_DASK, "http://127.0.0.1:1"), R, ("http://127.0.0.1:1",), {}, {}, 8),
    ((*_DASK, "tcp://127.0.0.1:1"), R, ("tcp://127.0.0.1:1",), {}, {}, 8),
    ((*_DASK, ""), R, ("--scheduler",), {}, {}, 8),
    ((*_DASK, "tcp://127.0.0.1:99999"), R, ("99999",), {}, {}, 8),
    ((*_DASK, "tcp://\x1b[31m:1"), R, ("--scheduler|scheduler",), {}, {}, 8),
    (("sweep", "{big}"), R, ("{big}", "plan_runs"), {"big": _BIG_PLAN, "ip.toml": PLAN_SCENARIO}, {}, 20),
    (
        ("sweep", "{forty}"),
        R,
        ("{forty}", "plan_runs"),
        {"forty": _FORTY_PLAN, "ip.toml": PLAN_SCENARIO},
        {},
        20,
    ),
    (("sweep", "{up}"), R, ("{up}", "name"), {"up": _DOTDOT_PLAN, "ip.toml": PLAN_SCENARIO}, {}, 20),
    (("sweep", "{escp}"), R, ("name",), {"escp": _ESC_PLAN, "ip.toml": PLAN_SCENARIO}, {}, 20),
    (("sweep", "/dev/zero"), R, ("/dev/zero", "file_bytes"), {}, {}, 20),
    (("sweep", "{tmp}/missing.toml"), R, ("missing.toml",), {}, {}, 20),
    (("sweep", "{tmp}"), R, ("{tmp}",), {}, {}, 20),
    (("sweep", "{ip}"), R, ("{ip}",), {}, {}, 20),
    (("sweep", "{plan}"), R, ("plan_runs",), {}, {"CONGSIM_LIMITS": "plan_runs=1"}, 20),
    # reproduce (refused before any run)
    (("reproduce", "koga2000", "--replications", "1000000000"), R, ("--replications",), {}, {}, 20),
    (("reproduce", "koga2000", "--replications", "0"), R, ("--replications",), {}, {}, 20),
    (("reproduce", "koga2000", "--replications", "-1"), R, ("--replications",), {}, {}, 20),
    (("reproduce", "koga2000", "--replications", "100001"), R, ("--replications",), {}, {}, 20),
    (("reproduce", "koga2000", "--workers", "0"), R, ("--workers",), {}, {}, 20),
    (("reproduce", "koga2000", "--workers", "-1"), R, ("--workers",), {}, {}, 20),
    (("reproduce", "koga2000", "--out", ""), R, ("--out",), {}, {}, 20),
    (("reproduce", "koga2000", "--out", "/sys/kernel"), R, ("/sys/kernel",), {}, {}, 8),
    (("reproduce", "koga2000", "--out", "/dev/null"), R, ("/dev/null",), {}, {}, 8),
    (("reproduce", "nosuchstudy"), R, ("nosuchstudy",), {}, {}, 20),
    (("reproduce", ""), R, ("study|''",), {}, {}, 20),
    (("reproduce", "\x1b[31mred"), R, ("red",), {}, {}, 20),
    (("reproduce", "../../etc"), R, ("../../etc",), {}, {}, 20),
    (("reproduce",), R, ("STUDY",), {}, {}, 20),
    # report and plot-sequence
    (("report", "{tmp}/nothing"), R, ("nothing",), {}, {}, 20),
    (("report", "{tmp}"), R, ("{tmp}",), {}, {}, 20),
    (("report", "{ip}"), R, ("{ip}",), {}, {}, 20),
    (("report", ""), R, ("DIRECTORY|empty",), {}, {}, 20),
    (("report", "/dev/zero"), R, ("/dev/zero",), {}, {}, 20),
    (("report", "{tmp}", "--out", ""), R, ("--out",), {}, {}, 20),
    (("plot-sequence", "{trace_run}", "--flow", "f1", "--out", "{tmp}/f.svg"), A, (), {}, {}, 30),
    (("plot-sequence", "{trace_run}", "--flow", "nope"), R, ("nope",), {}, {}, 20),
    (("plot-sequence", "{trace_run}", "--flow", ""), R, ("--flow|flow",), {}, {}, 20),
    (("plot-sequence", "{trace_run}", "--flow", "\x1b[31mred"), R, ("red",), {}, {}, 20),
    (("plot-sequence", "{trace_run}", "--flow", "../../../x"), R, ("../../../x",), {}, {}, 20),
    (("plot-sequence", "{trace_run}"), R, ("--flow",), {}, {}, 20),
    (("plot-sequence", "{trace_run}", "--flow", "f1", "--out", "{tmp}/f.jpg2"), R, ("f.jpg2",), {}, {}, 30),
    (
        ("plot-sequence", "{trace_run}", "--flow", "f1", "--out", "/sys/kernel/f.svg"),
        R,
        ("/sys/kernel/f.svg",),
        {},
        {},
        30,
    ),
    (("plot-sequence", "{trace_run}", "--flow", "f1", "--out", ""), R, ("--out",), {}, {}, 20),
    (("plot-sequence", "{tmp}", "--flow", "f1"), R, ("{tmp}",), {}, {}, 20),
    (("plot-sequence", "{tmp}/none", "--flow", "f1"), R, ("none",), {}, {}, 20),
    (("plot-sequence", "{ip}", "--flow", "f1"), R, ("{ip}",), {}, {}, 20),
    # the command itself
    ((), A, (), {}, {}, 20),
    (("--help",), A, (), {}, {}, 20),
    (("nosuchcommand",), R, ("nosuchcommand",), {}, {}, 20),
    (("--bogus",), R, ("--bogus",), {}, {}, 20),
    (("\x1b[2J",), R, ("No such command|command",), {}, {}, 20),
    (("run", "--help"), A, (), {}, {}, 20),
]


def cli_cases() -> Iterable[Case]:
    for args, expected, mentions, files, env, limit in CLI:
        shown = " ".join(
            a if a and a.isprintable() and " " not in a and len(a) <= 40 else label(a) for a in args
        )
        env_part = f" [{label(env['CONGSIM_LIMITS'])}]" if env else ""
        files_part = "".join(f" {{{name}}}" for name in files if f"{{{name}}}" not in " ".join(args))
        yield Case(
            id=f"cli/{shown}{env_part}{files_part}".rstrip() if args else "cli/(no arguments)",
            kind="cli",
            expected=expected,
            mentions=mentions,
            args=args,
            files=files,
            env=env,
            limit_s=limit,
        )


# ---------------------------------------------------------------------------------------------
# Python calls. Names: congsim, sweep (congsim.sweep), S (a valid Scenario), P (its file, a
# str), PLAN (a valid Plan), PLAN_FILE, TEXT (S's text), R (Results of S), TMP (a new folder),
# AXES_OF_10_TO_THE_9_RUNS (three real fields of 1000 values each),
# Path, np (numpy), and helpers: selfref_dict(), selfref_list(), nested(n), replace.

# (expression, expected, mentions, further exception types that are clean, time limit)
ApiRow = tuple[str, str, tuple[str, ...], tuple[str, ...], float]

API: list[ApiRow] = [
    # congsim.run
    ("congsim.run(None)", R, ("Scenario",), (), 20),
    ('congsim.run("path.toml")', R, ("congsim.load",), (), 20),
    ("congsim.run(P)", R, ("congsim.load",), (), 20),
    ("congsim.run(Path(P))", R, ("congsim.load",), (), 20),
    ('congsim.run({"nodes": ["a", "b"]})', R, ("from_dict",), (), 20),
    ("congsim.run(TEXT)", R, ("Scenario",), (), 20),
    ("congsim.run(S, 2**70)", R, ("replication",), (), 20),
    ("congsim.run(S, 2**32)", R, ("replication",), (), 20),
    ("congsim.run(S, -1)", R, ("replication",), (), 20),
    ("congsim.run(S, 1.5)", R, ("replication",), (), 20),
    ("congsim.run(S, True)", R, ("replication",), (), 20),
    ('congsim.run(S, "0")', R, ("replication",), (), 20),
    ("congsim.run(S, None)", R, ("replication",), (), 20),
    ("congsim.run(S, float('nan'))", R, ("replication",), (), 20),
    ("congsim.run(S, np.int64(1))", A, (), (), 20),
    ("congsim.run(S, 2**32 - 1)", A, (), (), 20),
    ("congsim.run(S, progress=3)", R, ("progress",), (), 20),
    ('congsim.run(S, progress="print")', R, ("progress",), (), 20),
    ("congsim.run(S, progress=lambda: None)", X, (), (), 20),
    ("congsim.run(S, 0, print, 4)", R, ("run",), (), 20),
    ("congsim.run(S, replication=-5)", R, ("replication",), (), 20),
    ("congsim.run(S, seed=3)", R, ("seed",), (), 20),
    ("congsim.run(congsim.Scenario(TEXT, 'x', 'x', 1, 1))", A, (), (), 20),
    ("congsim.run(congsim.Scenario('garbage', 'x.toml', 'x', 1, 1))", R, ("x.toml",), (), 20),
    ("congsim.run(congsim.Scenario(None, 'x.toml', 'x', 1, 1))", R, ("str",), (), 20),
    ("congsim.run(congsim.Scenario(TEXT, None, 'x', 1, 1))", R, ("str",), (), 20),
    ("congsim.run(replace(S, overrides=(('tcp.window', -1),)))", R, ("tcp.window",), (), 20),
    ("congsim.run(replace(S, overrides=((1, 2),)))", R, ("overrides",), (), 20),
    ("congsim.run(replace(S, overrides=(('tcp.window',),)))", R, ("overrides",), (), 20),
    ("congsim.run(replace(S, overrides='tcp.window'))", R, ("overrides",), (), 20),
    ("congsim.run(replace(S, text=TEXT * 2))", R, ("line",), (), 20),
    # congsim.load
    ("congsim.load(123)", R, ("load",), (), 20),
    ("congsim.load(None)", R, ("load",), (), 20),
    ('congsim.load(b"scenario.toml")', X, (), (), 20),
    ("congsim.load([P])", R, ("load",), (), 20),
    ('congsim.load("")', R, ("cannot read|directory|Is a directory",), (), 20),
    ('congsim.load("/dev/zero")', R, ("/dev/zero", "file_bytes"), (), 20),
    ('congsim.load("/dev/urandom")', R, ("/dev/urandom",), (), 20),
    ('congsim.load("/")', R, ("/",), (), 20),
    ('congsim.load("/proc/self/mem")', R, ("/proc/self/mem",), (), 20),
    ('congsim.load("/nonexistent.toml")', R, ("/nonexistent.toml",), (), 20),
    ('congsim.load("a\\x00b.toml")', R, ("load|path|null",), (), 20),
    ('congsim.load("x" * 100000)', R, ("cannot read|name",), (), 20),
    ('congsim.load(P, overrides=[("a", 1)])', R, ("overrides",), (), 20),
    ('congsim.load(P, overrides=[("tcp.variant", "reno")])', R, ("overrides",), (), 20),
    ('congsim.load(P, overrides="tcp.window=5")', R, ("overrides",), (), 20),
    ("congsim.load(P, overrides={1: 2})", R, ("overrides",), (), 20),
    ('congsim.load(P, overrides={"": 1})', R, ("overrides|path",), (), 20),
    ('congsim.load(P, {"tcp.window": 5})', A, (), (), 20),
    ('congsim.load(P, overrides={"links[*].delay": "2ms"})', A, (), (), 20),
    ("congsim.load(P, overrides={'tcp.window': np.int64(5)})", A, (), (), 20),
    ("congsim.load(P, overrides={'links[0].random_loss': np.float64(0.01)})", A, (), (), 20),
    ("congsim.load(P, overrides={'tcp.window': selfref_list()})", R, ("tcp.window|overrides",), (), 20),
    ("congsim.load(P, overrides={'tcp.window': selfref_dict()})", R, ("tcp.window|overrides",), (), 20),
    # congsim.loads and overrides of every odd kind
    ('congsim.loads(b"bytes")', R, ("loads", "bytes"), (), 20),
    ("congsim.loads(None)", R, ("loads",), (), 20),
    ("congsim.loads(123)", R, ("loads",), (), 20),
    ("congsim.loads(bytearray(b'x = 1'))", R, ("loads",), (), 20),
    ("congsim.loads(TEXT, None)", R, ("source",), (), 20),
    ("congsim.loads(TEXT, 5)", R, ("source",), (), 20),
    ("congsim.loads('x', '\\x1b[2Jevil.toml')", R, ("evil.toml",), (), 20),
    ("congsim.loads('x', 'a\\nb.toml')", R, ("b.toml",), (), 20),
    ("congsim.loads('x', 'x' * 100000)", R, ("xxxx",), (), 20),
    (
        "congsim.loads(TEXT, 'ok.toml', {'tcp.window': 2**64 - 1})",
        R,
        ("tcp.window", "9223372036854775807"),
        (),
        20,
    ),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': 2**64})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': 2**70})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': -(2**63) - 1})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': float('nan')})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': float('inf')})", R, ("tcp.window",), (), 20),
    (
        "congsim.loads(TEXT, 'ok.toml', {'links[0].random_loss': float('nan')})",
        R,
        ("links[0].random_loss",),
        (),
        20,
    ),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': None})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': b'20'})", R, ("tcp.window|overrides",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': {1, 2}})", R, ("tcp.window|overrides",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': object()})", R, ("tcp.window|overrides",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': (20,)})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window': nested(10000)})", R, ("tcp.window|overrides",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'description': 'x' * 10_000_000})", X, (), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'name': '\\x1b[31mred'})", R, ("name",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'links[99].rate': '1Mbps'})", R, ("links[99]",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'links[-1].rate': '1Mbps'})", R, ("links[-1]",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'links[18446744073709551616].rate': '1Mbps'})", R, ("links[",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'links[x].rate': '1Mbps'})", R, ("links[x]",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'links[0]': 'x'})", R, ("links[0]",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'a..b': 1})", R, ("a..b",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.': 1})", R, ("tcp.",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'[0]': 1})", R, ("[0]",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp': 'reno'})", R, ("tcp",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'nodes': []})", R, ("nodes",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'simulation': None})", R, ("simulation",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'topology.pairs': 10**9})", R, ("topology",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'flows[0].count': 10**7})", R, ("flows[0].count",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'x' * 100000: 1})", R, ("xxxx",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'tcp.window\\x1b[2J': 1})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'links[*].rate': 'fast'})", R, ("rate",), (), 20),
    ("congsim.loads(TEXT, 'ok.toml', {'flows[*].tcp.window': 0})", R, ("tcp.window",), (), 20),
    ("congsim.loads(TEXT * 1000)", R, ("line",), (), 20),
    ("congsim.loads('#' * (100 * 2**20))", R, ("file_bytes",), (), 20),
    ("congsim.loads('\\ufeff' + TEXT)", X, (), (), 20),
    ("congsim.loads('\\ud800')", R, ("UTF-8|surrogate|line",), (), 20),
    ("congsim.loads(TEXT.replace('ip', 'i\\ud800p'))", R, ("UTF-8|surrogate|name",), (), 20),
    # Scenario.from_dict
    ("congsim.Scenario.from_dict(selfref_dict())", R, ("contains itself",), (), 20),
    ("congsim.Scenario.from_dict([1, 2])", R, ("from_dict",), (), 20),
    ("congsim.Scenario.from_dict(None)", R, ("from_dict",), (), 20),
    ("congsim.Scenario.from_dict('nodes = []')", R, ("from_dict",), (), 20),
    ("congsim.Scenario.from_dict({})", R, ("simulation",), (), 20),
    ("congsim.Scenario.from_dict({1: 'x'})", R, ("TOML|key",), (), 20),
    ("congsim.Scenario.from_dict({'nodes': {'a', 'b'}})", R, ("nodes|TOML",), (), 20),
    ("congsim.Scenario.from_dict({'nodes': ['a', None]})", R, ("TOML|nodes",), (), 20),
    (
        "congsim.Scenario.from_dict({'simulation': {'duration': float('nan')}})",
        R,
        ("simulation.duration",),
        (),
        20,
    ),
    (
        "congsim.Scenario.from_dict({'simulation': {'duration': datetime.datetime(2020, 1, 1)}})",
        R,
        ("simulation.duration",),
        (),
        20,
    ),
    (
        "congsim.Scenario.from_dict({'simulation': {'duration': datetime.time(0, 0, 1)}})",
        R,
        ("simulation.duration",),
        (),
        20,
    ),
    (
        "congsim.Scenario.from_dict({'simulation': {'duration': Decimal('0.2')}})",
        R,
        ("simulation.duration",),
        (),
        20,
    ),
    ("congsim.Scenario.from_dict({'name': nested(5000)})", R, ("name|contains itself|TOML",), (), 20),
    ("congsim.Scenario.from_dict(IP_DICT, source=None)", R, ("source",), (), 20),
    ("congsim.Scenario.from_dict(IP_DICT, source='\\x1b[2J')", A, (), (), 20),
    ("congsim.Scenario.from_dict(IP_DICT, overrides=[('tcp.window', 5)])", R, ("overrides",), (), 20),
    ("congsim.Scenario.from_dict(IP_DICT, overrides={'tcp.window': 5})", A, (), (), 20),
    ("congsim.Scenario.from_dict(types.MappingProxyType(IP_DICT))", A, (), (), 20),
    ("congsim.run(congsim.Scenario.from_dict(IP_DICT))", A, (), (), 20),
    ("congsim.Scenario.from_dict({**IP_DICT, 'tcp': {'window': 2**64}})", R, ("tcp.window",), (), 20),
    ("congsim.Scenario.from_dict({**IP_DICT, 'tcp': {'window': -1}})", R, ("tcp.window",), (), 20),
    # Scenario methods
    ("S.network()", A, (), (), 20),
    ("S.to_toml()", A, (), (), 20),
    ("replace(S, text='garbage').network()", R, ("line|TOML",), (), 20),
    ("replace(S, overrides=(('tcp.window', 0),)).to_toml()", R, ("tcp.window",), (), 20),
    # Results
    ("R.table('nope')", R, ("nope",), ("KeyError",), 20),
    ("R.table(None)", R, ("table|None",), ("KeyError",), 20),
    ("R.table('\\x1b[2J')", R, ("table",), ("KeyError",), 20),
    ("R.columns('nope')", R, ("nope",), ("KeyError",), 20),
    ("R.sequence", R, ("sequence",), ("KeyError", "AttributeError"), 20),
    ("R.write('')", R, ("write|directory|empty",), ("OSError",), 20),
    ("R.write('/sys/kernel')", R, ("/sys/kernel",), ("OSError",), 20),
    ("R.write('/dev/null')", R, ("/dev/null",), ("OSError",), 20),
    ("R.write(None)", R, ("write|directory|None",), (), 20),
    ("R.write(TMP / 'out')", A, (), (), 20),
    # sweep plans
    ("sweep.loads_plan(None)", R, ("loads_plan|text",), (), 20),
    ("sweep.loads_plan(b'name = 1')", R, ("loads_plan|text|bytes",), (), 20),
    ("sweep.loads_plan(PLAN_TEXT, 'p.toml', str(TMP_FIXTURES))", X, (), (), 20),
    ("sweep.loads_plan(PLAN_TEXT, 'p.toml', 5)", R, ("base_dir",), (), 20),
    ("sweep.loads_plan(PLAN_TEXT, None, TMP_FIXTURES)", R, ("source",), (), 20),
    ("sweep.load_plan(None)", R, ("load_plan|path",), (), 20),
    ("sweep.load_plan(123)", R, ("load_plan|path",), (), 20),
    ("sweep.load_plan('/dev/zero')", R, ("/dev/zero", "file_bytes"), (), 20),
    ("sweep.load_plan('/nonexistent/plan.toml')", R, ("/nonexistent/plan.toml",), (), 20),
    ("sweep.load_plan('/')", R, ("/",), (), 20),
    ("sweep.plan_of(None)", R, ("plan_of|Scenario",), (), 20),
    ("sweep.plan_of(P)", R, ("plan_of|Scenario",), (), 20),
    ("sweep.plan_of(S, axes={'tcp.window': 5})", R, ("axes.tcp.window",), (), 20),
    ("sweep.plan_of(S, axes='tcp.window')", R, ("axes",), (), 20),
    ("sweep.plan_of(S, axes={'tcp.window': [1, -1]})", R, ("tcp.window",), (), 20),
    ("sweep.plan_of(S, axes={'tcp.window': range(1, 3)})", R, ("axes.tcp.window",), (), 20),
    ("sweep.plan_of(S, axes={'tcp.window': [float('nan')]})", R, ("tcp.window",), (), 20),
    (
        "sweep.plan_of(S, axes=AXES_OF_10_TO_THE_9_RUNS)",
        R,
        ("plan_runs",),
        (),
        20,
    ),
    ("sweep.plan_of(S, axes={f'tcp.x{i}': [1, 2] for i in range(40)})", R, ("plan_runs",), (), 20),
    ("sweep.plan_of(S, replications=0)", R, ("replications",), (), 20),
    ("sweep.plan_of(S, replications=-1)", R, ("replications",), (), 20),
    ("sweep.plan_of(S, replications=2**70)", R, ("replications",), (), 20),
    ("sweep.plan_of(S, replications=1.5)", R, ("replications",), (), 20),
    ("sweep.plan_of(S, replications='5')", R, ("replications",), (), 20),
    ("sweep.plan_of(S, name='../../../x')", R, ("name",), (), 20),
    ("sweep.plan_of(S, name='\\x1b[31mred')", R, ("name",), (), 20),
    ("sweep.plan_of(S, name='a\\x00b')", R, ("name",), (), 20),
    ("sweep.plan_of(S, name=5)", R, ("name",), (), 20),
    ("sweep.plan_of(S, points=[1])", R, ("points",), (), 20),
    ("sweep.plan_of(S, points='x')", R, ("points",), (), 20),
    ("sweep.plan_of(S, fixed={'tcp.window': -1})", R, ("tcp.window",), (), 20),
    ("sweep.plan_of(S, fixed=[('tcp.window', 5)])", R, ("set|fixed",), (), 20),
    ("sweep.plan_of(S, axes={1: [1]})", R, ("axes",), (), 20),
    ("sweep.plan_of(S, axes={'tcp.window': [selfref_list()]})", R, ("tcp.window",), (), 20),
    ("PLAN.with_replications(0)", R, ("replications",), (), 20),
    ("PLAN.with_replications(-1)", R, ("replications",), (), 20),
    ("PLAN.with_replications(10**12)", R, ("plan_runs",), (), 20),
    ("PLAN.with_replications(2.0)", R, ("replications",), (), 20),
    ("PLAN.with_replications(None)", R, ("replications",), (), 20),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers=1)", A, (), (), 30),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers=0)", R, ("workers",), (), 20),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers=-1)", R, ("workers",), (), 20),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers=1.5)", R, ("workers",), (), 20),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers='2')", R, ("workers",), (), 20),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers=10**6)", R, ("workers",), (), 20),
    ("sweep.run_sweep(PLAN, '', workers=1)", R, ("out",), (), 20),
    ("sweep.run_sweep(PLAN, None, workers=1)", R, ("out",), (), 20),
    ("sweep.run_sweep(PLAN, '/sys/kernel', workers=1)", R, ("/sys/kernel",), ("OSError",), 8),
    ("sweep.run_sweep(PLAN, '/dev/null', workers=1)", R, ("/dev/null",), ("OSError",), 8),
    ("sweep.run_sweep(None, TMP / 'out')", R, ("plan",), (), 20),
    ("sweep.run_sweep(P, TMP / 'out')", R, ("plan",), (), 20),
    ("sweep.run_sweep(PLAN, TMP / 'out', workers=1, on_progress=3)", R, ("on_progress",), (), 20),
    (
        "sweep.run_sweep(PLAN, TMP / 'out', scheduler='not-an-address')",
        R,
        ("not-an-address",),
        ("SchedulerError",),
        8,
    ),
    (
        "sweep.run_sweep(PLAN, TMP / 'out', scheduler='tcp://[::1:8786')",
        R,
        ("[::1:8786",),
        ("SchedulerError",),
        8,
    ),
    (
        "sweep.run_sweep(PLAN, TMP / 'out', scheduler='http://127.0.0.1:1')",
        R,
        ("http",),
        ("SchedulerError",),
        8,
    ),
    (
        "sweep.run_sweep(PLAN, TMP / 'out', scheduler='tcp://127.0.0.1:1')",
        R,
        ("tcp://127.0.0.1:1",),
        ("SchedulerError",),
        8,
    ),
    ("sweep.run_sweep(PLAN, TMP / 'out', scheduler=5)", R, ("scheduler",), ("SchedulerError",), 8),
    # statistics helpers
    ("sweep.student_t_quantile(0.975, 0)", R, ("df",), (), 20),
    ("sweep.student_t_quantile(1.5, 3)", R, ("p",), (), 20),
    ("sweep.student_t_quantile(float('nan'), 3)", R, ("p",), (), 20),
    ("sweep.student_t_quantile(0.975, float('nan'))", R, ("df",), (), 20),
    ("sweep.student_t_quantile(0.975, float('inf'))", X, (), (), 20),
    ("sweep.student_t_quantile(0.975, 10**12)", A, (), (), 20),
    ("sweep.student_t_quantile(0.975, [3])", R, ("df",), (), 20),
    ("sweep.confidence_half_width([], 0.95)", X, (), (), 20),
    ("sweep.confidence_half_width([1.0, float('nan')], 0.95)", X, (), (), 20),
    # (std, n): a list is no standard deviation
    ("sweep.confidence_half_width([1.0, 2.0], 1.5)", R, ("std",), (), 20),
    # the package
    ("congsim.schema()", A, (), (), 20),
    ("congsim.nosuchthing", R, ("nosuchthing",), ("AttributeError",), 20),
]


def api_cases() -> Iterable[Case]:
    for expr, expected, mentions, raises, limit in API:
        yield Case(
            id=f"api/{expr}",
            kind="api",
            expected=expected,
            mentions=mentions,
            expr=expr,
            raises=raises,
            limit_s=limit,
        )


def corpus() -> list[Case]:
    """Every case, in a fixed order (ids are unique: `check_ids` says so)."""
    cases = [*field_cases(), *edit_cases(), *file_cases(), *plan_cases(), *cli_cases(), *api_cases()]
    check_ids(cases)
    return cases


def check_ids(cases: list[Case]) -> None:
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise ValueError(f"duplicate case id {case.id!r}")
        if not case.id.isprintable():
            raise ValueError(f"case id {case.id!r} is not printable")
        if case.kind not in KINDS or case.expected not in (REFUSED, ACCEPTED, WARNING, SAFE):
            raise ValueError(f"case {case.id!r}: kind {case.kind!r}, expected {case.expected!r}")
        seen.add(case.id)


if __name__ == "__main__":
    from collections import Counter

    everything = corpus()
    print(
        len(everything),
        dict(Counter(c.kind for c in everything)),
        dict(Counter(c.expected for c in everything)),
    )
