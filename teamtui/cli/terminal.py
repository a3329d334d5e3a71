"""What to do when the terminal goes away (SIGHUP): nothing written afterwards may fail."""

from __future__ import annotations

import os


def detach_terminal() -> None:
    """Point stdin, stdout and stderr at /dev/null: after a hangup every write to the old terminal
    fails (EIO), and a failing print must not cut short the team's graceful shutdown."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)
