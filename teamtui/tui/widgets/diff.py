"""A teammate's edits to one file, drawn as a diff: each edit with its time and tool, each hunk
with its header, the code highlighted as its language (Rich's Syntax, by the file's name), added
and removed lines marked and tinted. Large diffs are paged: a page is at most PAGE_LINES lines,
and only the page shown is highlighted.

The file's name and every line are data: made inert (an escape sequence shows as `\\x1b`) before
anything draws them, and never read as markup.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rich.color import Color, ColorParseError
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from teamtui.protocol.edits import Edit, Hunk
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert, safe_text
from teamtui.tui.widgets.scrolling import follow_extent

# Lines drawn per page of a diff (each highlighted when its page is shown, not before).
PAGE_LINES = 300
_TINT = 0.18  # how much of the marker's colour tints an added or removed line's background


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the flattened diff: an edit's heading, a note, a hunk header, or code."""

    kind: str  # "edit" | "note" | "hunk" | " " | "+" | "-"
    text: str
    hunk: int = -1  # which hunk a code line belongs to (lines of one hunk are highlighted together)


def flatten(edits: list[Edit], dismissed: int = 0) -> list[Line]:
    """Every line the diff shows, in order; `dismissed`: edits held no more (said first)."""
    out: list[Line] = []
    if dismissed:
        out.append(Line("note", f"{dismissed} earlier edit{'s' if dismissed != 1 else ''} not kept (only counted)"))
    hunk_no = 0
    for e in edits:
        when = time.strftime("%H:%M:%S", time.localtime(e.at)) if e.at is not None else "--:--:--"
        counts = f"+{e.added if e.added is not None else '?'} -{e.removed if e.removed is not None else '?'}"
        out.append(Line("edit", f"{when} · {e.tool} · {counts}" + (f" · {e.note}" if e.note else "")))
        if e.dropped:
            out.append(Line("note", "its diff is no longer kept (the team's diffs are bounded): counted only"))
        for h in e.hunks:
            out.append(Line("hunk", h.header))
            out += [Line(line[:1] if line[:1] in "+- " else " ", line[1:], hunk_no) for line in h.lines]
            hunk_no += 1
        if e.cut:
            out.append(Line("note", f"… {e.cut} more line{'s' if e.cut != 1 else ''} of this edit not kept"))
    return out


