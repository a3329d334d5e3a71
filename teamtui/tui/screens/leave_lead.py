"""Leaving the dashboard of a team this process leads (`teamtui run`): stop the team, keep it running
headless (the same process leads on without the dashboard), or stay."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.tui.keys import INTERRUPT
from teamtui.tui.safe import safe_text

STOP = "stop"
KEEP = "keep"  # what the app returns when the lead is to go on headless


@dataclass(frozen=True)
class Leading:
    """The team on screen is led by this very process (`teamtui run`, `teamtui demo`)."""

    team: str
    running: Callable[[], bool]  # the lead has not finished: leaving is a choice about its team
    pid: int = 0
    simulated: bool = False  # the demo: its team is make-believe, so q stops it without asking

    def key_words(self) -> dict[str, dict[str, str]]:
        """What q and ctrl+c do here, where it is more than quitting (binding id -> {how: words})."""
        if self.simulated:  # narrow: the bar of an 80-column terminal has room for 3 letters
            said = {"bar": "Stop demo", "narrow": "Stop", "help": "Stop the demo team and quit"}
        else:
            said = {"help": "Quit: asks whether to stop the team this process leads or keep it running headless"}
        return {"quit": said, "interrupt": said}


class LeaveLead(ModalScreen[str | None]):
    BINDINGS = [
        Binding("s", f"choose('{STOP}')", "Stop the team", id="leave.stop"),
        Binding("k", f"choose('{KEEP}')", "Keep running headless", id="leave.keep"),
        Binding("escape,c", "choose('')", "Cancel", id="leave.cancel"),
        INTERRUPT,  # asked already: the app waits for the answer
    ]

    def __init__(self, leading: Leading):
        super().__init__()
        self.leading = leading

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="leave-lead"):
            title = Text("Leave the dashboard of ", style="bold")
            title.append_text(safe_text(self.leading.team, "bold"))
            title.append("?", style="bold")
            yield Static(title, classes="dialog-title")
            pid = f" (pid {self.leading.pid})" if self.leading.pid else ""
            body = Text(f"This teamtui process{pid} leads the team.\n\n", style="dim")
            for key, said in (
                ("s", "stop the team: a graceful shutdown, as S does\n"),
                ("k", "keep it running headless: the dashboard closes and this\n"),
                ("", "process leads the team on, printing its progress\n"),
                ("esc", "cancel: back to the dashboard"),
            ):
                body.append(f"{key:<5}" if key else " " * 5, style="bold")
                body.append(said)
            yield Static(body, classes="dialog-sub")
            yield Static(Text("s stop · k keep running headless · esc cancel", style="dim"), classes="dialog-hint")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)
