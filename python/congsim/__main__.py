"""`python -m congsim` and the `congsim` script: the command. A Ctrl-C that comes while its
modules load ends as one at any later moment does (one line `interrupted: ...`, status 130),
not in a traceback."""

import os
import sys


def entry() -> None:
    """Loads the command and runs it."""
    try:
        from congsim.cli import main
    except BaseException as e:
        # Python reports a KeyboardInterrupt raised in some steps of an import (a class's
        # `__set_name__`) as the cause of a RuntimeError.
        if isinstance(e, KeyboardInterrupt) or isinstance(e.__cause__, KeyboardInterrupt):
            sys.stderr.write("interrupted: the command was stopped before it started\n")
            sys.stderr.flush()
            os._exit(130)
        raise
    main()


if __name__ == "__main__":
    entry()
