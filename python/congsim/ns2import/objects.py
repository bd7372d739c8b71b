"""What the stand-in records: the script's objects, links, scheduled changes and settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from congsim.ns2import import units
from congsim.ns2import.errors import Location
from congsim.ns2import.variables import APPLICATIONS, VARIANTS, Kind, default


@dataclass(frozen=True)
class Setting:
    """A variable's value as the script wrote it, and where."""

    value: str
    where: Location


@dataclass
class Obj:
    """An ns-2 object: its handle (`_o12`, the Tcl command that stands for it), its class, where
    it was made, the class-level settings in force then (ns-2 copies them at creation; a later
    `Agent/TCP set window_ 50` does not reach an agent made before) and its own settings."""

    handle: str
    cls: str
    created: Location
    inherited: dict[str, Setting] = field(default_factory=dict)
    settings: dict[str, Setting] = field(default_factory=dict)
    #: Agents: the node they are attached to.
    node: Obj | None = None
    #: Agents: the agent they are connected to.
    peer: Obj | None = None
    #: Agents: their application; applications: their agent.
    partner: Obj | None = None
    #: Applications: `start` and `stop`, with the simulated time and the command.
    actions: list[tuple[Decimal, str, Location]] = field(default_factory=list)
    #: Nodes: ns-2's node id (0, 1, ... in creation order).
    number: int = 0

    def setting(self, name: str) -> Setting | None:
        """The script's setting of `name` for this object (its own, else its class's)."""
        return self.settings.get(name) or self.inherited.get(name)

    def value(self, name: str) -> str:
        """The value `name` has for this object in ns-2.35: the script's, else the default."""
        found = self.setting(name)
        if found is not None:
            return found.value
        fallback = default(self.cls, name)
        return fallback if fallback is not None else "0"

    @property
    def kind(self) -> str:
        return kind_of(self.cls)


def kind_of(cls: str) -> str:
    """What the stand-in does with an object of class `cls`."""
    if cls in VARIANTS:
        return "tcp"
    if cls.startswith("Agent/TCPSink"):
        return "sink"
    if cls in APPLICATIONS:
        return "app"
    if cls.startswith("Queue/"):
        return "queue"
    return {
        "Simulator": "simulator",
        "Node": "node",
        "Agent/UDP": "udp",
        "Agent/Null": "null",
        "Agent/LossMonitor": "null",
        "DelayLink": "delay",
        "Link": "link",
        "QueueMonitor": "monitor",
    }.get(cls, "other")


@dataclass
class Link:
    """One direction of a link (`duplex-link` makes two, `simplex-link` one): its nodes, its
    queue and delay-line objects (ns-2's `[$link queue]` and `[$link link]`), the object
    `$ns link A B` returns, and whether a duplex link made it."""

    src: Obj
    dst: Obj
    queue: Obj
    delay: Obj
    handle: Obj
    duplex: bool

    @property
    def name(self) -> tuple[str, str]:
        return self.src.handle, self.dst.handle


@dataclass(frozen=True)
class Change:
    """A variable set while the simulation runs (`$ns at 5 "$cbr set rate_ 3Mb"`)."""

    at: Decimal
    obj: Obj
    name: str
    value: str
    where: Location


@dataclass(frozen=True)
class RouteChange:
    """`$ns rtmodel-at T down|up $n1 $n2`, or `$ns rtmodel-at T down|up $n1` (`b` is `None`:
    every link of `a`)."""

    at: Decimal
    up: bool
    a: Obj
    b: Obj | None
    where: Location


@dataclass(frozen=True)
class Failures:
    """`$ns rtmodel Exponential {[start] up down [finish]} $n1 $n2`: a random up/down process."""

    start: Decimal
    up_mean: Decimal
    down_mean: Decimal
    finish: Decimal | None
    a: Obj
    b: Obj
    where: Location


def read(kind: Kind, text: str) -> Decimal | int | bool:
    """`text` read as ns-2 reads a variable of this kind; `ValueError` saying why not."""
    if kind == "int":
        return units.integer(text)
    if kind == "real":
        return units.number(text)
    if kind == "bool":
        return units.boolean(text)
    if kind == "time":
        return units.seconds(text)
    return units.bandwidth(text)
