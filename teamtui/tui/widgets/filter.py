"""The task filter: one line above the task board, always there."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterInput(Input):
    """Showing and hiding the filter would resize the board, and a resized table renders every
    visible cell again (most of a key press): it stays, and only its placeholder changes."""

    BINDINGS = [Binding("escape", "done", "Done", show=False)]
    IDLE = "/ filter tasks"
    EDITING = "filter tasks: id, subject, owner, state · enter keeps it, escape clears it"

    @dataclass
    class Closed(Message):
        """The user is done filtering; `clear` drops the query (escape), else it stays (enter)."""

        clear: bool

    def on_focus(self) -> None:
        self.placeholder = self.EDITING

    def on_blur(self) -> None:
        self.placeholder = self.IDLE

    def action_done(self) -> None:
        self.post_message(self.Closed(clear=True))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Closed(clear=False))
