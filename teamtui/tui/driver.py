"""Textual's Linux driver, made to survive its terminal going away.

When the terminal closes (`tmux kill-server`, a closed window, `kill-pane`), the next write to
it fails with EIO. Textual's output thread dies of that, and from then on the app blocks for
good once 30 frames are queued: it never exits, its input thread spins on the dead terminal
(~70 % of a core), and its panes are never closed. SIGHUP usually arrives first, but not
always (a write can fail before the handler runs, and a process outside the terminal's
foreground group gets no SIGHUP at all). Here the driver's frames go through an output thread
of its own whose failed writes are dropped and raise SIGHUP once, so the app ends the way a
hangup ends it: panes closed, team shut down.

All of it goes through the driver's public API (`write`, `start_application_mode`, `close`) and
the signal module: no private attribute of Textual's (tests/tui/test_textual_public.py scans this
file too). The app learns of its driver from here (`DriverUser.driver_started`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from queue import Queue
from typing import IO, Any, Protocol, runtime_checkable

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver

QUEUED_FRAMES = 30  # as many as Textual's own writer holds before the app waits for the terminal


class TerminalOutput:
    """The terminal as a file: writes that fail (the terminal is gone) are dropped, and the first
    failure calls `on_gone` once."""

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

    def _lost(self) -> None:
        with self._lock:
            if self._gone:
                return
            self._gone = True
        self._on_gone()


class OutputThread(threading.Thread):
    """Writes frames to the terminal in the background, flushing when none is waiting (as Textual's
    own writer does); a terminal that is gone never stops it, so `write` and `stop` never block for
    good."""

    def __init__(self, output: TerminalOutput) -> None:
        super().__init__(daemon=True, name="teamtui-output")
        self.output = output
        self.frames: Queue[str | None] = Queue(QUEUED_FRAMES)
        self.stopped = False

    def write(self, text: str) -> None:
        if not self.stopped:  # a bell from another thread after the app left the terminal: dropped
            self.frames.put(text)

    def run(self) -> None:
        while (text := self.frames.get()) is not None:
            self.output.write(text)
            if self.frames.empty():
                self.output.flush()
        self.output.flush()

    def stop(self) -> None:
        self.stopped = True
        self.frames.put(None)
        self.join()


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
        # The terminal LinuxDriver draws on; without any stderr there is nowhere to draw.
        self.terminal = TerminalOutput(sys.__stderr__, hang_up) if sys.__stderr__ is not None else None
        self.output: OutputThread | None = None
        self.resume_owed = False
        self._resume_only_after_our_stop()
        if isinstance(app, DriverUser):
            app.driver_started(self)

    def start_application_mode(self) -> None:
        if self.terminal is not None:
            self.output = OutputThread(self.terminal)
            self.output.start()
        super().start_application_mode()

    def write(self, data: str) -> None:
        output = self.output
        if output is not None:
            output.write(data)

    def close(self) -> None:
        super().close()  # stops Textual's own writer, idle: every frame came through `write`
        output, self.output = self.output, None
        if output is not None:
            output.stop()

    def _resume_only_after_our_stop(self) -> None:
        """Wrap the SIGTSTP/SIGCONT handlers LinuxDriver installed: resume only after a stop of ours.
        A hangup brings SIGCONT too, also after the app has ended; Textual's handler would then
        restart the app's mode on no loop and raise in whatever the main thread does (waiting for
        the team's lead to finish shutting it down)."""
        on_stop, on_continue = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
        if not (callable(on_stop) and callable(on_continue)):
            return  # not LinuxDriver's handlers: nothing of ours to guard

        def stopped(signum: int, frame: Any) -> None:
            self.resume_owed = True
            on_stop(signum, frame)  # leaves application mode and stops the process until SIGCONT

        def continued(signum: int, frame: Any) -> None:
            if self.resume_owed:
                self.resume_owed = False
                on_continue(signum, frame)

        signal.signal(signal.SIGTSTP, stopped)
        signal.signal(signal.SIGCONT, continued)
