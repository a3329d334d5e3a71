"""Every action with its current key (after the user's keymap)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.tui.palette import Palette


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="modal.close")]

    def __init__(self, keys: list[tuple[str, str, str]], config_path: object, palette: Palette):
        super().__init__()
        self.palette = palette
        self.keys = keys  # (key, description, binding id) of each action
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        palette = self.palette
        t = Text("Keys\n\n", style="bold")
        for key, desc, bid in self.keys:
            t.append(f"  {key:>8}  ", style=f"bold {palette.theme_color('accent')}")
            t.append(f"{desc}")
            t.append(f"   {bid}\n", style=palette.theme_color("secondary"))
        t.append("\nRemap any key in ", style=palette.theme_color("secondary"))
        t.append(str(self.config_path), style=palette.theme_color("secondary"))
        t.append(' under [keymap], e.g. message = "ctrl+m".\n', style=palette.theme_color("secondary"))
        t.append("ctrl+p opens the command palette (actions and themes).", style=palette.theme_color("secondary"))
        with Vertical(classes="dialog wide"):
            yield Static(t)

    def action_close(self) -> None:
        self.dismiss(None)
