"""Cells that fit their column by what they say, not only by cutting their end: a name cut in its
middle (two `session-…` teams stay tellable apart), and a cell with a shorter form for a narrow column."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from teamtui.tui.widgets.table import cut


def middle_cut(text: Text, width: int, head_share: float = 0.5) -> Text:
    """`text` in `width` cells: its start (`head_share` of them), "…", and its end (where names like
    `session-1a2b3c4d` differ)."""
    if text.cell_len <= width:
        return text.copy()
    if width < 4:
        return cut(text.copy())
    plain = text.plain
    head_room = int((width - 1) * head_share)
    tail_room = width - 1 - head_room
    head = 0
    while head < len(plain) and cell_len(plain[: head + 1]) <= head_room:
        head += 1
    tail = len(plain)
    while tail > head and cell_len(plain[tail - 1 :]) <= tail_room:
        tail -= 1
    shown = text[:head]
    shown.append("…")  # in the name's own style (a slice keeps it)
    shown.append_text(text[tail:])
    return shown


class MiddleCut:
    """A name, and what follows it (a problem), in its column: what follows is cut first, then the
    name in its middle, its start and end kept (`head_share`: how much of it is the start's)."""

    def __init__(self, name: Text, rest: Text | None = None, head_share: float = 0.5):
        self.name, self.rest, self.head_share = name, rest or Text(), head_share

    @property
    def plain(self) -> str:
        return self.name.plain + self.rest.plain

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MiddleCut) and (other.name, other.rest, other.name.style, other.head_share) == (
            self.name,
            self.rest,
            self.name.style,
            self.head_share,
        )

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.name.cell_len + self.rest.cell_len)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if self.name.cell_len > width:
            yield middle_cut(self.name, width, self.head_share)
            return
        whole = self.name + self.rest
        whole.style = self.name.style
        yield cut(whole)  # the name whole; what follows it cut with an ellipsis


class Fits:
    """The first of `forms` (the fullest first) that fits the column; the last one cut when none does."""

    def __init__(self, *forms: Text):
        self.forms = forms

    @property
    def plain(self) -> str:
        return self.forms[0].plain

    @property
    def style(self) -> str | Style:
        return self.forms[0].style  # the fullest form's, as a Text's

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fits) and [(f, f.style) for f in other.forms] == [(f, f.style) for f in self.forms]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(f.cell_len for f in self.forms), max(f.cell_len for f in self.forms))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        form = next((f for f in self.forms if f.cell_len <= options.max_width), self.forms[-1])
        yield cut(form.copy())
