"""Text from files is data: shown literally, never as markup, never as terminal escapes."""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

# C0/C1 controls (but tab), DEL, and bidi overrides/isolates/marks that reorder what a reader sees.
_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _code(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def inert(value: object, *, newlines: bool = False) -> str:
    """`value` as a string whose control characters are visible codes such as `\\x1b`."""
    s = str(value)
    if newlines:
        return "\n".join(_UNSAFE.sub(_code, part) for part in s.split("\n"))
    return _UNSAFE.sub(_code, s.replace("\t", " "))


def safe_text(value: object, style: str | Style = "", *, newlines: bool = False) -> Text:
    """A rich Text that shows `value` exactly: `[bold]` stays brackets, ESC becomes `\\x1b`."""
    return Text(inert(value, newlines=newlines), style=style)
