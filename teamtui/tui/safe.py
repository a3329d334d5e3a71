"""Text from files is data: shown literally, never as markup, never as terminal escapes.

`inert` is the one shared function (teamtui.protocol.text); this module wraps it in a rich Text."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from teamtui.protocol.text import inert

__all__ = ["inert", "safe_text"]


def safe_text(value: object, style: str | Style = "", *, newlines: bool = False) -> Text:
    """A rich Text that shows `value` exactly: `[bold]` stays brackets, ESC becomes `\\x1b`,
    a newline `\\n` (unless `newlines`); a tab is a space, so columns stay put."""
    return Text(inert(value, newlines=newlines).replace("\t", " "), style=style)
