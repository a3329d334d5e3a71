"""Write a message to one teammate, or a broadcast to all: Enter sends, Esc cancels."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from teamtui.tui.safe import safe_text


class MessageModal(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="modal.cancel")]

    def __init__(self, title: Text, recipients: list[str], sender: str, *, cursor_blink: bool = True):
        super().__init__()
        self.cursor_blink = cursor_blink
        self.title_text = title
        self.recipients = recipients
        self.sender = sender

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            # The title names a single recipient; who it is sent as is always said.
            sub = Text()
            if len(self.recipients) != 1:
                sub.append("to ", style="dim")
                sub.append_text(safe_text(", ".join(self.recipients) or "nobody"))
                sub.append(" · ", style="dim")
            sub.append("from ", style="dim")
            sub.append_text(safe_text(self.sender))
            yield Static(sub, classes="dialog-sub")
            yield Input(placeholder="Type a message", id="message-input", select_on_focus=False)
            yield Static(Text("enter send · esc cancel", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        inp = self.query_one(Input)
        inp.cursor_blink = self.cursor_blink
        inp.focus()

    def on_key(self, event: events.Key) -> None:
        # Typed right after "m" or "b" (fast typing, a paste), keys reach the dialog before its input
        # has focus: they belong in the message, not to the keys of the dashboard underneath.
        if event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            self.query_one(Input).insert_text_at_cursor(event.character)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.notify("Nothing to send: type a message or press Esc.", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
