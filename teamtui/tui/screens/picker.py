"""Several teams were found: pick one."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from teamtui.tui.safe import safe_text


class TeamPicker(Screen[tuple[Path, str] | None]):
    BINDINGS = [Binding("escape,q", "cancel", "Quit", id="picker.quit")]

    def __init__(self, found: list[tuple[Path, str]]):
        super().__init__()
        self.found = found

    def compose(self) -> ComposeResult:
        options = []
        for i, (root, name) in enumerate(self.found):
            label = safe_text(name, "bold")
            label.append_text(safe_text(f"   {root}", "dim"))
            options.append(Option(label, id=str(i)))
        with Vertical(classes="dialog"):
            yield Static(Text(f"{len(self.found)} teams found: choose one", style="bold"), classes="dialog-title")
            yield OptionList(*options, id="team-options")
            yield Static(Text("enter open · esc quit", style="dim"), classes="dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.found[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)
