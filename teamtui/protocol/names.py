"""Names that become part of a path (teams, teammates) must be safe before any file is touched."""

from __future__ import annotations

import re

from teamtui.protocol.errors import UnsafeNameError

MAX_NAME_LENGTH = 64
# A letter or digit first rules out ".", "..", hidden files and option-looking names.
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(name: object, what: str = "name") -> str:
    """Return `name` if it is safe as a single path part, else raise UnsafeNameError."""
    if not isinstance(name, str):
        raise UnsafeNameError(f"{what} must be text, got {type(name).__name__}")
    if not name:
        raise UnsafeNameError(f"{what} is empty")
    if len(name) > MAX_NAME_LENGTH:
        raise UnsafeNameError(f"{what} {name[:20]!r}... is longer than {MAX_NAME_LENGTH} characters")
    if not _SAFE_NAME.fullmatch(name):
        raise UnsafeNameError(
            f"{what} {name!r} is not allowed: use letters, digits, '.', '_' and '-', starting with a letter or digit"
        )
    return name


def is_safe_name(name: object) -> bool:
    try:
        check_name(name)
    except UnsafeNameError:
        return False
    return True


def claude_sanitize(name: str) -> str:
    """Claude Code's path-part rule: every character outside [A-Za-z0-9_-] becomes '-'."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)
