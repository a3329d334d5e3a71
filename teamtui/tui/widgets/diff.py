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

from rich.color import Color, ColorParseError
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from teamtui.protocol.edits import Edit, Hunk
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert, safe_text

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
    """The code lines, highlighted as one block (a string that spans lines stays a string)."""
    if lexer is None:
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
    shown = lines[start : start + PAGE_LINES]
    lexer = lexer_for(path)
    added = _tint(palette.theme_color("success"), palette.theme_color("background"))
    removed = _tint(palette.theme_color("error"), palette.theme_color("background"))
    # Each hunk's code on this page, highlighted together.
    code: dict[int, list[int]] = {}
    for i, line in enumerate(shown):
        if line.hunk >= 0:
            code.setdefault(line.hunk, []).append(i)
    painted: dict[int, Text] = {}
    for indexes in code.values():
        texts = _highlighted([inert(shown[i].text).replace("\t", "    ") for i in indexes], lexer, dark)
        painted.update(zip(indexes, texts, strict=True))
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


def hunk_text(h: Hunk) -> str:
    """A hunk as unified-diff text (for copying, and the stream's diff answer)."""
    return "\n".join([h.header, *h.lines])


__all__ = ["PAGE_LINES", "Line", "flatten", "hunk_text", "lexer_for", "pages", "render_page"]
