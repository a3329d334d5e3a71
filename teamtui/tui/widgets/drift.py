"""One quiet line under the header when the transcripts hold what teamtui does not know (format
drift: a Claude Code newer than those tested): `Claude Code 2.1.340: 3 unknown entry kinds —
teamtui tested up to 2.1.331 · teamtui doctor lists them`. Hidden otherwise."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.painted import Painted

HINT = " · teamtui doctor lists them"


class DriftLine(Static, Painted):
    DEFAULT_CSS = """
    DriftLine {
        display: none;
        height: 1;
        padding: 0 1;
        background: $surface;
    }
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self.text = ""  # what it says ('' when hidden), for tests

    def watch_palette(self) -> None:
        said, self.text = self.text, ""
        if said:  # drawn again in the new theme's colours
            self.show(said)

    def show(self, summary: str) -> None:
        if summary == self.text:
            return  # setting it, even unchanged, would relayout the screen
        self.text = summary
        self.display = bool(summary)
        line = Text("⚠ ", style=self.palette.theme_color("warning"))
        line.append_text(safe_text(summary, f"dim {self.palette.theme_color('warning')}"))
        line.append(HINT, style=f"dim {self.palette.theme_color('secondary')}")
        line.no_wrap = True
        line.overflow = "ellipsis"
        self.update(line if summary else "")
