"""The methods of the stand-in's objects: `$ns duplex-link ...`, `$node id`, `$tcp attach-app
FTP`, `$ftp start`, `[$ns link $a $b] queue`; each records what it builds or refuses."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from congsim.ns2import import units
from congsim.ns2import.errors import Location, refused, wrong
from congsim.ns2import.objects import Failures, Link, Obj, RouteChange, Setting
from congsim.ns2import.variables import APPLICATIONS

if TYPE_CHECKING:
    from congsim.ns2import.standin import Recorder

NAM = "ignored: nam's display settings mean nothing without nam"
TRACE = "ignored: congsim writes tables (flows, links; [metrics] for series and traces), not trace files"
_NAM_SIMULATOR = {"color", "duplex-link-op", "simplex-link-op", "set-animation-rate", "trace-annotate"}
_NAM_NODE = {"color", "shape", "label", "label-color", "label-at", "add-mark", "delete-mark"}

#: Why a Simulator method the import does not translate is refused, when more can be said.
_SIMULATOR_REASONS = {
    "namtrace-all": "congsim has no nam output",
    "namtrace-all-wireless": "congsim has no nam output",
    "namtrace-queue": "congsim has no nam output",
    "node-config": "congsim has no wireless nodes",
    "cost": "congsim routes by hop count",
    "multicast": "congsim has no multicast",
    "mrtproto": "congsim has no multicast",
    "make-lan": "congsim has no LANs",
    "newLan": "congsim has no LANs",
    "after": 'the import schedules with "$ns at" only',
    "cancel": 'the import schedules with "$ns at" only',
}
_AGENT_REASONS = {
    "advance": "congsim's TCP flows are FTP sources (persistent, or of a size), not scripted packet counts",
    "advanceby": "congsim's TCP flows are FTP sources (persistent, or of a size), not scripted packet counts",
    "send": "congsim's sources are FTP, CBR, Exponential and Pareto applications",
    "listen": "congsim has no Agent/TCP/FullTcp",
}
_APP_REASONS = {
    "send": "finite transfers are not imported (an FTP source runs from start to stop)",
    "produce": "finite transfers are not imported (an FTP source runs from start to stop)",
    "producemore": "finite transfers are not imported (an FTP source runs from start to stop)",
}


def call(rec: Recorder, obj: Obj, where: Location, method: str, args: list[str]) -> str:
    """`$obj method args...`."""
    kind = obj.kind
    if method == "set" and kind not in ("simulator", "node", "link"):
        return rec.set_variable(obj, where, args)
    if kind == "simulator":
        return simulator(rec, where, method, args)
    if kind == "node":
        return node(rec, obj, where, method, args)
    if kind in ("tcp", "sink", "udp", "null"):
        return agent(rec, obj, where, method, args)
    if kind == "app":
        return application(rec, obj, where, method, args)
    if kind == "link":
        found = rec.link_by_handle[obj.handle]
        if method in ("queue", "link") and not args:
            return found.queue.handle if method == "queue" else found.delay.handle
    elif kind == "queue" and method in ("attach", "trace"):
        rec.warn("trace", where, TRACE)
        return ""
    raise refused(where, f"the import does not translate {obj.cls}'s {method}")


def _node(rec: Recorder, handle: str, where: Location) -> Obj:
    found = rec.objects.get(handle)
    if found is None or found.kind != "node":
        raise wrong(where, f"{handle!r} is not a node")
    return found


def _agent(rec: Recorder, handle: str, where: Location) -> Obj:
    found = rec.objects.get(handle)
    if found is None or found.kind not in ("tcp", "sink", "udp", "null"):
        raise wrong(where, f"{handle!r} is not an agent")
    return found


def _link(rec: Recorder, args: list[str], where: Location) -> Link:
    a, b = (_node(rec, handle, where) for handle in args[:2])
    return rec.link(a.handle, b.handle, where)


def _exactly(args: list[str], n: int, usage: str, where: Location) -> None:
    if len(args) != n:
        raise wrong(where, f"expected {usage}")


def simulator(rec: Recorder, where: Location, method: str, args: list[str]) -> str:
    """`$ns method args...`."""
    building = {
        "node": lambda: new_node(rec, where, args),
        "duplex-link": lambda: make_link(rec, where, True, args),
        "simplex-link": lambda: make_link(rec, where, False, args),
        "attach-agent": lambda: attach_agent(rec, where, args),
        "connect": lambda: connect(rec, where, args),
        "create-connection": lambda: create_connection(rec, where, args, False),
        "create-connection-list": lambda: create_connection(rec, where, args, True),
    }
    if method in building:
        if rec.running:
            raise refused(where, "the import builds the network before the run, not during it")
        return building[method]()
    if method == "queue-limit":
        _exactly(args, 3, "queue-limit NODE NODE LIMIT", where)
        return rec.set_variable(_link(rec, args, where).queue, where, ["limit_", args[2]])
    if method == "link":
        _exactly(args, 2, "link NODE NODE", where)
        return _link(rec, args, where).handle.handle
    if method in ("at", "run", "halt"):
        return {"at": rec.at, "run": rec.run, "halt": rec.halt}[method](where, args)
    if method == "now":
        return str(rec.now)
    if method == "rtmodel-at":
        return rtmodel_at(rec, where, args)
    if method == "rtmodel":
        return rtmodel(rec, where, args)
    if method == "rtproto":
        return rtproto(rec, where, args)
    if method in ("trace-all", "trace-queue", "flush-trace"):
        if method != "flush-trace":
            rec.warn("trace", where, TRACE)
        return ""
    if method == "monitor-queue":
        _link(rec, args, where)
        rec.warn(
            "monitor-queue", where, "ignored: the links table counts each queue's arrivals, drops and length"
        )
        return rec.create("QueueMonitor", where).handle
    if method in _NAM_SIMULATOR:
        rec.warn("nam", where, NAM)
        return ""
    if method == "use-scheduler":
        rec.warn("use-scheduler", where, "ignored: congsim has one scheduler, exact to the picosecond")
        return ""
    raise refused(where, _SIMULATOR_REASONS.get(method, f"the import does not translate $ns {method}"))


def new_node(rec: Recorder, where: Location, args: list[str]) -> str:
    if args:
        raise refused(where, "congsim's nodes have names, not hierarchical addresses")
    made = rec.create("Node", where)
    made.number = len(rec.nodes)
    rec.nodes.append(made)
    return made.handle


def make_link(rec: Recorder, where: Location, duplex: bool, args: list[str]) -> str:
    """`$ns duplex-link A B RATE DELAY QUEUE` (two directions) or `simplex-link` (one)."""
    if len(args) != 5:
        if len(args) > 5:
            raise refused(where, "the import reads links as NODE NODE RATE DELAY QUEUE")
        raise wrong(where, "expected NODE NODE RATE DELAY QUEUE")
    a, b = (_node(rec, handle, where) for handle in args[:2])
    if a is b:
        raise wrong(where, "a link joins two different nodes")
    try:
        rate, delay = units.bandwidth(args[2]), units.seconds(args[3])
    except ValueError as e:
        raise wrong(where, str(e)) from None
    if rate <= 0 or delay < 0:
        raise wrong(where, "the rate must be greater than zero and the delay not negative")
    if args[4] not in ("DropTail", "RED"):
        raise refused(where, "the queues the import translates are DropTail and RED")
    for src, dst in [(a, b), (b, a)] if duplex else [(a, b)]:
        if (src.handle, dst.handle) in rec.link_of:
            raise refused(where, "congsim has one link per direction between two nodes")
        queue = rec.create(f"Queue/{args[4]}", where)
        line = rec.create("DelayLink", where)
        line.settings["bandwidth_"] = Setting(args[2], where)
        line.settings["delay_"] = Setting(args[3], where)
        made = Link(src, dst, queue, line, rec.create("Link", where), duplex)
        rec.links.append(made)
        rec.link_of[made.name] = made
        rec.link_by_handle[made.handle.handle] = made
    return ""


def attach_agent(rec: Recorder, where: Location, args: list[str]) -> str:
    _exactly(args, 2, "attach-agent NODE AGENT", where)
    rec.attach(_node(rec, args[0], where), _agent(rec, args[1], where), where)
    return ""


def connect(rec: Recorder, where: Location, args: list[str]) -> str:
    _exactly(args, 2, "connect AGENT AGENT", where)
    src, dst = (_agent(rec, handle, where) for handle in args)
    if src.peer is not None or dst.peer is not None:
        raise refused(where, "each agent is connected once")
    if src.kind == "sink" or src.kind == "null":
        src, dst = dst, src
    if not ((src.kind == "tcp" and dst.kind == "sink") or (src.kind == "udp" and dst.kind == "null")):
        raise refused(
            where,
            f"congsim connects a TCP sender to a TCPSink, and Agent/UDP to Agent/Null or "
            f"Agent/LossMonitor, not {src.cls} to {dst.cls}",
        )
    if (src.cls == "Agent/TCP/Sack1") != dst.cls.startswith("Agent/TCPSink/Sack1"):
        raise refused(
            where,
            "congsim pairs Agent/TCP/Sack1 with Agent/TCPSink/Sack1 (variant sack), and the other "
            "senders with Agent/TCPSink or Agent/TCPSink/DelAck",
        )
    src.peer, dst.peer = dst, src
    return ""


def create_connection(rec: Recorder, where: Location, args: list[str], as_list: bool) -> str:
    """`$ns create-connection TCP/Reno $n0 TCPSink $n1 FID`: agents made, attached, connected."""
    _exactly(args, 5, "create-connection TYPE NODE TYPE NODE FLOW-ID", where)
    made = []
    for cls, handle in ((f"Agent/{args[0]}", args[1]), (f"Agent/{args[2]}", args[3])):
        obj = rec.objects[rec.new(where, [cls])]
        rec.attach(_node(rec, handle, where), obj, where)
        rec.set_variable(obj, where, ["fid_", args[4]])
        made.append(obj.handle)
    connect(rec, where, made)
    return " ".join(made) if as_list else made[0]


def event_time(now: Decimal, text: str, where: Location) -> Decimal:
    """The time of a command scheduled for `text` seconds, not before `now`."""
    try:
        when = units.number(text)
    except ValueError as e:
        raise wrong(where, f"{e}: write the time in seconds") from None
    if when < now:
        raise refused(where, f"the time {text} is before the current time {now}")
    return when


def rtmodel_at(rec: Recorder, where: Location, args: list[str]) -> str:
    """`$ns rtmodel-at T down|up $n1 $n2` (the link between them) or `$ns rtmodel-at T down|up
    $n` (the node: every link to and from it, as ns-2's node dynamics)."""
    if len(args) not in (3, 4) or args[1] not in ("down", "up"):
        raise refused(where, "the import reads rtmodel-at TIME down|up NODE [NODE]")
    when = event_time(rec.now, args[0], where)
    a, *b = (_node(rec, handle, where) for handle in args[2:])
    rec.routes.append(RouteChange(when, args[1] == "up", a, b[0] if b else None, where))
    return ""


#: ns-2's `rtModel` start time when the parameters do not give one.
_RTMODEL_START = Decimal("0.5")


def rtmodel(rec: Recorder, where: Location, args: list[str]) -> str:
    """`$ns rtmodel Exponential {[start] up down [finish]} $n1 $n2` (ns-2's set-parms: two
    values are the means, three add the start, four the finish)."""
    if len(args) == 3:
        raise refused(
            where,
            "rtmodel on one node (its links failing together) is not imported: congsim's "
            "link_failures events take one link (give the link's two nodes)",
        )
    if len(args) != 4:
        raise refused(where, "the import reads rtmodel Exponential {PARAMETERS} NODE NODE")
    if args[0] != "Exponential":
        raise refused(
            where,
            f"rtmodel {args[0]} is not imported: congsim's link_failures events draw exponential "
            "up and down times (write a Deterministic or Trace model as link_down and link_up events)",
        )
    try:
        values = [units.number(v) for v in args[1].split()]
    except ValueError as e:
        raise wrong(where, f"{e}: write the parameters in seconds") from None
    if len(values) not in (2, 3, 4):
        raise refused(where, "rtmodel Exponential takes 2 to 4 parameters: [start] up down [finish]")
    start, finish = _RTMODEL_START, None
    if len(values) == 2:
        up, down = values
    else:
        start, up, down = values[:3]
        finish = values[3] if len(values) == 4 else None
    a, b = (_node(rec, handle, where) for handle in args[2:])
    rec.failures.append(Failures(start, up, down, finish, a, b, where))
    return ""


def rtproto(rec: Recorder, where: Location, args: list[str]) -> str:
    protocol = args[0] if args else ""
    if protocol in ("Static", "Session"):
        return ""
    if protocol in ("DV", "LS"):
        rec.warn(
            "rtproto",
            where,
            "read as static routes recomputed at once when a link goes down or up (no convergence time)",
        )
        return ""
    raise refused(where, "congsim routes by hop count, recomputed at once when a link goes down or up")


def node(rec: Recorder, n: Obj, where: Location, method: str, args: list[str]) -> str:
    """`$node method args...`."""
    if method == "id" and not args:
        return str(n.number)
    if method == "attach":
        _exactly(args, 1, "attach AGENT", where)
        rec.attach(n, _agent(rec, args[0], where), where)
        return ""
    if method in _NAM_NODE:
        rec.warn("nam", where, NAM)
        return ""
    if method == "set" or method.endswith("_"):
        raise refused(where, "congsim's nodes have no positions or per-node settings (no wireless model)")
    raise refused(where, f"the import does not translate a node's {method}")


def bind(app: Obj, agent: Obj, where: Location) -> None:
    """Application `app` sends through `agent`."""
    if app.partner is not None or agent.partner is not None:
        raise refused(where, "an agent carries one application, and an application one agent")
    needs = APPLICATIONS[app.cls]
    if (needs == "Agent/TCP") != (agent.kind == "tcp") or (needs == "Agent/UDP" and agent.kind != "udp"):
        raise refused(
            where, f"congsim runs {app.cls} over {'a TCP sender' if needs == 'Agent/TCP' else needs}"
        )
    app.partner, agent.partner = agent, app


def agent(rec: Recorder, obj: Obj, where: Location, method: str, args: list[str]) -> str:
    """`$agent method args...`."""
    if method in ("attach-app", "attach-source"):
        _exactly(args, 1, f"{method} TYPE", where)
        app = rec.objects[rec.new(where, [f"Application/{args[0]}"])]
        bind(app, obj, where)
        return app.handle
    if method in ("attach", "trace", "tracevar"):
        rec.warn("trace", where, TRACE)
        return ""
    raise refused(where, _AGENT_REASONS.get(method, f"the import does not translate {obj.cls}'s {method}"))


def application(rec: Recorder, app: Obj, where: Location, method: str, args: list[str]) -> str:
    """`$app method args...`."""
    if method == "attach-agent":
        _exactly(args, 1, "attach-agent AGENT", where)
        bind(app, _agent(rec, args[0], where), where)
        return ""
    if method in ("start", "stop"):
        _exactly(args, 0, f"{method} without arguments", where)
        if app.partner is None:
            raise wrong(where, "the application has no agent (attach-agent first)")
        app.actions.append((rec.now, method, where))
        return ""
    if method == "agent" and not args:
        return app.partner.handle if app.partner is not None else ""
    raise refused(where, _APP_REASONS.get(method, f"the import does not translate {app.cls}'s {method}"))
