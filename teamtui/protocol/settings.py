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
class NotifySettings:
    """The [notify] table: how teamtui gets a person's attention (teamtui/notify)."""

    # The terminal's bell.
    bell: bool = True
    # A desktop notification the terminal shows (OSC 9 / OSC 777; tmux's message line when tmux blocks them).
    desktop: bool = True
    # Which of OSC 9 and 777 to send; empty: chosen by the terminal (both when it is not known).
    desktop_osc: list[int] = field(default_factory=list)
    # A program run with each event as one JSON object on stdin, e.g. ["notify-send", "teamtui"]; empty: none.
    command: list[str] = field(default_factory=list)
    command_timeout: float = 10.0
    # How long the mute key silences every notification.
    mute_minutes: float = 30.0


@dataclass
class HostSettings:
    """One [[hosts]] table: a machine whose teams are shown over SSH (session/remote.py)."""

    name: str  # how its rows say where they are
    ssh: str  # a destination as ssh takes it: `user@box`, `box`, or a Host alias of ~/.ssh/config
    ssh_options: list[str] = field(default_factory=list)  # extra ssh arguments, e.g. ["-p", "2222"]
    roots: list[str] = field(default_factory=list)  # native roots there (Claude Code's folder is always read)
    teamtui: str = "teamtui"  # the command that runs teamtui there


@dataclass
class Settings:
    theme: str = DEFAULT_THEME
    keymap: dict[str, str] = field(default_factory=dict)
    log_lines: int = 1000
    health_timeout: float = 60.0
    teammate_mode: str = "auto"
    # At most this many `teamtui follow` panes at once in tmux mode; the others open when selected.
    max_panes: int = 8
    # The name messages teamtui sends carry (never a Claude Code team's lead, `user` or `system`).
    sender: str = DEFAULT_SENDER
    # The fleet overview: how long an ended team stays listed, and native roots looked at besides the cwd.
    fleet_keep_hours: float = 24.0
    # The history database keeps what every team did for this many days (protocol/history/).
    history_keep_days: float = 90.0
    roots: list[Path] = field(default_factory=list)
    # `teamtui serve`'s token, fixed so a bookmarked URL keeps working; None: a new one each start.
    serve_token: str | None = None
    notify: NotifySettings = field(default_factory=NotifySettings)
    # [[hosts]]: other machines whose teams the control room shows, over the user's own ssh.
    hosts: list[HostSettings] = field(default_factory=list)
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
    if data.get("notify") is not None:
        s.notify = _notify(data["notify"], path, s.problems)
    for key, attr, kind in (
        ("log_lines", "log_lines", int),
        ("health_timeout", "health_timeout", float),
        ("fleet_keep_hours", "fleet_keep_hours", float),
        ("history_keep_days", "history_keep_days", float),
    ):
        v = data.get(key)
        if v is None:
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            setattr(s, attr, kind(v))
        else:
            s.problems.append(f"{path}: {key} must be a positive number, got {v!r}")
    if data.get("roots") is not None:
        s.roots = _roots(data["roots"], path, s.problems)
    if data.get("hosts") is not None:
        s.hosts = _hosts(data["hosts"], path, s.problems)
    panes = data.get("max_panes")
    if isinstance(panes, int) and not isinstance(panes, bool) and panes > 0:
        s.max_panes = panes
    elif panes is not None:
        s.problems.append(f"{path}: max_panes must be a whole number of at least 1, got {panes!r}")
    sender = data.get("sender")
    if sender is not None:
        from teamtui.protocol.names import is_safe_name

        if isinstance(sender, str) and is_safe_name(sender) and sender not in _RESERVED_SENDERS:
            s.sender = sender
        else:
            s.problems.append(
                f"{path}: sender must be a name of your own (letters, digits, '.', '_', '-'; not team-lead, user or system), got {sender!r}"
            )
    mode = data.get("teammate_mode")
    if mode in ("auto", "in-process", "tmux"):
        s.teammate_mode = mode
    elif mode is not None:
        s.problems.append(f"{path}: teammate_mode must be auto, in-process or tmux, got {mode!r}")
    token = data.get("serve_token")
    if isinstance(token, str) and re.fullmatch(r"[A-Za-z0-9_-]{16,}", token):
        s.serve_token = token
    elif token is not None:
        # The value is a secret: say what is wrong with it, never echo it.
        if not isinstance(token, str):
            got = f"a {type(token).__name__}"
        else:
            got = f"only {len(token)} characters" if len(token) < 16 else "other characters too"
        s.problems.append(
            f"{path}: serve_token must be at least 16 letters, digits, '-' or '_' "
            f"(e.g. from `python -c 'import secrets; print(secrets.token_urlsafe())'`), got {got}; "
            "using a new random token"
        )
    return s


def _roots(value: object, path: Path, problems: list[str]) -> list[Path]:
    """`roots = ["~/src/api", ...]`: absolute folders, `~` expanded; a bad entry is dropped and said."""
    if not isinstance(value, list):
        problems.append(f'{path}: roots must be a list of folders, like roots = ["~/src/api"], got {value!r}')
        return []
    out = []
    for item in value:
        try:
            root = Path(item).expanduser() if isinstance(item, str) and item and "\0" not in item else None
        except RuntimeError:  # ~someone who is no user here
            root = None
        if root is None or not root.is_absolute():
            problems.append(f"{path}: each of roots must be an absolute folder or start with ~, got {item!r}; ignored")
        else:
            out.append(root)
    return out


