"""Confirm a graceful shutdown: who, why (reason) and how long they get (deadline)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from teamtui.protocol.shutdown import DEFAULT_DEADLINE_SECONDS, DEFAULT_REASON
from teamtui.tui.safe import safe_text


@dataclass
class ShutdownParams:
    targets: list[str]
    reason: str
    deadline_seconds: float


class ShutdownConfirm(ModalScreen[ShutdownParams | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="modal.cancel")]

    def __init__(
        self,
        title: str,
        targets: list[str],
        deadline: float = DEFAULT_DEADLINE_SECONDS,
        *,
        cursor_blink: bool = True,
        via: str = "",
    ):
        super().__init__()
        self.via = via  # the lead asked to send the requests (Claude Code), else teamtui sends them
        self.cursor_blink = cursor_blink
        self.title_str = title
        self.targets = targets
        self.deadline = deadline

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_str, style="bold"), classes="dialog-title")
            who = Text("shutdown_request to ", style="dim")
            if self.via:
                who = Text("teamtui asks ", style="dim")
                who.append_text(safe_text(self.via))
                who.append(" to send a shutdown_request to ", style="dim")
            who.append_text(safe_text(", ".join(self.targets)))
            yield Static(who, classes="dialog-sub")
            with Horizontal(classes="field"):
                yield Label("Reason", classes="field-label")
                yield Input(DEFAULT_REASON, id="reason")
            with Horizontal(classes="field"):
                yield Label("Deadline (s)", classes="field-label")
                yield Input(f"{self.deadline:g}", id="deadline", type="number")
            yield Static(Text("enter confirm · tab next field · esc cancel", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        for inp in self.query(Input):
            inp.cursor_blink = self.cursor_blink
        self.query_one("#reason", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        raw = self.query_one("#deadline", Input).value.strip()
        try:
            deadline = float(raw)
        except ValueError:
            deadline = -1.0
        if not deadline > 0:
            self.notify(f"Deadline must be a positive number of seconds, not {raw!r}.", severity="error")
            return
        reason = self.query_one("#reason", Input).value.strip() or DEFAULT_REASON
        self.dismiss(ShutdownParams(self.targets, reason, deadline))

    def action_cancel(self) -> None:
        self.dismiss(None)
