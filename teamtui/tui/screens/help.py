"""Every action with its current key (after the user's keymap)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.tui.keys import INTERRUPT, REMAP_EXAMPLE, key_label
from teamtui.tui.palette import Palette


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="modal.close"), INTERRUPT]

    def __init__(self, keys: list[tuple[str, str, str]], config_path: object, palette: Palette):
        super().__init__()
        self.palette = palette
        self.keys = keys  # (key, description, binding id) of each action
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        palette = self.palette
        dim = palette.theme_color("secondary")
        rows = [(key_label(key), desc, bid) for key, desc, bid in self.keys]
        key_w = max([len("Key"), *(len(k) for k, _d, _b in rows)])
        desc_w = max([len("Action"), *(len(d) for _k, d, _b in rows)])
        t = Text("Keys\n\n", style="bold")
        # The third column is the name [keymap] knows the action by.
        t.append(f"  {'Key':>{key_w}}  {'Action':<{desc_w}}  In [keymap]\n", style=f"bold {dim}")
        for key, desc, bid in rows:
            t.append(f"  {key:>{key_w}}  ", style=f"bold {palette.theme_color('accent')}")
            t.append(f"{desc:<{desc_w}}")
            t.append(f"  {bid}\n", style=dim)
        action, key = REMAP_EXAMPLE
        t.append("\nRemap any key in ", style=dim)
        t.append(str(self.config_path), style=dim)
        t.append(f' under [keymap], e.g. {action} = "{key}".\n', style=dim)
        t.append("ctrl+p opens the command palette (actions and themes).", style=dim)
        with Vertical(classes="dialog wide"):
            yield Static(t)

    def action_close(self) -> None:
        self.dismiss(None)