_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_HOST_KEYS = ("name", "ssh", "ssh_options", "roots", "teamtui")


def _hosts(value: object, path: Path, problems: list[str]) -> list[HostSettings]:
    """`[[hosts]]` tables; a bad one is dropped and said (the others are kept)."""
    if not isinstance(value, list):
        problems.append(f'{path}: hosts must be [[hosts]] tables (name = "box", ssh = "me@box"), got {value!r}')
        return []
    out: list[HostSettings] = []
    for i, table in enumerate(value, 1):
        host = _host(table, f"{path}: [[hosts]] #{i}", problems)
        if host is None:
            continue
        if any(h.name == host.name for h in out):
            problems.append(f"{path}: [[hosts]] #{i}: the name {host.name!r} is used twice; this one is ignored")
            continue
        out.append(host)
    return out


def _plain_arg(v: object) -> bool:
    return isinstance(v, str) and bool(v) and not any(c in v for c in "\0\n\r")


def _host(table: object, where: str, problems: list[str]) -> HostSettings | None:
    if not isinstance(table, dict):
        problems.append(f"{where}: must be a table with name and ssh, got {table!r}; ignored")
        return None
    name, ssh = table.get("name"), table.get("ssh")
    if not isinstance(name, str) or not _HOST_NAME.fullmatch(name):
        problems.append(f"{where}: name must be letters, digits, '.', '_' or '-' (at most 64), got {name!r}; ignored")
        return None
    where = f"{where} ({name})"
    # Never an option: `ssh -oProxyCommand=...` would run a command here.
    if not isinstance(ssh, str) or not ssh or ssh.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ssh):
        problems.append(
            f"{where}: ssh must be a destination as ssh takes it (me@box, or a Host of ~/.ssh/config), "
            f"got {ssh!r}; ignored"
        )
        return None
    host = HostSettings(name, ssh)
    options = table.get("ssh_options", [])
    if isinstance(options, list) and all(_plain_arg(o) for o in options):
        host.ssh_options = list(options)
    else:
        problems.append(
            f'{where}: ssh_options must be a list of ssh arguments, like ["-p", "2222"], got {options!r}; ignored'
        )
        return None
    roots = table.get("roots", [])
    if isinstance(roots, list) and all(_plain_arg(r) for r in roots):
        host.roots = list(roots)
    else:
        problems.append(f'{where}: roots must be a list of folders there, like ["~/src/api"], got {roots!r}; ignored')
        return None
    command = table.get("teamtui", "teamtui")
    if _plain_arg(command) and command.strip():
        host.teamtui = command
    else:
        problems.append(
            f'{where}: teamtui must be the command that runs teamtui there, like "~/.local/bin/teamtui", '
            f"got {command!r}; ignored"
        )
        return None
    unknown = sorted(set(table) - set(_HOST_KEYS))
    if unknown:
        problems.append(f"{where}: [[hosts]] has no setting {', '.join(map(repr, unknown))}; ignored")
    return host


def _notify(table: object, path: Path, problems: list[str]) -> NotifySettings:
    """The [notify] table; a bad value is said and its default kept."""
    n = NotifySettings()
    if not isinstance(table, dict):
        problems.append(
            f"{path}: notify must be a table ([notify] with bell, desktop, command, mute_minutes), got {table!r}"
        )
        return n
    for key in ("bell", "desktop"):
        v = table.get(key)
        if isinstance(v, bool):
            setattr(n, key, v)
        elif v is not None:
            problems.append(f"{path}: notify.{key} must be true or false, got {v!r}")
    for key in ("command_timeout", "mute_minutes"):
        v = table.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < float("inf"):
            setattr(n, key, float(v))
        elif v is not None:
            problems.append(f"{path}: notify.{key} must be a positive number, got {v!r}")
    command = table.get("command")
    if isinstance(command, list) and command and all(isinstance(a, str) and a and "\0" not in a for a in command):
        n.command = list(command)
    elif command is not None and command != []:
        # Not echoed: a command may carry a secret (a webhook's URL).
        got = (
            "a string"
            if isinstance(command, str)
            else "an item that is no program or argument"
            if isinstance(command, list)
            else f"a {type(command).__name__}"
        )
        problems.append(
            f"{path}: notify.command must be a program and its arguments as a list of strings, "
            f'like command = ["notify-send", "teamtui"], got {got}; no command is run'
        )
    osc = table.get("desktop_osc")
    if isinstance(osc, list) and all(type(c) is int and c in (9, 777) for c in osc):
        n.desktop_osc = list(dict.fromkeys(osc))
    elif osc is not None:
        problems.append(f"{path}: notify.desktop_osc must be a list of 9 and/or 777, got {osc!r}")
    unknown = sorted(set(table) - {"bell", "desktop", "desktop_osc", "command", "command_timeout", "mute_minutes"})
    if unknown:
        problems.append(f"{path}: [notify] has no setting {', '.join(map(repr, unknown))}; ignored")
    return n


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
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(head + sep + rest if sep else head.rstrip("\n") + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
