"""A request that waits for a person, in full: a permission request's tool input, a plan's text."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.protocol.claude.transcripts import NeedsYou
from teamtui.tui.keys import INTERRUPT
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text


class RequestDetail(ModalScreen[bool]):
    """Dismissed with True when the person asks to go to the pane that can answer it."""

    BINDINGS = [
        Binding("escape,enter", "close", "Close", id="request.close"),
        Binding("p", "pane", "Go to the pane", id="request.pane"),
        INTERRUPT,
    ]

    def __init__(self, item: NeedsYou, palette: Palette, where: str, elsewhere: str = ""):
        super().__init__()
        self.item = item
        self.palette = palette
        self.where = where  # whose pane answers it, in words
        self.elsewhere = elsewhere  # the machine whose panes answer it (a remote team): no pane to go to here

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog wide"):
            yield Static(self.render_request())
            hint = (
                f"it is answered in {self.where} on {self.elsewhere} · esc close"
                if self.elsewhere
                else f"p go to {self.where} · esc close (it is answered there, not here)"
            )
            yield Static(Text(hint, style="dim"), classes="dialog-hint")

    def render_request(self) -> Text:
        out = safe_text(self.item.text, "bold")
        out.append("\n\n")
        # The full text is data from a file: shown as plain text, never as markup.
        out.append_text(
            safe_text(
                self.item.detail or "(the request carries no more than this line)",
                self.palette.theme_color("foreground"),
            )
        )
        return out

    def action_close(self) -> None:
        self.dismiss(False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "pane" and self.elsewhere)

    def action_pane(self) -> None:
        self.dismiss(True)
