"""A Textual app on HangupSafeDriver that is sent SIGTSTP while its output queue's lock is held,
as it is while a frame is being queued (tests/tui/test_driver.py runs it in a pty): a stop handled
right there, between two bytecodes, waits on that lock for good. Prints "resumed" once it is
running again after the stop, then exits."""

from __future__ import annotations

import os
import signal
import sys

from textual.app import App
from textual.driver import Driver
from textual.widgets import Static

from teamtui.tui.driver import HangupSafeDriver


class StopInAWrite(App[None]):
    def __init__(self) -> None:
        super().__init__(driver_class=HangupSafeDriver)
        self.driver: HangupSafeDriver | None = None

    def driver_started(self, driver: Driver) -> None:
        assert isinstance(driver, HangupSafeDriver)
        self.driver = driver

    def compose(self):
        yield Static("drawing")

    def on_mount(self) -> None:
        self.set_timer(0.3, self.stop_mid_write)

    def stop_mid_write(self) -> None:
        assert self.driver is not None and self.driver.output is not None
        with self.driver.output.frames.mutex:  # as `write` holds it while a frame is queued
            os.kill(os.getpid(), signal.SIGTSTP)
            sum(range(100_000))  # bytecodes, where a `signal.signal` handler would run
        self.set_timer(0.5, self.resumed)

    def resumed(self) -> None:
        self.exit()


if __name__ == "__main__":
    StopInAWrite().run()
    print("resumed", file=sys.__stdout__, flush=True)
