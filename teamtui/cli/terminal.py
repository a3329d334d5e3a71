"""The dashboard's terminal: refused without one, and what to do when it goes away (SIGHUP)."""

from __future__ import annotations

import os

from teamtui.cli.common import EXIT_USAGE, CliError


def need_terminal(instead: str) -> None:
    """The dashboard reads keys from stdin and draws on stderr, and a person wanting it has stdout
    there too: each must be a terminal, else one line (with `instead`, what works without one), exit 2.
    A driver of Textual's choosing (TEXTUAL_DRIVER: `teamtui serve`'s browser sessions) needs none."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return
    names = ("stdin", "stdout", "stderr")
    missing = [name for fd, name in enumerate(names) if not _is_terminal(fd)]
    if missing:
        which = f"{missing[0]} is not one" if len(missing) == 1 else f"{', '.join(missing)} are not"
        raise CliError(f"the dashboard needs a terminal ({which}): {instead}", EXIT_USAGE)


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


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
