"""Ctrl-C reaches a child a test interrupts, however the suite itself was started."""

from __future__ import annotations

import signal


def sigint_default() -> None:
    """A `preexec_fn`: SIGINT back to its default in the child, as at a person's terminal. A suite
    started in the background (`make test &`, nohup, a runner's shell) ignores SIGINT, a child
    inherits that, and the Ctrl-C a test sends it is lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
