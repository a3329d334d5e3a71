"""Text for a notification: one line, nothing a terminal or tmux acts on, bounded."""

from __future__ import annotations

import re

from teamtui.protocol.text import inert

MAX_NAME = 64  # a team or host name
MAX_TEXT = 240  # an event's text
MAX_MESSAGE = 320  # a whole notification line (title and body)
ELLIPSIS = "…"

# Line breaks and tabs become one space: a notification is one line.
_BREAKS = re.compile(r"[\t\n\r\v\f\x85\u2028\u2029]+")
_SPACES = re.compile(r" {2,}")


def plain(value: object, limit: int) -> str:
    """`value` as one inert line of at most `limit` characters: controls and escapes shown as
    visible codes (ESC as `\\x1b`), line breaks as spaces, an ellipsis where it was cut."""
    whole = str(value)
    # Cut first: the work stays bounded whatever size the input has (inert only lengthens).
    text = _SPACES.sub(" ", inert(_BREAKS.sub(" ", whole[:limit]))).strip()
    if len(whole) > limit or len(text) > limit:
        text = text[: limit - 1].rstrip() + ELLIPSIS
    return text


def bounded(text: str, limit: int = MAX_MESSAGE) -> str:
    """Already plain text cut to `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS
