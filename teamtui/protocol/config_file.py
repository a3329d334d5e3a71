"""config.toml as a file: where it is, reading its TOML, writing back the theme, and the one setting a
hot command needs (the sender), all without pydantic.

The settings themselves, every key typed and documented, are the model in `settings.py`; loading it
imports pydantic (~50 ms), which `teamtui send` on a Claude Code team must not pay for one name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

DEFAULT_THEME = "teamtui-dark"
DEFAULT_SENDER = "teamtui"
# Names Claude Code reserves for itself: a sender setting naming one is refused.
RESERVED_SENDERS = ("team-lead", "user", "system")


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "teamtui" / "config.toml"


# How long `teamtui hook` offers a permission request to the room (0: never); see the README.
DEFAULT_ANSWER_WAIT = 300.0
MAX_ANSWER_WAIT = 3600.0


def read_config(path: Path) -> tuple[dict | None, str | None]:
    """(the file's tables, None), (None, None) when there is no file, or (None, why it does not read)."""
    import tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), None
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return None, f"{path}: {exc}; using defaults"


def check_sender(value: str) -> str:
    """The `sender` rule (the model's validator and `configured_sender` both use it)."""
    from teamtui.protocol.names import is_safe_name

    if not is_safe_name(value) or value in RESERVED_SENDERS:
        raise ValueError("must be a name of your own (letters, digits, '.', '_', '-'; not team-lead, user or system)")
    return value


def configured_sender(path: Path | None = None) -> tuple[str, str | None]:
    """(the name messages from teamtui carry, the problem with the setting or None): config.toml's
    `sender` read alone, for a command that needs nothing else of the file."""
    path = path or config_path()
    data, problem = read_config(path)
    value = (data or {}).get("sender", DEFAULT_SENDER)
    if problem is not None:
        return DEFAULT_SENDER, problem
    try:
        return check_sender(value) if isinstance(value, str) else check_sender(""), None
    except ValueError as exc:
        return DEFAULT_SENDER, f"{path}: sender {exc}, got {value!r}; the default ({DEFAULT_SENDER}) is used"


_THEME_LINE = re.compile(r"^theme\s*=.*$", re.MULTILINE)


def save_theme(theme: str, path: Path | None = None) -> Path:
    """Set `theme = "..."` in the file, keeping every other line as the user wrote it."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    line = f'theme = "{theme}"'
    head, sep, rest = text.partition("\n[")
    if _THEME_LINE.search(head):
        head = _THEME_LINE.sub(line, head, count=1)
    else:
        head = line + ("\n" + head if head else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    from teamtui.protocol.fsio import write_atomic  # here: only `t` (the theme) writes the config

    write_atomic(path, head + sep + rest if sep else head.rstrip("\n") + "\n")  # whole or not at all
    return path
