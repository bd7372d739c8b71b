"""The ns-2.35 variables the import knows, by family of classes: how each is read, its ns-2.35
default, and what it becomes.

A variable's `role` says what the import does with it:

- `switch`: it becomes a congsim field (the translation says which);
- `profile`: one of the timer and recovery details a TCP profile fixes as a whole; together
  they choose `ns2_2000` or `ns2_235` (`PROFILES`);
- `fixed`: congsim models ns-2's default only; another value is refused;
- `ignored`: it changes nothing congsim models (`fid_`, nam's `class_`);
- `stat`: a counter or state the script may read (it reads the default: nothing is simulated)
  and reset to 0.

The defaults are ns-2.35's, as `ns` prints them (`Agent/TCP set tcpTick_` is 0.01).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["int", "real", "bool", "time", "bw"]
Role = Literal["switch", "profile", "fixed", "ignored", "stat"]


@dataclass(frozen=True)
class Var:
    kind: Kind
    default: str
    role: Role


def _vars(role: Role, kind: Kind, **defaults: str) -> dict[str, Var]:
    return {name: Var(kind, default, role) for name, default in defaults.items()}


_TCP: dict[str, Var] = {
    **_vars("switch", "int", window_="20", packetSize_="1000", windowInit_="2", maxburst_="0", maxcwnd_="0"),
    **_vars("switch", "real", tcpTick_="0.01", minrto_="0.2", rtxcur_init_="3.0"),
    **_vars("switch", "bool", syn_="true", useHeaders_="true", singledup_="1", bugFix_="true", ecn_="0"),
    **_vars("switch", "bool", noFastRetrans_="0", newreno_changes1_="0", partial_window_deflation_="0"),
    **_vars("profile", "real", maxrto_="60"),
    **_vars("profile", "bool", delay_growth_="true", rfc2988_="true", precisionReduce_="true"),
    **_vars("profile", "bool", timerfix_="true", bugfix_ss_="1", oldCode_="false", exitFastRetrans_="true"),
    **_vars("fixed", "int", numdupacks_="3", windowOption_="1", max_ssthresh_="0", T_SRTT_BITS="3"),
    **_vars("fixed", "int", T_RTTVAR_BITS="2", rttvar_exp_="2", windowInitOption_="1", max_connects_="-1"),
    **_vars("fixed", "int", ttl_="32", QOption_="0", control_increase_="0", cwnd_range_="0"),
    **_vars("fixed", "real", overhead_="0", srtt_init_="0", rttvar_init_="12", decrease_num_="0.5"),
    **_vars("fixed", "real", increase_num_="1"),
    **_vars("fixed", "bool", timestamps_="0", aggressive_maxburst_="1", ts_resetRTO_="0"),
    **_vars("fixed", "bool", slow_start_restart_="1", restart_bugfix_="1", eln_="0", EnblRTTCtr_="0"),
    **_vars("fixed", "bool", sfrto_enabled_="0", frto_enabled_="0", LimTransmitFix_="0"),
    **_vars("ignored", "int", fid_="0", class_="0", prio_="0", flowid_="0"),
    **_vars("ignored", "bool", nam_tracevar_="0", trace_all_oneline_="0"),
    **_vars("stat", "real", cwnd_="1", ssthresh_="20", awnd_="1", t_seqno_="0", ack_="-1", maxseq_="-1"),
    **_vars("stat", "real", seqno_="0", highest_ack_="-1", dupacks_="0", t_rtt_="0", t_srtt_="0"),
    **_vars("stat", "real", t_rttvar_="0", t_backoff_="1", rtt_="0", srtt_="0", rttvar_="0"),
    **_vars("stat", "int", nrexmit_="0", nrexmitpack_="0", nrexmitbytes_="0", ndatapack_="0"),
    **_vars("stat", "int", ndatabytes_="0", ncwndcuts_="0", ncwndcuts1_="0", necnresponses_="0"),
    **_vars("stat", "int", nackpack_="0"),
}

#: `Agent/TCP/Newreno`'s own defaults (the class sets them; `Agent/TCP` has none).
NEWRENO_DEFAULTS = {"newreno_changes1_": "1", "partial_window_deflation_": "1"}

_SINK: dict[str, Var] = {
    **_vars("switch", "int", maxSackBlocks_="3"),
    **_vars("switch", "time", interval_="100ms"),
    **_vars("fixed", "int", packetSize_="40"),
    **_vars("fixed", "bool", ts_echo_bugfix_="1", ts_echo_rfc1323_="0", generateDSacks_="0", qs_enabled_="0"),
    **_vars("fixed", "bool", RFC2581_immediate_ack_="1", SYN_immediate_ack_="1", ecn_syn_="0"),
    **_vars("ignored", "int", fid_="0", class_="0", prio_="0"),
    **_vars("fixed", "int", ttl_="32"),
    **_vars("stat", "int", bytes_="0", npkts_="0", nlost_="0"),
}

_UDP: dict[str, Var] = {
    **_vars("switch", "int", packetSize_="1000"),
    **_vars("ignored", "int", fid_="0", class_="0", prio_="0"),
    **_vars("fixed", "int", ttl_="32"),
}

_NULL: dict[str, Var] = {
    **_vars("ignored", "int", fid_="0", class_="0"),
    **_vars("stat", "real", nlost_="0", npkts_="0", bytes_="0", lastPktTime_="0", expected_="0"),
}

_CBR: dict[str, Var] = {
    **_vars("switch", "int", packetSize_="210"),
    **_vars("switch", "bw", rate_="448Kb"),
    **_vars("switch", "time", interval_="0.00375"),
    **_vars("fixed", "bool", random_="0"),
    **_vars("fixed", "int", maxpkts_="268435456"),
}

_EXPONENTIAL: dict[str, Var] = {
    **_vars("switch", "int", packetSize_="210"),
    **_vars("switch", "bw", rate_="64Kb"),
    **_vars("switch", "time", burst_time_="0.5", idle_time_="0.5"),
}

_PARETO: dict[str, Var] = {**_EXPONENTIAL, **_vars("switch", "real", shape_="1.5")}

_QUEUE: dict[str, Var] = {
    **_vars("switch", "int", limit_="50"),
    **_vars("fixed", "bool", blocked_="0", unblock_on_resume_="1"),
}

_DROPTAIL: dict[str, Var] = {
    **_QUEUE,
    **_vars("switch", "bool", drop_front_="0", queue_in_bytes_="0"),
    **_vars("switch", "int", mean_pktsize_="500"),
    **_vars("fixed", "bool", summarystats_="0"),
}

_RED: dict[str, Var] = {
    **_QUEUE,
    **_vars("switch", "real", thresh_="0", maxthresh_="0", q_weight_="-1", linterm_="10", mark_p_="0.1"),
    **_vars("switch", "int", mean_pktsize_="500"),
    **_vars("switch", "bool", wait_="1", gentle_="1", bytes_="1", queue_in_bytes_="1", setbit_="0"),
    **_vars("switch", "bool", use_mark_p_="1"),
    **_vars("fixed", "int", adaptive_="0", cautious_="0", feng_adaptive_="0"),
    **_vars("fixed", "bool", drop_tail_="1", drop_front_="0", drop_rand_="0", ns1_compat_="0"),
    **_vars("fixed", "bool", summarystats_="0"),
    **_vars("fixed", "real", targetdelay_="0.005"),
    # Adaptive RED's own parameters: they act only with adaptive_ 1, which is refused.
    **_vars("ignored", "real", top_="0.5", bottom_="0", alpha_="0.01", beta_="0.9", interval_="0.5"),
    **_vars("stat", "real", ave_="0", prob1_="0", curq_="0", cur_max_p_="0"),
}

_DELAY_LINK: dict[str, Var] = {
    **_vars("switch", "bw", bandwidth_="1.5Mb"),
    **_vars("switch", "time", delay_="100ms"),
}

_MONITOR: dict[str, Var] = _vars(
    "stat",
    "int",
    size_="0",
    pkts_="0",
    parrivals_="0",
    barrivals_="0",
    pdepartures_="0",
    bdepartures_="0",
    pdrops_="0",
    bdrops_="0",
)

#: The classes the import knows, each with its family of variables. A class not here is
#: refused where the script names it.
CLASSES: dict[str, dict[str, Var]] = {
    "Agent/TCP": _TCP,
    "Agent/TCP/Reno": _TCP,
    "Agent/TCP/Newreno": _TCP,
    "Agent/TCP/Sack1": _TCP,
    "Agent/TCPSink": _SINK,
    "Agent/TCPSink/DelAck": _SINK,
    "Agent/TCPSink/Sack1": _SINK,
    "Agent/TCPSink/Sack1/DelAck": _SINK,
    "Agent/UDP": _UDP,
    "Agent/Null": _NULL,
    "Agent/LossMonitor": _NULL,
    "Application/FTP": {},
    "Application/Traffic/CBR": _CBR,
    "Application/Traffic/Exponential": _EXPONENTIAL,
    "Application/Traffic/Pareto": _PARETO,
    "Queue": _QUEUE,
    "Queue/DropTail": _DROPTAIL,
    "Queue/RED": _RED,
    "DelayLink": _DELAY_LINK,
    "QueueMonitor": _MONITOR,
}

#: TCP senders and the congsim variant each is.
VARIANTS = {
    "Agent/TCP": "tahoe",
    "Agent/TCP/Reno": "reno",
    "Agent/TCP/Newreno": "newreno",
    "Agent/TCP/Sack1": "sack",
}

#: Sources an application class is, and the agent it needs.
APPLICATIONS = {
    "Application/FTP": "Agent/TCP",
    "Application/Traffic/CBR": "Agent/UDP",
    "Application/Traffic/Exponential": "Agent/UDP",
    "Application/Traffic/Pareto": "Agent/UDP",
}

#: What each profile is in ns-2.35's variables: `ns2_235` is ns-2.35's defaults; `ns2_2000`
#: the bindings bench/ns2_script.py writes for it. The `profile` variables decide which applies
#: (a script that mixes them is refused); the `switch` variables that differ from the chosen
#: profile's become congsim fields.
PROFILES: dict[str, dict[str, str]] = {
    "ns2_235": {
        **{name: var.default for name, var in _TCP.items() if var.role in ("switch", "profile")},
        **NEWRENO_DEFAULTS,
    },
    "ns2_2000": {
        **{name: var.default for name, var in _TCP.items() if var.role == "switch"},
        "tcpTick_": "0.1",
        "minrto_": "0",
        "rtxcur_init_": "6.0",
        "windowInit_": "1",
        "syn_": "false",
        "useHeaders_": "false",
        "singledup_": "0",
        "newreno_changes1_": "0",
        "partial_window_deflation_": "0",
        "maxrto_": "64",
        "delay_growth_": "false",
        "rfc2988_": "false",
        "precisionReduce_": "false",
        "timerfix_": "false",
        "bugfix_ss_": "0",
        "oldCode_": "true",
        "exitFastRetrans_": "false",
    },
}

#: Profile variables that matter only to some senders (ns-2's Reno and NewReno read
#: `exitFastRetrans_`; Tahoe and Sack1 do not).
PROFILE_VARIANTS = {"exitFastRetrans_": ("reno", "newreno")}


def family(cls: str) -> dict[str, Var]:
    """The variables of class `cls` (empty for a class the import does not know)."""
    return CLASSES.get(cls, {})


def parents(cls: str) -> list[str]:
    """`cls` and the classes it inherits from, nearest first: ns-2 (tclcl) derives a class's
    parent from its name (`Agent/TCP/Reno` -> `Agent/TCP` -> `Agent`)."""
    chain = [cls]
    while "/" in chain[-1]:
        chain.append(chain[-1].rsplit("/", 1)[0])
    return chain


def default(cls: str, name: str) -> str | None:
    """ns-2.35's default of variable `name` in class `cls`."""
    if cls == "Agent/TCP/Newreno" and name in NEWRENO_DEFAULTS:
        return NEWRENO_DEFAULTS[name]
    var = family(cls).get(name)
    return var.default if var is not None else None
