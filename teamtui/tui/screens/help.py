"""Every action with its current key (after the user's keymap), in a dialog that scrolls."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.tui.keys import INTERRUPT, REMAP_EXAMPLE, key_label
from teamtui.tui.palette import Palette


class Pairs:
    """A title and "key name" pairs, as many to a line as fit: a pair is never split over two lines."""

    def __init__(self, title: Text, pairs: list[Text], sep: Text):
        self.title, self.pairs, self.sep = title, pairs, sep

    def __str__(self) -> str:
        return " ".join([self.title.plain, self.sep.plain.join(p.plain for p in self.pairs)])

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = self.title.copy()
        first = True
        for pair in self.pairs:
            joint = Text(" ") if first else self.sep
            if not first and line.cell_len + joint.cell_len + pair.cell_len > width:
                yield line
                line, joint = Text(), Text()
            line.append_text(joint)
            line.append_text(pair)
            first = False
        yield line


class HelpScreen(ModalScreen[None]):
    # A grid, not padded text: a long description wraps in its own column, the other rows keep one line.
    DEFAULT_CSS = """
    HelpScreen #help { height: auto; scrollbar-gutter: stable; padding: 1 1 1 2; }
    HelpScreen #help-keys { layout: grid; grid-size: 3; grid-columns: auto 1fr auto; grid-rows: auto;
                            grid-gutter: 0 2; height: auto; }
    HelpScreen .help-key { text-align: right; }
    HelpScreen #help-unlisted { margin-bottom: 1; }
    HelpScreen #help-notes { margin-top: 1; }
    """
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="modal.close"), INTERRUPT]

    def __init__(
        self,
        keys: list[tuple[str, str, str]],
        config_path: object,
        palette: Palette,
        unlisted: list[tuple[str, str]] | None = None,
    ):
        """`keys`: (key, description, binding id) of each action; `unlisted`: (key, short name) of
        those the key bar leaves out, said first so that they are found."""
        super().__init__()
        self.palette = palette
        self.keys = keys
        self.unlisted = unlisted or []
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        dim = self.palette.theme_color("secondary")
        accent = f"bold {self.palette.theme_color('accent')}"
        with VerticalScroll(id="help", classes="dialog wide") as scroll:
            scroll.border_title = "Keys"
            scroll.border_subtitle = "↑ ↓ PgUp PgDn Home End scroll · esc closes"
            if self.unlisted:
                pairs = [Text.assemble((key_label(key), accent), f" {name}") for key, name in self.unlisted]
                yield Static(
                    Pairs(Text("Not in the key bar:", style=dim), pairs, Text(" · ", style=dim)), id="help-unlisted"
                )
            with Container(id="help-keys"):
                # The third column is the name [keymap] knows the action by.
                for head, where in (("Key", "help-key"), ("Action", "help-action"), ("In [keymap]", "help-id")):
                    yield Static(Text(head, style=f"bold {dim}"), classes=f"help-head {where}")
                rows = [
                    *self.keys,
                    (self.app.COMMAND_PALETTE_BINDING, "Command palette: every action by name, themes", ""),
                ]
                for key, desc, bid in rows:
                    yield Static(Text(key_label(key), style=accent), classes="help-key")
                    yield Static(Text(desc), classes="help-action")
                    yield Static(Text(bid, style=dim), classes="help-id")
            action, key = REMAP_EXAMPLE
            notes = Text("Remap any key in ", style=dim)
            notes.append(str(self.config_path), style=dim)
            notes.append(f' under [keymap], e.g. {action} = "{key}".', style=dim)
            yield Static(notes, id="help-notes")

    def on_mount(self) -> None:
        self.query_one("#help").focus()  # arrows, PageUp / PageDown, Home / End scroll it

    def action_close(self) -> None:
        self.dismiss(None)
