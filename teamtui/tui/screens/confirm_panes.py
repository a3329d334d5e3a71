"""Close the tmux panes of Claude Code teammates still there? At a shutdown's deadline, or at once
when the lead has ended and nobody can approve a shutdown."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.tui.keys import INTERRUPT
from teamtui.tui.safe import safe_text


class ClosePanesConfirm(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Close panes", id="panes.close"),
        Binding("n,escape", "answer(False)", "Keep", id="panes.keep"),
        INTERRUPT,
    ]

    def __init__(self, panes: dict[str, str], *, title: str = "Deadline passed: close their panes?", why: str = ""):
        super().__init__()
        self.panes = panes  # teammate -> its pane, as config.json names it
        self.title_text, self.why = title, why

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="close-panes"):
            yield Static(safe_text(self.title_text, "bold"), classes="dialog-title")
            body = safe_text(self.why + "\n") if self.why else Text()
            body.append("Still there: ", style="dim")
            body.append_text(safe_text(", ".join(f"{n} ({p})" for n, p in self.panes.items())))
            body.append("\nClosing a pane ends that teammate's process (tmux kill-pane).", style="dim")
            yield Static(body, classes="dialog-sub")
            yield Static(Text("y close the panes · n keep them", style="dim"), classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
