"""At a Claude Code shutdown's deadline: close the tmux panes of the teammates still there?"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.tui.safe import safe_text


class ClosePanesConfirm(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Close panes", id="panes.close"),
        Binding("n,escape", "answer(False)", "Keep", id="panes.keep"),
    ]

    def __init__(self, panes: dict[str, str]):
        super().__init__()
        self.panes = panes  # teammate -> its pane, as config.json names it

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="close-panes"):
            yield Static(Text("Deadline passed: close their panes?", style="bold"), classes="dialog-title")
            body = Text("Still there: ", style="dim")
            body.append_text(safe_text(", ".join(f"{n} ({p})" for n, p in self.panes.items())))
            body.append("\nClosing a pane ends that teammate's process (tmux kill-pane).", style="dim")
            yield Static(body, classes="dialog-sub")
            yield Static(Text("y close the panes · n keep them", style="dim"), classes="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
