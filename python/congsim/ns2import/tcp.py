"""A TCP agent and its sink as congsim `[tcp]` settings: the profile the script's timer and
recovery details amount to, then every switch that differs from that profile."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from congsim.ns2import import units
from congsim.ns2import.errors import refused
from congsim.ns2import.objects import Obj, read
from congsim.ns2import.variables import PROFILE_VARIANTS, PROFILES, VARIANTS, family


def _number(text: str) -> Decimal:
    return units.number(text)


#: ns-2 variable -> (congsim field, the field's value from ns-2's text).
SWITCHES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "window_": ("window", units.integer),
    "packetSize_": ("packet_size", lambda v: units.size_text(units.integer(v))),
    "windowInit_": ("initial_window", units.integer),
    "maxburst_": ("max_burst", units.integer),
    "maxcwnd_": ("max_cwnd", units.integer),
    "tcpTick_": ("tick", lambda v: units.duration_text(_number(v))),
    "minrto_": ("min_rto", lambda v: units.duration_text(_number(v))),
    "rtxcur_init_": ("initial_rto", lambda v: units.duration_text(_number(v))),
    "syn_": ("syn", units.boolean),
    "useHeaders_": ("header_bytes", lambda v: 40 if units.boolean(v) else 0),
    "singledup_": ("limited_transmit", units.boolean),
    "bugFix_": ("ns2_bugfix", units.boolean),
    "ecn_": ("congestion_marks", lambda v: "ecn" if units.boolean(v) else "off"),
    "noFastRetrans_": ("fast_retransmit", lambda v: not units.boolean(v)),
    "newreno_changes1_": ("newreno_impatient", units.boolean),
    "partial_window_deflation_": ("partial_window_deflation", units.boolean),
}
_NEWRENO_ONLY = ("newreno_changes1_", "partial_window_deflation_")


def _profile_variables(variant: str) -> list[str]:
    return [
        name
        for name, var in family("Agent/TCP").items()
        if var.role == "profile" and variant in PROFILE_VARIANTS.get(name, (variant,))
    ]


def profile_of(agent: Obj, variant: str) -> str:
    """The profile the agent's timer and recovery details amount to; refused when they mix
    profiles (naming the first detail that differs from the nearest one)."""
    kinds = family("Agent/TCP")
    names = _profile_variables(variant)
    differ = {
        profile: [
            name
            for name in names
            if read(kinds[name].kind, agent.value(name)) != read(kinds[name].kind, values[name])
        ]
        for profile, values in PROFILES.items()
    }
    for profile, wrong_ones in differ.items():
        if not wrong_ones:
            return profile
    nearest = min(differ, key=lambda p: len(differ[p]))
    name = differ[nearest][0]
    setting = agent.setting(name)
    if setting is None:
        # The script left it at ns-2.35's default: point at one it set.
        setting = next(s for n in names if (s := agent.setting(n)) is not None)
    others = ", ".join(f"{n} {PROFILES['ns2_2000'][n]}" for n in names)
    raise refused(
        setting.where,
        f"congsim has ns-2's timer and recovery details as whole profiles: ns2_235 (ns-2.35's "
        f"defaults) or ns2_2000 ({others}); this {agent.cls} has {nearest}'s but {name} "
        f"{agent.value(name)}",
    )


def settings(agent: Obj, sink: Obj) -> dict[str, Any]:
    """The congsim TCP settings of a flow from `agent` to `sink`: `variant`, `profile` and the
    fields that differ from the profile."""
    variant = VARIANTS[agent.cls]
    profile = profile_of(agent, variant)
    fields: dict[str, Any] = {"profile": profile, "variant": variant}
    for name, (field, convert) in SWITCHES.items():
        if name in _NEWRENO_ONLY and variant != "newreno":
            continue
        value, base = convert(agent.value(name)), convert(PROFILES[profile][name])
        if value != base:
            fields[field] = value
    if sink.cls.endswith("/DelAck"):
        fields["delayed_ack"] = "ns2"
        interval = units.seconds(sink.value("interval_"))
        if interval != Decimal("0.1"):
            fields["delayed_ack_interval"] = units.duration_text(interval)
    if variant == "sack":
        blocks = units.integer(sink.value("maxSackBlocks_"))
        if blocks != 3:
            fields["sack_blocks"] = blocks
    return fields


def shared(per_flow: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The settings every flow has alike (for `[tcp]`), and each flow's others (its `tcp`)."""
    if not per_flow:
        return {}, []
    common = {k: v for k, v in per_flow[0].items() if all(k in f and f[k] == v for f in per_flow)}
    return common, [{k: v for k, v in f.items() if k not in common} for f in per_flow]
