"""Pane titles and border colors: teammate data made safe before it reaches tmux."""

from __future__ import annotations

import re

from teamtui.protocol.text import inert

# Claude Code's teammate colors, and tmux's own names, as tmux colors.
_COLORS = {
    "red": "red",
    "blue": "blue",
    "green": "green",
    "yellow": "yellow",
    "cyan": "cyan",
    "magenta": "magenta",
    "white": "white",
    "purple": "colour135",
    "orange": "colour208",
    "pink": "colour205",
    "gray": "colour244",
    "grey": "colour244",
}
_HEX = re.compile(r"#[0-9a-fA-F]{6}")
_COLOUR_N = re.compile(r"colou?r([0-9]{1,3})")
MAX_TITLE = 40
DEFAULT_COLOR = "default"


def tmux_color(color: str) -> str:
    """A color tmux understands, or "default": anything else could inject style or format syntax."""
    c = (color or "").strip().lower()
    if c in _COLORS:
        return _COLORS[c]
    if _HEX.fullmatch(c):
        return c
    m = _COLOUR_N.fullmatch(c)
    if m and int(m.group(1)) < 256:
        return f"colour{int(m.group(1))}"
    return DEFAULT_COLOR


def pane_title(name: str) -> str:
    """The teammate's name as a pane title: made inert like every other text from a file
    (an escape shows as `\\x1b`), bounded, and '#' doubled: select-pane -T expands its
    argument as a format (`#(cmd)` would run, `#{...}` expand) and the border draws `#[...]`
    as style; tmux turns `##` back into one literal '#'."""
    clean = inert(name).replace("\t", " ")[:MAX_TITLE] or "?"
    return clean.replace("#", "##")
