"""Textual's Linux driver, made to survive its terminal going away.

When the terminal closes (`tmux kill-server`, a closed window, `kill-pane`), the next write to
it fails with EIO. Textual's output thread dies of that, and from then on the app blocks for
good once 30 frames are queued: it never exits, its input thread spins on the dead terminal
(~70 % of a core), and its panes are never closed. SIGHUP usually arrives first, but not
always (a write can fail before the handler runs, and a process outside the terminal's
foreground group gets no SIGHUP at all). Here a failed write drops the output and raises
SIGHUP once, so the app ends the way a hangup ends it: panes closed, team shut down.

This module is the one place teamtui touches Textual's private attributes (LinuxDriver's `_file`,
`_sigcont_application`, `_must_signal_resume`): a documented workaround with no public way to
do it. The rest of teamtui/tui uses Textual's public API only (tests/tui/test_textual_public.py).
The app learns of its driver from here (`DriverUser.driver_started`), not from Textual's `App._driver`.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import IO, Any, Protocol, runtime_checkable

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver


class TerminalOutput:
    """The driver's output file: writes that fail (the terminal is gone) are dropped, and the
    first failure calls `on_gone` once."""

    def __init__(self, file: IO[str], on_gone) -> None:
        self._file = file
        self._on_gone = on_gone
        self._gone = False
        self._lock = threading.Lock()

    @property
    def gone(self) -> bool:
        return self._gone

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._file.write(text)
            except (OSError, ValueError):  # EIO on a hung-up terminal; ValueError once it is closed
                self._lost()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self._lost()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return not self._gone and self._file.isatty()

    def _lost(self) -> None:
        with self._lock:
            if self._gone:
                return
            self._gone = True
        self._on_gone()


def hang_up() -> None:
    """Act as if the terminal hung up: the SIGHUP handlers the CLI installed end the app."""
    os.kill(os.getpid(), signal.SIGHUP)


@runtime_checkable
class DriverUser(Protocol):
    """An app that writes bytes of its own to the terminal (a bell, a desktop notification): the
    driver that owns the terminal makes itself known to it when it is made."""

    def driver_started(self, driver: Driver) -> None: ...


class HangupSafeDriver(LinuxDriver):
    """LinuxDriver whose output outlives the terminal (see the module docstring)."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        if self._file is not None:  # sys.__stderr__: None only without any stderr, nothing to wrap then
            self._file = TerminalOutput(self._file, hang_up)  # type: ignore[assignment]  # duck-typed file: write/flush/fileno/isatty
        if isinstance(app, DriverUser):
            app.driver_started(self)

    def _sigcont_application(self, *args) -> None:
        # Resume only after our own stop (Ctrl+Z). A hangup brings SIGCONT too, also after the app
        # has ended; Textual's handler would then restart the app's mode on no loop and raise in
        # whatever the main thread does (waiting for the team's lead to finish shutting it down).
        if self._must_signal_resume:
            super()._sigcont_application(*args)
