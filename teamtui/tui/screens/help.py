"""Every action with its current key (after the user's keymap)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="modal.close")]

    def __init__(self, keys: list[tuple[str, str, str]], config_path: object):
        super().__init__()
        self.keys = keys  # (key, description, binding id) of each action
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        app = self.app
        t = Text("Keys\n\n", style="bold")
        for key, desc, bid in self.keys:
            t.append(f"  {key:>8}  ", style=f"bold {app.role('accent')}")
            t.append(f"{desc}")
            t.append(f"   {bid}\n", style=app.role("secondary"))
        t.append("\nRemap any key in ", style=app.role("secondary"))
        t.append(str(self.config_path), style=app.role("secondary"))
        t.append(' under [keymap], e.g. message = "ctrl+m".\n', style=app.role("secondary"))
        t.append("ctrl+p opens the command palette (actions and themes).", style=app.role("secondary"))
        with Vertical(classes="dialog wide"):
            yield Static(t)

    def action_close(self) -> None:
        self.dismiss(None)
