"""The recording stand-in for ns-2: a real Tcl interpreter (Python's bundled Tcl, through
`tkinter.Tcl()`) in which `new`, `Simulator`, the class commands (`Agent/TCP set window_ 20`)
and every object's command (`$ns duplex-link ...`, `$tcp set window_ 20`) are Python callbacks
that record what the script builds instead of simulating it. Loops, `expr`, procs and variables
work as in ns-2 because Tcl runs them.

Each object is a Tcl proc named like ns-2's handles (`_o12`) that passes `[info frame -1]` (the
caller's file, line and command text, which Tcl 8.6 tracks for sourced files) with its
arguments to one Python callback; a refusal is remembered there and the proc returns a Tcl
error, which unwinds the script. `$ns run` runs the scheduled `$ns at` scripts in time order
at their simulated times, so that `$ftp start` inside one knows when it happens; the run ends
at `exit` (a finish proc's) or `$ns halt`. Nothing is written to disk and no program is run:
`open` for writing gives a channel that swallows what is written, `exec` is not run.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from congsim.ns2import import methods, units
from congsim.ns2import.errors import Location, Ns2ImportError, one_line, refused, wrong
from congsim.ns2import.objects import Change, Failures, Link, Obj, RouteChange, Setting, kind_of, read
from congsim.ns2import.variables import APPLICATIONS, CLASSES, VARIANTS, Var, family, parents

#: Events the run executes at most (a proc that reschedules itself without an end).
MAX_EVENTS = 1_000_000

_SETUP = r"""
namespace eval ::ns2import { variable stop 0 }
proc ::ns2import::dispatch {target frame args} {
    set result [::ns2import::py $target $frame {*}$args]
    if {$::ns2import::stop} {
        return -code error -errorcode {NS2IMPORT STOP} "stopped by congsim import-ns2"
    }
    return $result
}
proc ::ns2import::define {name} {
    proc ::$name args "::ns2import::dispatch [list $name] \[info frame -1\] {*}\$args"
}
foreach command {open puts close flush} { rename $command ::ns2import::tcl_$command }
foreach command {new exit exec open puts close flush unknown ns-random} {
    proc ::$command args "::ns2import::dispatch [list $command] \[info frame -1\] {*}\$args"
}
set argv {}
set argc 0
"""

#: Why a class the import does not know is refused, by the start of its name.
_CLASS_REASONS = (
    ("Agent/TCP/Vegas", "congsim has no TCP Vegas"),
    (
        "Agent/TCP/",
        "the TCP senders congsim has are Agent/TCP, Agent/TCP/Reno, Agent/TCP/Newreno, Agent/TCP/Sack1",
    ),
    ("Agent/TCPSink/", "the sinks congsim has are Agent/TCPSink, Agent/TCPSink/DelAck, Agent/TCPSink/Sack1"),
    ("Mac/", "congsim has no wireless model"),
    ("Phy/", "congsim has no wireless model"),
    ("Antenna/", "congsim has no wireless model"),
    ("Propagation/", "congsim has no wireless model"),
    ("Channel/", "congsim has no wireless model"),
    ("ErrorModel", "congsim's losses are [[drops]] and random_loss, which the import does not write"),
    (
        "RNG",
        "the import does not reproduce ns-2's random number generators ([simulation] seed drives congsim's)",
    ),
    ("RandomVariable", "the import does not reproduce ns-2's random number generators"),
    ("Queue/", "the queues the import translates are DropTail and RED"),
    (
        "Application/",
        "the sources the import translates are FTP, Traffic/CBR, Traffic/Exponential, Traffic/Pareto",
    ),
)


def class_reason(cls: str) -> str:
    for start, reason in _CLASS_REASONS:
        if cls.startswith(start):
            return reason
    return f"the import knows no class {cls}"


class Recorder:
    """Runs one script in the stand-in and keeps what it built."""

    def __init__(self, path: Path, shown: str) -> None:
        import tkinter

        self.path = path
        #: The script's name in messages: as the user wrote it.
        self.script = shown
        self.tcl = tkinter.Tcl()
        self.objects: dict[str, Obj] = {}
        self.simulator: Obj | None = None
        self.nodes: list[Obj] = []
        self.links: list[Link] = []
        self.link_of: dict[tuple[str, str], Link] = {}
        self.link_by_handle: dict[str, Link] = {}
        self.agents: list[Obj] = []
        self.apps: list[Obj] = []
        self.classes: dict[str, dict[str, Setting]] = {}
        self.pending: list[tuple[Decimal, int, str, Location]] = []
        self.scheduled = 0
        self.changes: list[Change] = []
        self.routes: list[RouteChange] = []
        self.failures: list[Failures] = []
        self.warnings: dict[str, str] = {}
        self.now = Decimal(0)
        self.ran = False
        self.running = False
        self.end: Decimal | None = None
        self.end_where: Location | None = None
        self.exited = False
        self.failure: Ns2ImportError | None = None
        self.bug: BaseException | None = None
        #: While a scheduled script runs: the `$ns at` that scheduled it.
        self.event_where: Location | None = None
        self.fake_channels: set[str] = set()
        self.counter = 0
        self.tcl.createcommand("::ns2import::py", self._py)
        self.tcl.eval(_SETUP)
        for cls in [*CLASSES, "Simulator"]:
            self.tcl.call("::ns2import::define", cls)

    def close(self) -> None:
        """Frees the Tcl interpreter now, in the thread that made it. Left to the garbage
        collector (a refusal's traceback keeps the recorder alive in a cycle), it may be freed
        in another thread, and Tcl then aborts the whole process (Tcl_AsyncDelete)."""
        import tkinter

        try:
            self.tcl.tk.deletecommand("::ns2import::py")
        except tkinter.TclError:
            pass  # execute() deleted it already
        del self.tcl

    # -- running the script ------------------------------------------------------------

    def execute(self) -> None:
        """Sources the script; raises `Ns2ImportError` for a refusal or a Tcl error."""
        import tkinter

        try:
            self.tcl.call("source", "-encoding", "utf-8", str(self.path))
        except tkinter.TclError as e:
            self._raise_stored()
            if not self.exited:
                raise self._tcl_error(str(e), None) from None
        finally:
            self.tcl.tk.deletecommand("::ns2import::py")
        self._raise_stored()
        if not self.ran:
            if self.end_where is not None:
                raise refused(self.end_where, 'the script exits before "$ns run": nothing is simulated')
            raise Ns2ImportError(f'{self.script}: the script never calls "$ns run": nothing is simulated')

    def _raise_stored(self) -> None:
        if self.bug is not None:
            raise self.bug
        if self.failure is not None:
            raise self.failure

    def _tcl_error(self, message: str, event: Location | None) -> Ns2ImportError:
        """A Tcl error of the script, at the line Tcl's error trace names (or the `$ns at` that
        scheduled the script that failed)."""
        if event is not None:
            return Ns2ImportError(f"{event.prefix()}: Tcl error in {event.quoted()}: {one_line(message)}")
        import re

        trace = str(self.tcl.getvar("errorInfo"))
        lines = re.findall(r'\(file "(.*?)" line (\d+)\)', trace)
        where = f"{self._file(lines[-1][0])}:{lines[-1][1]}" if lines else self.script
        return Ns2ImportError(f"{where}: Tcl error: {one_line(message)}")

    def _file(self, name: str) -> str:
        """A file Tcl names, as the user wrote it when it is the script."""
        try:
            same = os.path.samefile(name, self.path)
        except OSError:
            same = False
        return self.script if same else name

    def _py(self, target: str, frame: str, *args: str) -> str:
        """The one callback every stand-in command reaches."""
        if self.failure is not None or self.bug is not None:
            self.tcl.setvar("::ns2import::stop", "1")
            return ""
        try:
            return self._call(target, self._where(frame), [str(a) for a in args])
        except Ns2ImportError as e:
            self.failure = e
        except Exception as e:  # a bug of the import: re-raised, with its traceback, after Tcl unwinds
            self.bug = e
        self.tcl.setvar("::ns2import::stop", "1")
        return ""

    def _where(self, frame: str) -> Location:
        items = [str(item) for item in self.tcl.splitlist(frame)]
        info = dict(zip(items[0::2], items[1::2], strict=False))
        line = int(info.get("line", "-1") or -1)
        command = one_line(info.get("cmd", ""))
        if info.get("type") == "source" and line > 0:
            return Location(self._file(info.get("file", "")), line, command)
        if self.event_where is not None:
            return self.event_where
        return Location(self.script, None, command)

    def warn(self, key: str, where: Location, text: str) -> None:
        """A warning, once per `key` (the first place it applies)."""
        self.warnings.setdefault(key, f"{where.prefix()}: {where.quoted()} {text}")

    def _call(self, target: str, where: Location, args: list[str]) -> str:
        globals_: dict[str, Callable[[Location, list[str]], str]] = {
            "new": self.new,
            "exit": self._exit,
            "exec": self._exec,
            "open": self._open,
            "puts": self._puts,
            "close": self._close,
            "flush": self._flush,
            "unknown": self._unknown,
            "ns-random": self._ns_random,
        }
        if target in globals_:
            return globals_[target](where, args)
        if target in CLASSES or target == "Simulator":
            return self._class_command(target, where, args)
        obj = self.objects[target]
        if not args:
            raise wrong(where, f"{obj.cls} needs a method")
        return methods.call(self, obj, where, args[0], args[1:])

    # -- global commands -----------------------------------------------------------------

    def new(self, where: Location, args: list[str]) -> str:
        if not args:
            raise wrong(where, "new needs a class")
        cls = args[0]
        if len(args) > 1:
            raise refused(where, f"new {cls} takes no arguments in the import")
        if self.running:
            raise refused(where, "the import builds the network before the run, not during it")
        if cls == "Simulator":
            if self.simulator is not None:
                raise refused(where, "a script has one Simulator")
            self.simulator = self.create(cls, where)
            return self.simulator.handle
        known = cls in VARIANTS or cls in APPLICATIONS or kind_of(cls) in ("sink", "udp", "null")
        if not known or cls not in CLASSES:
            raise refused(where, class_reason(cls))
        obj = self.create(cls, where)
        (self.apps if cls in APPLICATIONS else self.agents).append(obj)
        return obj.handle

    def create(self, cls: str, where: Location) -> Obj:
        """A new object of `cls` with its Tcl command; it keeps the class settings in force."""
        self.counter += 1
        inherited: dict[str, Setting] = {}
        for parent in reversed(parents(cls)):
            inherited.update(self.classes.get(parent, {}))
        obj = Obj(f"_o{self.counter}", cls, where, inherited)
        self.objects[obj.handle] = obj
        self.tcl.call("::ns2import::define", obj.handle)
        return obj

    def _exit(self, where: Location, args: list[str]) -> str:
        if self.end is None:
            self.end, self.end_where = self.now, where
        self.exited = True
        self.tcl.setvar("::ns2import::stop", "1")
        return ""

    def _exec(self, where: Location, args: list[str]) -> str:
        self.warn(f"exec {where.prefix()}", where, "not run: the import runs no programs")
        return ""

    def _open(self, where: Location, args: list[str]) -> str:
        access = args[1] if len(args) > 1 else "r"
        if access in ("r", "RDONLY", "rb"):
            return str(self.tcl.call("::ns2import::tcl_open", *args))
        self.counter += 1
        channel = f"ns2import_file{self.counter}"
        self.fake_channels.add(channel)
        return channel

    def _puts(self, where: Location, args: list[str]) -> str:
        words = args[1:] if args[:1] == ["-nonewline"] else args
        if len(words) == 2 and words[0] not in self.fake_channels | {"stdout", "stderr"}:
            self.tcl.call("::ns2import::tcl_puts", *args)
        # The rest (the script's own output and its trace files) is about a run that did not
        # happen, and must not mix with a scenario written to standard output.
        return ""

    def _close(self, where: Location, args: list[str]) -> str:
        if args and args[0] in self.fake_channels:
            self.fake_channels.discard(args[0])
            return ""
        return str(self.tcl.call("::ns2import::tcl_close", *args))

    def _flush(self, where: Location, args: list[str]) -> str:
        if args and args[0] in self.fake_channels | {"stdout", "stderr"}:
            return ""
        return str(self.tcl.call("::ns2import::tcl_flush", *args))

    def _unknown(self, where: Location, args: list[str]) -> str:
        name = args[0] if args else ""
        if "/" in name:
            raise refused(where, class_reason(name))
        raise refused(where, f"{name} is neither a Tcl command nor an ns-2 command the import knows")

    def _ns_random(self, where: Location, args: list[str]) -> str:
        self.warn("ns-random", where, "ignored: congsim draws every random number from [simulation] seed")
        return "0"

    # -- classes and variables -----------------------------------------------------------

    def _class_command(self, cls: str, where: Location, args: list[str]) -> str:
        if cls == "Simulator":
            if args != ["instance"]:
                raise refused(where, "the import knows Simulator's instance only")
            if self.simulator is None:
                raise wrong(where, "there is no Simulator yet (set ns [new Simulator])")
            return self.simulator.handle
        if not args or args[0] != "set" or len(args) not in (2, 3):
            raise refused(where, f"the import reads class defaults ({cls} set VARIABLE VALUE) only")
        name = args[1]
        if len(args) == 2:
            for parent in parents(cls):
                if name in self.classes.get(parent, {}):
                    return self.classes[parent][name].value
            var = self.variable(cls, name, where)
            return var.default
        self.check(cls, name, args[2], where)
        self.classes.setdefault(cls, {})[name] = Setting(args[2], where)
        return args[2]

    def variable(self, cls: str, name: str, where: Location) -> Var:
        var = family(cls).get(name)
        if var is None:
            raise refused(where, f"congsim has no equivalent of {cls}'s {name}")
        return var

    def check(self, cls: str, name: str, value: str, where: Location) -> Var:
        """The variable `name` of `cls` set to `value`: refused when congsim has no equivalent,
        when the value cannot be read, or when only ns-2's default is modelled."""
        var = self.variable(cls, name, where)
        try:
            parsed = read(var.kind, value)
        except ValueError as e:
            raise wrong(where, str(e)) from None
        if var.role == "stat" and parsed != 0:
            raise refused(
                where, f"{name} is state ns-2 computes as it runs; the import sets no initial state"
            )
        if var.role == "fixed" and parsed != read(var.kind, var.default):
            raise refused(where, f"congsim models {cls}'s {name} {var.default} (ns-2.35's default) only")
        return var

    def set_variable(self, obj: Obj, where: Location, args: list[str]) -> str:
        """`$obj set NAME` (read) and `$obj set NAME VALUE`."""
        if len(args) == 1:
            setting = obj.setting(args[0])
            return setting.value if setting is not None else self.variable(obj.cls, args[0], where).default
        if len(args) != 2:
            raise wrong(where, "set takes a variable and, to change it, a value")
        name, value = args
        var = self.check(obj.cls, name, value, where)
        if var.role == "stat":
            return value
        if name == "interval_" and obj.cls == "Application/Traffic/CBR":
            # ns-2's CBR keeps rate_ and interval_ in step: interval_ sets rate_ from the
            # packet size of the moment.
            interval = units.seconds(value)
            if interval <= 0:
                raise wrong(where, "interval_ must be greater than zero")
            name, value = "rate_", str(units.integer(obj.value("packetSize_")) * 8 / interval)
        if self.running:
            return self._change(obj, name, value, where)
        obj.settings[name] = Setting(value, where)
        return args[1]

    def _change(self, obj: Obj, name: str, value: str, where: Location) -> str:
        allowed = {"app": ("rate_",), "queue": ("limit_",), "delay": ("bandwidth_", "delay_")}
        if name not in allowed.get(obj.kind, ()) or obj.cls == "Application/FTP":
            raise refused(where, f"congsim cannot change {obj.cls}'s {name} during the run")
        self.changes.append(Change(self.now, obj, name, value, where))
        return value

    # -- the run ---------------------------------------------------------------------------

    def at(self, where: Location, args: list[str]) -> str:
        if len(args) != 2:
            raise wrong(where, "at takes a time and a script")
        when = methods.event_time(self.now, args[0], where)
        self.scheduled += 1
        heapq.heappush(self.pending, (when, self.scheduled, args[1], where))
        return str(self.scheduled)

    def run(self, where: Location, args: list[str]) -> str:
        import tkinter

        if self.ran:
            raise refused(where, "a script runs its simulation once")
        self.ran = self.running = True
        executed = 0
        while self.pending and self.end is None:
            when, _, script, scheduled_at = heapq.heappop(self.pending)
            self.now, self.event_where = when, scheduled_at
            try:
                self.tcl.call("uplevel", "#0", script)
            except tkinter.TclError as e:
                if self.failure is not None or self.bug is not None or self.exited:
                    break
                raise self._tcl_error(str(e), scheduled_at) from None
            finally:
                self.event_where = None
            executed += 1
            if executed > MAX_EVENTS:
                raise refused(where, f"the run executed over {MAX_EVENTS} scheduled scripts without ending")
        if self.end is None and self.failure is None and self.bug is None:
            raise refused(
                where,
                'nothing ends the run: schedule a proc that calls exit ($ns at 20 "finish") or $ns halt',
            )
        return ""

    def halt(self, where: Location, args: list[str]) -> str:
        if not self.running:
            raise refused(where, "halt stops a run; the script has not started one")
        if self.end is None:
            self.end, self.end_where = self.now, where
        return ""

    # -- names -------------------------------------------------------------------------

    def variable_names(self) -> dict[str, list[str]]:
        """For each object a global variable holds: the names the variables give it, best
        first (`set n(src) [$ns node]` names the node `src`; `set tcp(3) ...` names `tcp3`;
        `set ftp [...]` names `ftp`)."""
        import re
        import tkinter

        word = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*|[0-9]+[A-Za-z_][A-Za-z0-9_-]*")
        found: dict[str, list[tuple[int, int, str]]] = {}
        for variable in map(str, self.tcl.splitlist(self.tcl.call("info", "globals"))):
            try:
                if int(self.tcl.call("array", "exists", variable)):
                    items = [str(v) for v in self.tcl.splitlist(self.tcl.call("array", "get", variable))]
                    pairs = [(1, k, v) for k, v in zip(items[0::2], items[1::2], strict=True)]
                else:
                    pairs = [(0, variable, str(self.tcl.call("set", variable)))]
            except tkinter.TclError:
                continue
            for array, key, value in pairs:
                if value not in self.objects:
                    continue
                name = key if not array or key[:1].isalpha() else f"{variable}{key}"
                if word.fullmatch(name):
                    found.setdefault(value, []).append((array, len(name), name))
        return {handle: [name for *_, name in sorted(names)] for handle, names in found.items()}

    def attach(self, node: Obj, agent: Obj, where: Location) -> None:
        if node.kind != "node" or agent.kind not in ("tcp", "sink", "udp", "null"):
            raise wrong(where, "attaches an agent to a node")
        if agent.node is not None:
            raise refused(where, "the agent is attached to a node already")
        agent.node = node

    def link(self, a: str, b: str, where: Location) -> Link:
        found = self.link_of.get((a, b))
        if found is None:
            raise wrong(where, "there is no link between these nodes in this direction")
        return found
