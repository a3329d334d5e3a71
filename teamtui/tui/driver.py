"""Textual's Linux driver, made to survive its terminal going away.

When the terminal closes (`tmux kill-server`, a closed window, `kill-pane`), the next write to
it fails with EIO. Textual's output thread dies of that, and from then on the app blocks for
good once 30 frames are queued: it never exits, its input thread spins on the dead terminal
(~70 % of a core), and its panes are never closed. SIGHUP usually arrives first, but not
always (a write can fail before the handler runs, and a process outside the terminal's
foreground group gets no SIGHUP at all). Here the driver's frames go through an output thread
of its own whose failed writes are dropped and raise SIGHUP once, so the app ends the way a
hangup ends it: panes closed, team shut down.

All of it goes through the driver's public API (`write`, `start_application_mode`, `close`),
the signal module and asyncio's signal handlers: no private attribute of Textual's (tests/tui/test_textual_public.py scans this
file too). The app learns of its driver from here (`DriverUser.driver_started`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from queue import Queue
from typing import IO, Any, Protocol, runtime_checkable

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.app import App

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

    def __init__(self, app: App[Any], **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        # The terminal LinuxDriver draws on; without any stderr there is nowhere to draw.
        self.terminal = TerminalOutput(sys.__stderr__, hang_up) if sys.__stderr__ is not None else None
        self.output: OutputThread | None = None
        self.resume_owed = False
        self._stop_and_resume_in_the_loop()
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

    def _stop_and_resume_in_the_loop(self) -> None:
        """Move the SIGTSTP/SIGCONT handlers LinuxDriver installed into the app's loop
        (`add_signal_handler`), and resume only after a stop of ours.

        A handler installed with `signal.signal` runs between two bytecodes of the main thread, perhaps
        in the middle of a write that holds the output queue's lock; leaving the terminal from there
        writes too, and waited on that lock for good (a frozen app, its input threads spinning). The
        loop runs them where nothing is held. And a hangup brings SIGCONT too: Textual's handler would
        restart the app's mode though nothing stopped it. Once the loop closes, both signals are
        back to the system's default, as for any program that has left the terminal."""
        on_stop, on_continue = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
        if not (callable(on_stop) and callable(on_continue)):
            return  # not LinuxDriver's handlers: nothing of ours to move
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # made outside an app's loop: nothing runs the app to stop

        def stopped() -> None:
            self.resume_owed = True
            on_stop(signal.SIGTSTP, None)  # leaves application mode and stops the process until SIGCONT

        def continued() -> None:
            if self.resume_owed:
                self.resume_owed = False
                on_continue(signal.SIGCONT, None)

        loop.add_signal_handler(signal.SIGTSTP, stopped)
        loop.add_signal_handler(signal.SIGCONT, continued)