def pages(lines: list[Line]) -> int:
    return max(1, -(-len(lines) // PAGE_LINES))


def _tint(color: str, background: str) -> Style:
    try:
        fg = Color.parse(color).get_truecolor()
        bg = Color.parse(background).get_truecolor()
    except (ColorParseError, AttributeError):
        return Style()
    mixed = tuple(round(b + (f - b) * _TINT) for f, b in zip(fg, bg, strict=True))
    return Style(bgcolor=Color.from_rgb(*mixed))


def _highlighted(code: list[str], lexer: str | None, dark: bool) -> list[Text]:
    """The code lines, highlighted in one pass (a string that spans lines stays a string; the
    hunks of a page are passed together: one lexer run per page, not one per hunk)."""
    if lexer is None or not code:
        return [Text(line) for line in code]
    syntax = Syntax("", lexer, theme="monokai" if dark else "default", background_color="default")
    block = syntax.highlight("\n".join(code))
    block.rstrip()
    parts = block.split("\n", allow_blank=True)
    return [parts[i] if i < len(parts) else Text(code[i]) for i in range(len(code))]


def lexer_for(path: str) -> str | None:
    """The language of a file, by its name (Pygments'); None: plain text."""
    name = Syntax.guess_lexer(path.rsplit("/", 1)[-1], "")
    return None if name in ("default", "text") else name


def render_page(lines: list[Line], page: int, path: str, palette: Palette, *, dark: bool = True) -> Text:
    """One page of the diff as a rich Text."""
    start = page * PAGE_LINES
    return render_lines(lines[start : start + PAGE_LINES], path, palette, dark=dark)


def render_lines(shown: list[Line], path: str, palette: Palette, *, dark: bool = True) -> Text:
    """Some lines of the diff (a page, or the lines an edit added to it) as a rich Text."""
    lexer = lexer_for(path)
    added = _tint(palette.theme_color("success"), palette.theme_color("background"))
    removed = _tint(palette.theme_color("error"), palette.theme_color("background"))
    # The page's code, highlighted together.
    indexes = [i for i, line in enumerate(shown) if line.hunk >= 0]
    texts = _highlighted([inert(shown[i].text).replace("\t", "    ") for i in indexes], lexer, dark)
    painted = dict(zip(indexes, texts, strict=True))
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, line in enumerate(shown):
        if line.kind == "edit":
            out.append("── ", style=palette.theme_color("secondary"))
            out.append_text(safe_text(line.text, f"bold {palette.theme_color('accent')}"))
        elif line.kind == "note":
            out.append_text(safe_text(line.text, f"italic {palette.theme_color('warning')}"))
        elif line.kind == "hunk":
            out.append(line.text, style=palette.theme_color("secondary"))
        else:
            body = painted.get(i) or safe_text(line.text)
            if line.kind == "+":
                out.append("+ ", style=f"bold {palette.theme_color('success')}")
                body.stylize(added)
            elif line.kind == "-":
                out.append("- ", style=f"bold {palette.theme_color('error')}")
                body.stylize(removed)
            else:
                out.append("  ")
            out.append_text(body)
        out.append("\n")
    out.rstrip()
    return out


class DiffLines(ScrollView):
    """The diff pane: each line rendered once into a Strip, only the lines on screen drawn, and
    lines added to the page rendered alone (`append`): a new edit costs its own lines, and the
    pane keeps its size (no layout of the screen around it)."""

    DEFAULT_CSS = """
    DiffLines { height: 1fr; overflow-x: auto; overflow-y: auto; }
    """
    # Sized by the layout (1fr): lines added move its scrollbars only (and what `append` redraws),
    # never the screen's layout nor the whole pane.
    virtual_size = Reactive(Size(0, 0), layout=False, repaint=False)

    def watch_virtual_size(self, old: Size, size: Size) -> None:
        follow_extent(self, old, size)

    def __init__(self, **kw: Any):
        super().__init__(**kw)
        self._strips: list[Strip] = []
        self._plain: list[str] = []
        self._cropped: dict[tuple[int, int, int], Strip] = {}  # (line, scroll x, width) -> as drawn

    @property
    def plain(self) -> str:
        """What the pane holds, as plain text (one line per diff line)."""
        return "\n".join(self._plain)

    def show(self, text: Text) -> None:
        """`text` in place of what was shown, from its top."""
        self._strips, self._plain, self._cropped = [], [], {}
        self._add(text)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def append(self, text: Text) -> None:
        """`text`'s lines after those shown: only the part of the pane they land on is drawn again."""
        first = len(self._strips)
        self._add(text)
        top = first - round(self.scroll_offset.y)
        height = self.scrollable_content_region.height
        if top < height:
            self.refresh(Region(0, max(0, top), self.size.width, height - max(0, top)))

    def _add(self, text: Text) -> None:
        console = self.app.console
        for line in text.split("\n", allow_blank=True) if text.plain else ():
            self._strips.append(Strip(list(line.render(console, end=""))))
            self._plain.append(line.plain)
        width = max((s.cell_length for s in self._strips), default=0)
        self.virtual_size = Size(width, len(self._strips))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        index = scroll_y + y
        if index >= len(self._strips):
            return Strip.blank(width, self.rich_style)
        key = (index, scroll_x, width)
        strip = self._cropped.get(key)
        if strip is None:
            if len(self._cropped) > 4096:
                self._cropped.clear()
            strip = self._cropped[key] = (
                self._strips[index]
                .crop_extend(scroll_x, scroll_x + width, self.rich_style)
                .apply_style(self.rich_style)
            )
        return strip

    def notify_style_update(self) -> None:
        self._cropped.clear()  # a new theme or focus border: drawn again in its style
        super().notify_style_update()


def hunk_text(h: Hunk) -> str:
    """A hunk as unified-diff text (for copying, and the stream's diff answer)."""
    return "\n".join([h.header, *h.lines])


__all__ = [
    "PAGE_LINES",
    "DiffLines",
    "Line",
    "flatten",
    "hunk_text",
    "lexer_for",
    "pages",
    "render_lines",
    "render_page",
]
