"""What the stand-in recorded, as a congsim scenario document (the layout of a scenario file,
units spelled as congsim spells them)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from congsim.ns2import import tcp, units
from congsim.ns2import.errors import Location, Ns2ImportError, refused, wrong
from congsim.ns2import.objects import Link, Obj

if TYPE_CHECKING:
    from congsim.ns2import.standin import Recorder

#: An on period: start, stop (None: to the end), and the commands that started and stopped it.
Period = tuple[Decimal, Decimal | None, Location, Location | None]

#: congsim's RED defaults, to write only the fields that differ.
_RED_DEFAULTS: dict[str, Any] = {
    "min_th": Decimal(5),
    "max_th": Decimal(15),
    "w_q": Decimal("0.002"),
    "max_p": Decimal("0.1"),
    "mean_packet_size": "500B",
    "wait": True,
    "gentle": False,
    "bytes": False,
    "queue_in_bytes": False,
    "ecn_marking": False,
}
_ON_OFF_LAWS = {"Application/Traffic/Exponential": "exponential", "Application/Traffic/Pareto": "pareto"}


def _toml_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _where(obj: Obj, name: str) -> Location:
    """Where the script set `name` for `obj` (else where it made the object)."""
    setting = obj.setting(name)
    return setting.where if setting is not None else obj.created


def _simplex(entry: dict[str, Any]) -> dict[str, Any]:
    """A link entry for one direction only (`duplex = false` after its delay)."""
    out = {k: v for k, v in entry.items() if k != "queue"}
    out["duplex"] = False
    if "queue" in entry:
        out["queue"] = entry["queue"]
    return out


class Translation:
    """One recorded script as a scenario document, with the warnings of what was left out."""

    def __init__(self, rec: Recorder) -> None:
        assert rec.end is not None and rec.end_where is not None
        self.rec = rec
        self.end = rec.end
        if self.end <= 0:
            raise refused(rec.end_where, "the run ends at time 0: nothing is simulated")
        self.warnings = list(rec.warnings.values())
        self.events: list[tuple[Decimal, dict[str, Any]]] = []
        self.found = rec.variable_names()
        self.node_names = self._name(rec.nodes, self.found, lambda n: f"n{n.number}", set())
        self.source_names: dict[str, str] = {}

    def _name(
        self,
        objs: list[Obj],
        found: dict[str, list[str]],
        fallback: Any,
        taken: set[str],
        alias: dict[str, str] | None = None,
    ) -> dict[str, str]:
        """A unique name per object: the first free name a global variable gives it (or
        gives `alias[obj]`), else `fallback(obj)` made unique."""
        names: dict[str, str] = {}
        for obj in objs:
            candidates = found.get(obj.handle, []) + found.get((alias or {}).get(obj.handle, ""), [])
            name = next((c for c in candidates if c not in taken), None)
            if name is None:
                base = fallback(obj)
                name, k = base, 1
                while name in taken:
                    k += 1
                    name = f"{base}_{k}"
            taken.add(name)
            names[obj.handle] = name
        return names

    def document(self) -> dict[str, Any]:
        rec = self.rec
        doc: dict[str, Any] = {
            "name": Path(rec.script).stem,
            "description": f"imported from the ns-2 script {Path(rec.script).name} by congsim import-ns2",
            "nodes": [self.node_names[n.handle] for n in rec.nodes],
            "simulation": {"duration": units.duration_text(self.end)},
        }
        flows, per_flow = self._flows()
        sources = self._sources()
        common, own = tcp.shared(per_flow)
        if common:
            doc["tcp"] = common
        doc["links"] = self._links()
        for entry, settings in zip(flows, own, strict=True):
            if settings:
                entry["tcp"] = settings
        if flows:
            doc["flows"] = flows
        if sources:
            doc["cbr"] = sources
        self._changes()
        self._routes()
        if self.events:
            doc["events"] = [event for _, event in sorted(self.events, key=lambda e: e[0])]
        return doc

    # -- links -------------------------------------------------------------------------

    def _links(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        done: set[tuple[str, str]] = set()
        for link in self.rec.links:
            if link.name in done:
                continue
            forward = self._direction(link)
            if not link.duplex:
                out.append(_simplex(forward))
                continue
            back_link = self.rec.link_of[(link.dst.handle, link.src.handle)]
            done.add(back_link.name)
            back = self._direction(back_link)
            alike = {k: v for k, v in forward.items() if k not in ("from", "to")} == {
                k: v for k, v in back.items() if k not in ("from", "to")
            }
            out += [forward] if alike else [_simplex(forward), _simplex(back)]
        return out

    def link_name(self, link: Link) -> str:
        return f"{self.node_names[link.src.handle]}->{self.node_names[link.dst.handle]}"

    def _direction(self, link: Link) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "from": self.node_names[link.src.handle],
            "to": self.node_names[link.dst.handle],
            "rate": units.rate_text(units.bandwidth(link.delay.value("bandwidth_"))),
            "delay": units.duration_text(units.seconds(link.delay.value("delay_"))),
        }
        queue = self._queue(link.queue)
        if queue:
            entry["queue"] = queue
        return entry

    def _queue(self, q: Obj) -> dict[str, Any]:
        limit = units.integer(q.value("limit_"))
        if limit < 1:
            raise wrong(_where(q, "limit_"), "a queue limit is at least 1 packet")
        if q.cls == "Queue/DropTail":
            spec: dict[str, Any] = {}
            if units.boolean(q.value("queue_in_bytes_")):
                spec["limit_bytes"] = units.size_text(limit * units.integer(q.value("mean_pktsize_")))
            elif limit != 50:
                spec["limit_packets"] = limit
            if units.boolean(q.value("drop_front_")):
                spec["drop_front"] = True
            return spec
        return self._red(q, limit)

    def _red(self, q: Obj, limit: int) -> dict[str, Any]:
        weight = units.number(q.value("q_weight_"))
        if weight < 0 and weight != -1:
            raise refused(_where(q, "q_weight_"), "congsim's automatic q_weight_ is ns-2's -1 only")
        linterm = units.number(q.value("linterm_"))
        if linterm <= 0:
            raise wrong(_where(q, "linterm_"), "linterm_ (1/max_p) must be greater than zero")
        values: dict[str, Any] = {
            "min_th": units.number(q.value("thresh_")),
            "max_th": units.number(q.value("maxthresh_")),
            "w_q": weight,
            "max_p": Decimal(1) / linterm,
            "mean_packet_size": units.size_text(units.integer(q.value("mean_pktsize_"))),
            "wait": units.boolean(q.value("wait_")),
            "gentle": units.boolean(q.value("gentle_")),
            "bytes": units.boolean(q.value("bytes_")),
            "queue_in_bytes": units.boolean(q.value("queue_in_bytes_")),
            "ecn_marking": units.boolean(q.value("setbit_")),
        }
        mark_p = units.number(q.value("mark_p_"))
        if values["ecn_marking"] and units.boolean(q.value("use_mark_p_")):
            if values["gentle"] or values["max_p"] > mark_p:
                raise refused(
                    _where(q, "setbit_"),
                    "with use_mark_p_ true (ns-2.35's default), ns-2's RED drops instead of marking "
                    f"where its probability reaches mark_p_ {mark_p} (the gentle region, or max_p above "
                    "it), which congsim does not model: set Queue/RED use_mark_p_ false",
                )
        spec: dict[str, Any] = {"kind": "red"}
        if limit != 50:
            spec["limit_packets"] = limit
        for name, value in values.items():
            if value != _RED_DEFAULTS[name]:
                spec[name] = _toml_number(value) if isinstance(value, Decimal) else value
        return spec

    # -- sources -----------------------------------------------------------------------

    def periods(self, app: Obj) -> list[Period]:
        """When `app` sends before the end: from each `start` to the next `stop`."""
        found: list[Period] = []
        on: tuple[Decimal, Location] | None = None
        for when, action, where in app.actions:
            if when >= self.end:
                break
            if action == "start" and on is None:
                on = (when, where)
            elif action == "stop" and on is not None:
                if when > on[0]:
                    found.append((on[0], when, on[1], where))
                on = None
        if on is not None:
            found.append((on[0], None, on[1], None))
        return found

    def _endpoints(self, agent: Obj, what: str) -> tuple[str, str]:
        if agent.node is None:
            raise wrong(agent.created, f"the {what} agent is never attached to a node (attach-agent)")
        peer = agent.peer
        if peer is None:
            raise wrong(agent.created, f"the {what} agent is never connected ($ns connect)")
        if peer.node is None:
            raise wrong(peer.created, "the agent is never attached to a node (attach-agent)")
        return self.node_names[agent.node.handle], self.node_names[peer.node.handle]

    def _left_out(self, obj: Obj, why: str) -> None:
        self.warnings.append(f"{obj.created.prefix()}: {obj.created.quoted()} left out: {why}")

    def _flows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        rec = self.rec
        senders = []
        for agent in rec.agents:
            if agent.kind != "tcp":
                continue
            if agent.partner is None:
                self._left_out(agent, "no application sends through this TCP agent")
            elif not self.periods(agent.partner):
                self._left_out(agent.partner, "the application never starts before the end")
            else:
                senders.append(agent)
        names = self._name(
            senders,
            self.found,
            lambda a: "tcp",
            set(),
            {a.handle: a.partner.handle for a in senders if a.partner},
        )
        self.source_names.update(names)
        flows, settings = [], []
        for agent in senders:
            assert agent.partner is not None and agent.peer is not None
            src, dst = self._endpoints(agent, "TCP")
            entry: dict[str, Any] = {"name": names[agent.handle], "from": src, "to": dst}
            periods = self.periods(agent.partner)
            if periods[0][0] > 0:
                entry["start"] = units.duration_text(periods[0][0])
            if len(periods) == 1 and periods[0][1] is not None:
                entry["stop"] = units.duration_text(periods[0][1])
            elif len(periods) > 1:
                for k, (start, stop, _, _) in enumerate(periods):
                    if k > 0:
                        self._event(start, "flow_start", flow=entry["name"])
                    if stop is not None:
                        self._event(stop, "flow_stop", flow=entry["name"])
            flows.append(entry)
            settings.append(tcp.settings(agent, agent.peer))
        return flows, settings

    def _sources(self) -> list[dict[str, Any]]:
        rec = self.rec
        apps = []
        for app in rec.apps:
            if app.cls == "Application/FTP":
                continue
            if app.partner is None:
                self._left_out(app, "no agent carries this application")
            elif not self.periods(app):
                self._left_out(app, "the application never starts before the end")
            else:
                apps.append(app)
        kinds = {"Application/Traffic/CBR": "cbr", "Application/Traffic/Exponential": "exp"}
        names = self._name(
            apps,
            self.found,
            lambda a: kinds.get(a.cls, "pareto"),
            set(self.source_names.values()),
            {a.handle: a.partner.handle for a in apps if a.partner},
        )
        self.source_names.update(names)
        return [self._source(app, names[app.handle]) for app in apps]

    def _source(self, app: Obj, name: str) -> dict[str, Any]:
        udp = app.partner
        assert udp is not None
        src, dst = self._endpoints(udp, "UDP")
        size = units.integer(app.value("packetSize_"))
        largest = units.integer(udp.value("packetSize_"))
        if size > largest:
            raise refused(
                _where(app, "packetSize_"),
                f"ns-2 splits each {size}-byte packet into Agent/UDP packets of packetSize_ {largest}; "
                "raise the agent's packetSize_",
            )
        rate = units.bandwidth(app.value("rate_"))
        if rate <= 0 or size <= 0:
            raise wrong(_where(app, "rate_"), "the rate and the packet size must be greater than zero")
        entry: dict[str, Any] = {
            "name": name,
            "from": src,
            "to": dst,
            "rate": units.rate_text(rate),
            "packet_size": units.size_text(size),
        }
        periods = self.periods(app)
        whole = len(periods) == 1 and periods[0][0] == 0 and periods[0][1] is None
        if app.cls == "Application/Traffic/CBR":
            entry["phase"] = "zero"
            if not whole:
                entry["on"] = [
                    [units.duration_text(start), units.duration_text(stop if stop is not None else self.end)]
                    for start, stop, _, _ in periods
                ]
            return entry
        if len(periods) > 1:
            second = periods[1]
            raise refused(
                second[2],
                f"congsim's on/off sources run over one period (on_off.start, on_off.stop); {app.cls} "
                "started again after a stop is not imported",
            )
        on_off: dict[str, Any] = {
            "law": _ON_OFF_LAWS[app.cls],
            "on_mean": units.duration_text(units.seconds(app.value("burst_time_"))),
            "off_mean": units.duration_text(units.seconds(app.value("idle_time_"))),
        }
        if app.cls == "Application/Traffic/Pareto":
            on_off["shape"] = _toml_number(units.number(app.value("shape_")))
        start, stop = periods[0][0], periods[0][1]
        if start > 0:
            on_off["start"] = units.duration_text(start)
        if stop is not None and stop < self.end:
            on_off["stop"] = units.duration_text(stop)
        entry["on_off"] = on_off
        return entry

    # -- events --------------------------------------------------------------------------

    def _event(self, at: Decimal, action: str, **fields: Any) -> None:
        self.events.append((at, {"at": units.duration_text(at), "action": action, **fields}))

    def _changes(self) -> None:
        queues = {link.queue.handle: link for link in self.rec.links}
        lines = {link.delay.handle: link for link in self.rec.links}
        for change in self.rec.changes:
            if change.at >= self.end:
                self.warnings.append(
                    f"{change.where.prefix()}: {change.where.quoted()} left out: it happens at the end"
                )
                continue
            handle = change.obj.handle
            if change.obj.kind == "app":
                if handle in self.source_names:
                    rate = units.rate_text(units.bandwidth(change.value))
                    self._event(change.at, "cbr_rate", cbr=self.source_names[handle], rate=rate)
            elif handle in queues:
                limit = units.integer(change.value)
                self._event(
                    change.at, "queue_limit", link=self.link_name(queues[handle]), limit_packets=limit
                )
            elif change.name == "bandwidth_":
                rate = units.rate_text(units.bandwidth(change.value))
                self._event(change.at, "link_rate", link=self.link_name(lines[handle]), rate=rate)
            else:
                delay = units.duration_text(units.seconds(change.value))
                self._event(change.at, "link_delay", link=self.link_name(lines[handle]), delay=delay)

    def _after_end(self, at: Decimal, where: Location) -> bool:
        """`True` when `at` is past the end: the command at `where` is left out (a warning)."""
        if at >= self.end:
            self.warnings.append(f"{where.prefix()}: {where.quoted()} left out: after the end")
        return at >= self.end

    def _between(self, a: Obj, b: Obj, at: Decimal, where: Location) -> list[Link]:
        """The links between `a` and `b` (both directions), none when `at` is past the end
        (with a warning)."""
        if self._after_end(at, where):
            return []
        pairs = [(a.handle, b.handle), (b.handle, a.handle)]
        links = [self.rec.link_of[p] for p in pairs if p in self.rec.link_of]
        if not links:
            raise wrong(where, "no link joins these two nodes")
        return links

    def _of_node(self, a: Obj, at: Decimal, where: Location) -> list[Link]:
        """Every link to or from `a`, in the order the script made them; none when `at` is
        past the end (with a warning)."""
        if self._after_end(at, where):
            return []
        links = [link for ends, link in self.rec.link_of.items() if a.handle in ends]
        if not links:
            raise wrong(where, "no link joins this node")
        return links

    def _routes(self) -> None:
        for change in self.rec.routes:
            links = (
                self._of_node(change.a, change.at, change.where)
                if change.b is None
                else self._between(change.a, change.b, change.at, change.where)
            )
            for link in links:
                self._event(change.at, "link_up" if change.up else "link_down", link=self.link_name(link))
        for process in self.rec.failures:
            if process.finish is not None and process.finish <= process.start:
                raise wrong(process.where, "the finish time is not after the start time")
            links = self._between(process.a, process.b, process.start, process.where)
            if not links:
                continue
            fields: dict[str, Any] = {
                "link": self.link_name(links[0]),
                "up_mean": units.duration_text(process.up_mean),
                "down_mean": units.duration_text(process.down_mean),
            }
            if process.finish is not None and process.finish < self.end:
                fields["until"] = units.duration_text(process.finish)
            self._event(process.start, "link_failures", **fields)


def translate(rec: Recorder) -> tuple[dict[str, Any], list[str]]:
    """The scenario document of a recorded script, and the warnings."""
    try:
        translation = Translation(rec)
        return translation.document(), translation.warnings
    except ValueError as e:
        if isinstance(e, Ns2ImportError):
            raise
        raise Ns2ImportError(f"{rec.script}: {e}") from None
