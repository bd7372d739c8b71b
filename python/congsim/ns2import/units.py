"""ns-2's spellings of numbers, rates and times, read exactly (as decimals), and congsim's
canonical spellings of the same values.

ns-2 (tclcl's `bw_parse` and `time_parse`) reads a rate as a number, then an optional `k`, `m`
or `g` (either case: 10^3, 10^6, 10^9), then `B` for bytes (x 8) after such a prefix: `10Mb` and
`10M` are 10 Mbit/s, `1.5Mb` 1.5 Mbit/s, `100k` 100 kbit/s, `10MB` 80 Mbit/s, a plain number bits
per second. A time is a number, then an optional `m`, `u`, `n` or `p` (milli to pico) and `s`:
`2ms` is 2 milliseconds, a plain number seconds. What follows the unit, ns-2 ignores; the import
accepts only `bps`, `b/s` or `s` and `sec` there, and refuses other text rather than guess.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

#: A decimal number as Tcl and C's strtod write it (no hexadecimal, infinity or NaN).
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RATE_PREFIX = {"k": Decimal(10) ** 3, "m": Decimal(10) ** 6, "g": Decimal(10) ** 9}
_TIME_PREFIX = {
    "m": Decimal(10) ** -3,
    "u": Decimal(10) ** -6,
    "n": Decimal(10) ** -9,
    "p": Decimal(10) ** -12,
}
_RATE_REST = re.compile(r"(?:bps|b/s|b|ps)?")
_TIME_REST = re.compile(r"(?:s|sec|secs)?")
_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off")


def _split(text: str) -> tuple[Decimal, str]:
    """The leading number of `text` and what follows it; `ValueError` without a number."""
    stripped = text.strip()
    match = _NUMBER.match(stripped)
    if match is None:
        raise ValueError(f"{text!r} is not a number")
    try:
        return Decimal(match.group()), stripped[match.end() :]
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise ValueError(f"{text!r} is not a number") from None


def number(text: str) -> Decimal:
    """A plain number (`0.1`, `20`, `1e-3`): how ns-2 reads most bound variables and `$ns at`
    times. A unit after it is refused: ns-2 would read `100ms` here as 100."""
    value, rest = _split(text)
    if rest:
        raise ValueError(f"{text!r} is not a plain number (ns-2 would ignore {rest!r} and read {value})")
    return value


def integer(text: str) -> int:
    """A whole number (`20`, `20.0`)."""
    value = number(text)
    if value != value.to_integral_value():
        raise ValueError(f"{text!r} is not a whole number")
    return int(value)


def boolean(text: str) -> bool:
    """ns-2's booleans: `true`/`false` (any case) or a number, non-zero being true."""
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    try:
        return number(text) != 0
    except ValueError:
        raise ValueError(f"{text!r} is not a boolean (true, false, 1 or 0)") from None


def bandwidth(text: str) -> Decimal:
    """A rate in bits per second (`10Mb`, `1.5Mb`, `100k`, `10MB`, `64000`)."""
    value, rest = _split(text)
    if rest[:1].lower() in _RATE_PREFIX:
        value *= _RATE_PREFIX[rest[0].lower()]
        rest = rest[1:]
        if rest.startswith("B"):
            value *= 8
            rest = "b" + rest[1:]
    elif rest.startswith("B"):
        raise ValueError(
            f"ns-2 reads {text!r} as {value} bit/s (B means bytes only after k, m or g): "
            "write the rate in bits"
        )
    if not _RATE_REST.fullmatch(rest):
        raise ValueError(f"{text!r} is not an ns-2 rate (e.g. 10Mb, 1.5Mb, 100k or bits per second)")
    return value


def seconds(text: str) -> Decimal:
    """A time in seconds (`2ms`, `10us`, `0.5`)."""
    value, rest = _split(text)
    if rest[:1] in _TIME_PREFIX:
        value *= _TIME_PREFIX[rest[0]]
        rest = rest[1:]
    if not _TIME_REST.fullmatch(rest):
        raise ValueError(f"{text!r} is not an ns-2 time (e.g. 2ms, 10us or seconds)")
    return value


def _plain(value: Decimal) -> str:
    """`value` in positional notation without trailing zeros (`1.5`, `10`, `0.25`)."""
    return format(value.normalize(), "f")


_RATE_UNITS = ((Decimal(10) ** 9, "Gbps"), (Decimal(10) ** 6, "Mbps"), (Decimal(10) ** 3, "Kbps"))
_TIME_UNITS = (
    (Decimal(10) ** 12, "s"),
    (Decimal(10) ** 9, "ms"),
    (Decimal(10) ** 6, "us"),
    (Decimal(10) ** 3, "ns"),
)


def rate_text(bps: Decimal) -> str:
    """congsim's spelling of a rate, rounded to a whole bit per second: `10Mbps`, `1.5Mbps`,
    `448Kbps`, `300bps`."""
    whole = bps.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
    for factor, unit in _RATE_UNITS:
        if whole >= factor:
            return f"{_plain(whole / factor)}{unit}"
    return f"{_plain(whole)}bps"


def duration_text(secs: Decimal) -> str:
    """congsim's spelling of a time, rounded to a whole picosecond: `2ms`, `3.210526ms`, `10s`,
    `0s`."""
    ps = (secs * Decimal(10) ** 12).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
    if ps == 0:
        return "0s"
    for factor, unit in _TIME_UNITS:
        if abs(ps) >= factor:
            return f"{_plain(ps / factor)}{unit}"
    return f"{_plain(ps)}ps"


def size_text(n_bytes: int) -> str:
    """congsim's spelling of a size: `1000B`."""
    return f"{n_bytes}B"
