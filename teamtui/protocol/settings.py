"""The user's settings in $XDG_CONFIG_HOME/teamtui/config.toml; teamtui writes back only the theme."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_THEME = "teamtui-dark"
DEFAULT_SENDER = "teamtui"
# Names Claude Code reserves for itself: a sender setting naming one is ignored.
_RESERVED_SENDERS = ("team-lead", "user", "system")


@dataclass
class Settings:
    theme: str = DEFAULT_THEME
    keymap: dict[str, str] = field(default_factory=dict)
    log_lines: int = 1000
    health_timeout: float = 60.0
    teammate_mode: str = "auto"
    # The name messages teamtui sends carry (never a Claude Code team's lead, `user` or `system`).
    sender: str = DEFAULT_SENDER
    # Why a setting was ignored, shown once as a notification rather than lost.
    problems: list[str] = field(default_factory=list)


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "teamtui" / "config.toml"


def load_settings(path: Path | None = None) -> Settings:
    path = path or config_path()
    s = Settings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return s
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        s.problems.append(f"{path}: {exc}; using defaults")
        return s
    if isinstance(data.get("theme"), str):
        s.theme = data["theme"]
    km = data.get("keymap", {})
    if isinstance(km, dict):
        s.keymap = {str(k): str(v) for k, v in km.items() if isinstance(v, str)}
    for key, attr, kind in (("log_lines", "log_lines", int), ("health_timeout", "health_timeout", float)):
        v = data.get(key)
        if v is None:
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            setattr(s, attr, kind(v))
        else:
            s.problems.append(f"{path}: {key} must be a positive number, got {v!r}")
    sender = data.get("sender")
    if sender is not None:
        from teamtui.protocol.names import is_safe_name

        if isinstance(sender, str) and is_safe_name(sender) and sender not in _RESERVED_SENDERS:
            s.sender = sender
        else:
            s.problems.append(f"{path}: sender must be a name of your own (letters, digits, '.', '_', '-'; not team-lead, user or system), got {sender!r}")
    mode = data.get("teammate_mode")
    if mode in ("auto", "in-process", "tmux"):
        s.teammate_mode = mode
    elif mode is not None:
        s.problems.append(f"{path}: teammate_mode must be auto, in-process or tmux, got {mode!r}")
    return s


_THEME_LINE = re.compile(r'^theme\s*=.*$', re.MULTILINE)


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
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(head + sep + rest if sep else head.rstrip("\n") + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
