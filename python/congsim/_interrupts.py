"""Ctrl-C (SIGINT) at awkward moments.

* `HeldCtrlC`: short steps that must not stop half-way (files renamed into place, worker
  processes being started) take a Ctrl-C when they end; started processes never see it.
* `leave`: how the `congsim` command ends after Ctrl-C: one line, status 130, at once.
* `guard_command_start`: the command answers a Ctrl-C while it is still loading the same way
  (`congsim.cli.main` takes over from there). Installed when this module loads, which
  `congsim/__init__` does first thing: only `os` and `sys` load with it.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing`'s: importing it takes as long as the rest of congsim's start
if TYPE_CHECKING:
    from types import TracebackType
    from typing import NoReturn

#: The exit status of a command stopped by Ctrl-C: 128 + SIGINT, what a shell reports.
INTERRUPTED_STATUS = 130


class HeldCtrlC:
    """`with HeldCtrlC():` a Ctrl-C inside the block takes effect when the block ends (the
    handler that was in place runs then: by default, `KeyboardInterrupt` is raised at the end of
    the `with`), for short steps that must not stop half-way.

    With `children=True`, SIGINT is also blocked in this thread, so that processes started in
    the block begin with it blocked (fork and exec keep the signal mask) and never see the
    Ctrl-C a terminal sends to its whole process group, not even while Python starts in them.
    CPython starts its resource tracker the same way.

    Only in the main thread, where Python runs signal handlers; elsewhere it does nothing."""

    def __init__(self, children: bool = False) -> None:
        self._children = children
        self._received: list[int] = []
        self._previous: object = None
        self._mask: set[int] | None = None

    def __enter__(self) -> None:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGINT)
        if callable(previous):  # not SIG_IGN or SIG_DFL: those need no holding
            self._previous = previous
            signal.signal(signal.SIGINT, lambda signum, _frame: self._received.append(signum))
        if self._children and hasattr(signal, "pthread_sigmask"):
            self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        import signal

        if self._mask is not None:
            # A Ctrl-C that came meanwhile arrives now, and is received just below.
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
        previous = self._previous
        if callable(previous):
            signal.signal(signal.SIGINT, previous)
            if self._received:
                previous(signal.SIGINT, None)


def leave(what: str) -> NoReturn:
    """Ends the `congsim` command after Ctrl-C: `interrupted: <what>` on stderr, status 130.

    At once (`os._exit`): a normal exit joins a process pool's result thread, which waits
    forever when a worker was ended half-way through sending its result. The two things of a
    normal exit that show are done here: the output is flushed, with the terminal's cursor
    (which a progress bar hides) shown again, and multiprocessing's named semaphores are
    unlinked, without which its resource tracker warns of "leaked semaphore objects"."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
    except ValueError:  # not the main thread
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is sys.stderr:
                stream.write(f"interrupted: {what}\n")
            if stream.isatty():
                stream.write("\x1b[?25h")
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing to tell
            pass
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        try:
            # What a normal exit runs first (`multiprocessing.util._exit_function`): the
            # finalizers of exit priority 0 and up, which unlink the semaphores of pools and
            # queues (the worker processes are ended by then; unlinking leaves open ones usable).
            util._run_finalizers(0)
        except Exception:  # an interpreter without it: the tracker's warning, no more
            pass
    os._exit(INTERRUPTED_STATUS)


def _is_the_command() -> bool:
    """Whether this process runs the `congsim` command: `python -m congsim` (the package loads
    before its `__main__`, while `sys.argv[0]` is "-m") or the `congsim` script."""
    first = sys.argv[0] if sys.argv else ""
    if first == "-m":
        arguments = list(getattr(sys, "orig_argv", []))
        return "-m" in arguments and arguments[arguments.index("-m") + 1 :][:1] == ["congsim"]
    return os.path.basename(first) in ("congsim", "congsim.exe")


def guard_command_start() -> None:
    """In the `congsim` command only: a Ctrl-C before `congsim.cli.main` takes over (while the
    package and the command line library load) ends like one later on, with one line and
    status 130, not with a traceback from the middle of an import. A hook for uncaught
    `KeyboardInterrupt` (`sys.excepthook`); other exceptions go to the previous hook."""
    if not _is_the_command():
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, traceback: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            leave("congsim was stopped while starting; nothing was changed")
        previous(kind, value, traceback)

    sys.excepthook = hook


guard_command_start()
