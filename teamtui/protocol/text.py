"""Text that came from a file, made inert for a terminal: the one function the CLI, `follow`,
tmux pane titles and the dashboard all use (the dashboard wraps it in a rich Text)."""

from __future__ import annotations

import re

# What a terminal (or a reader) could act on: C0 but tab, DEL, C1, the bidi marks, overrides and
# isolates, U+061C, the line and paragraph separators, and lone surrogates (from JSON "\ud800"
# escapes; they cannot even be encoded to UTF-8). A newline is in the set too, so a field can never
# forge an output line; `inert(..., newlines=True)` keeps it for multi-line views.
_UNSAFE = r"\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
UNSAFE_TERMINAL = re.compile(f"[\\x0a{_UNSAFE}]")
# The same, a newline aside (kept in a multi-line text: a message, a description).
UNSAFE_BUT_NEWLINE = re.compile(f"[{_UNSAFE}]")


def _code(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c == 0x0A:
        return "\\n"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def inert(value: object, *, newlines: bool = False) -> str:
    """`value` as a string with every character a terminal acts on shown as a visible code:
    ESC as `\\x1b`, U+202E as `\\u202e`, a lone surrogate as `\\ud800`, a newline as `\\n`
    (kept as a newline when `newlines` is true). Tabs stay. Markup of any kind (Rich's `[bold]`,
    tmux's `#[fg=red]`) is left as it is: the caller renders it literally."""
    s = str(value)
    if newlines:
        return "\n".join(UNSAFE_TERMINAL.sub(_code, part) for part in s.split("\n"))
    return UNSAFE_TERMINAL.sub(_code, s)


def scrubbed(value: str, *, newlines: bool = False) -> str:
    """`value` with every character `inert` would escape replaced by U+FFFD: for text passed on
    rather than shown (the stream to another machine), so the same set is dropped everywhere."""
    return (UNSAFE_BUT_NEWLINE if newlines else UNSAFE_TERMINAL).sub("\ufffd", value)
