"""teamtui's entries in Claude Code's settings.json: install, uninstall, status.

The user's settings (`~/.claude/settings.json`, or `$CLAUDE_CONFIG_DIR/settings.json`) or a
project's `.claude/settings.local.json`. One entry per event of `INSTALLED_EVENTS` (never a
per-tool event), each `{"type": "command", "command": "<absolute path of teamtui> hook",
"timeout": …}` in a group of its own. An entry is teamtui's when its command runs a `teamtui`
(by path, or `python -m teamtui`) with the single argument `hook`; nothing else is touched:
every other key, every hook of the user's, stays as it was. Writing twice changes nothing (no
write, no backup); before a write the previous file is kept as `<name>.teamtui.bak`, one backup
that each write replaces; an uninstall that leaves nothing removes the file it would have left as
`{}` (install made it: it leaves no file that was not there), and a backup holding only teamtui's
hooks with it. A file that does not parse, or whose `hooks` is not what Claude Code reads, is left
untouched and the reason given.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamtui.protocol.hooks.event import INSTALLED_EVENTS

# Claude Code ends a hook after its timeout (seconds). A permission request waits at most
# MAX_ANSWER_WAIT (settings.py) and stops by itself; the margin is for its start and its answer.
PERMISSION_TIMEOUT = 3660
EVENT_TIMEOUT = 10


class SettingsFileError(Exception):
    """The settings file cannot be changed safely; it was left untouched (the message says why)."""


def user_settings(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    base = env.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path(env.get("HOME") or Path.home()) / ".claude") / "settings.json"


def project_settings(project: Path) -> Path:
    return project / ".claude" / "settings.local.json"


def this_teamtui() -> list[str]:
    """The command that runs this very teamtui: its script's absolute path when started as
    `teamtui`, else this Python with `-m teamtui`."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "teamtui" and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    found = shutil.which("teamtui")
    if found and os.path.isabs(found):
        return [found]
    return [os.path.abspath(sys.executable), "-m", "teamtui"]


def hook_command(program: list[str] | None = None) -> str:
    return shlex.join([*(program or this_teamtui()), "hook"])


def is_ours(command: object) -> bool:
    """Whether a hook's command runs some teamtui's `hook` (this one or another install of it)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) < 2 or words[-1] != "hook":
        return False
    program = words[:-1]
    return (len(program) == 1 and os.path.basename(program[0]) == "teamtui") or program[-2:] == ["-m", "teamtui"]


def _entry(command: str, event: str) -> dict[str, object]:
    return {
        "type": "command",
        "command": command,
        "timeout": PERMISSION_TIMEOUT if event == "PermissionRequest" else EVENT_TIMEOUT,
    }


def _group(command: str, event: str) -> dict[str, object]:
    # PermissionRequest matches tools ("*": all of them); the other events take no matcher.
    hooks = [_entry(command, event)]
    return {"matcher": "*", "hooks": hooks} if event == "PermissionRequest" else {"hooks": hooks}


def read_settings(path: Path) -> dict[str, Any]:
    """The file's JSON object ({} when there is no file); SettingsFileError when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsFileError(f"{path} cannot be read ({exc}); it was left untouched") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise SettingsFileError(f"{path} is not valid JSON ({exc}); it was left untouched") from None
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} holds a JSON {type(data).__name__}, not an object; it was left untouched")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsFileError(f'{path}: "hooks" is not an object; it was left untouched')
    for event, groups in hooks.items():
        if not isinstance(groups, list) or not all(
            isinstance(g, dict) and isinstance(g.get("hooks", []), list) for g in groups
        ):
            raise SettingsFileError(
                f'{path}: "hooks.{event}" is not a list of {{"matcher", "hooks": [...]}} groups; it was left untouched'
            )
    return data


def _without_ours(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The event's groups with every teamtui entry taken out (and a group left empty by that)."""
    out = []
    for g in groups:
        entries = g.get("hooks", [])
        kept = [e for e in entries if not (isinstance(e, dict) and is_ours(e.get("command")))]
        if len(kept) == len(entries):
            out.append(g)
        elif kept:
            out.append({**g, "hooks": kept})
    return out


def _ours(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for g in groups for e in g.get("hooks", []) if isinstance(e, dict) and is_ours(e.get("command"))]


def installed(data: dict[str, Any], command: str) -> dict[str, Any]:
    """`data` with teamtui's entries as `install` leaves them (a new dict; `data` is not changed)."""
    out = dict(data)
    hooks = dict(out.get("hooks") or {})
    for event in INSTALLED_EVENTS:
        groups = list(hooks.get(event) or [])
        mine = _ours(groups)
        if len(mine) == 1 and mine[0] == _entry(command, event) and _has_own_group(groups, mine[0], event):
            continue  # already as it should be: left exactly as it is
        hooks[event] = [*_without_ours(groups), _group(command, event)]
    out["hooks"] = hooks
    return out


def _has_own_group(groups: list[dict[str, Any]], entry: dict[str, Any], event: str) -> bool:
    return any(g == _group(entry["command"], event) for g in groups)


def uninstalled(data: dict[str, object]) -> dict[str, object]:
    """`data` without teamtui's entries: an event list (and `hooks`) left empty by that goes too."""
    out = dict(data)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    kept = {}
    for event, groups in hooks.items():
        if not _ours(groups):
            kept[event] = groups  # the user's, as it was (even an empty list)
        elif left := _without_ours(groups):
            kept[event] = left
    if kept == hooks:
        return out
    if kept:
        out["hooks"] = kept
    else:
        out.pop("hooks")
    return out


@dataclass
class Change:
    path: Path
    changed: bool
    backup: Path | None = None
    events: list[str] = field(default_factory=list)  # the events whose lists changed
    removed: bool = False  # nothing was left: the file is gone


def backup_of(path: Path) -> Path:
    """The one backup of a settings file teamtui changed: the file as it was before the last change."""
    return path.with_name(f"{path.name}.teamtui.bak")


def _write(path: Path, before: dict[str, Any], after: dict[str, Any], existed: bool) -> Change:
    changed_events = sorted(
        e
        for e in set(before.get("hooks") or {}) | set(after.get("hooks") or {})
        if (before.get("hooks") or {}).get(e) != (after.get("hooks") or {}).get(e)
    )
    if after == before:
        return Change(path, False)
    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600
    if existed:
        mode = path.stat().st_mode & 0o777
        backup = backup_of(path)
        shutil.copy2(path, backup)
        _drop_old_backups(path)
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(after, indent=2, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return Change(path, True, backup, changed_events)


def _drop_old_backups(path: Path) -> None:
    """Earlier versions kept a timestamped backup per write (`<name>.teamtui-<time>.bak`): one is kept now."""
    for old in path.parent.glob(f"{glob.escape(path.name)}.teamtui-*.bak"):
        try:
            old.unlink()
        except OSError:
            pass


def install(path: Path, command: str | None = None) -> Change:
    data = read_settings(path)
    return _write(path, data, installed(data, command or hook_command()), path.exists())


def uninstall(path: Path) -> Change:
    if not path.exists():
        return Change(path, False)
    data = read_settings(path)
    after = uninstalled(data)
    if after or after == data:
        return _write(path, data, after, True)
    return _remove(path, data)


def _remove(path: Path, before: dict[str, Any]) -> Change:
    """Nothing is left but `{}`: the file goes (and its folder, when empty), and the backup when
    it holds nothing of the user's either."""
    path.unlink()
    backup = backup_of(path)
    try:
        if not uninstalled(read_settings(backup)):
            backup.unlink(missing_ok=True)
    except (SettingsFileError, OSError):
        pass  # a backup it cannot read is the user's to judge
    _drop_old_backups(path)
    try:
        path.parent.rmdir()  # only when empty: the folder install made for it
    except OSError:
        pass
    return Change(path, True, backup if backup.exists() else None, sorted(before.get("hooks") or {}), removed=True)


@dataclass
class Status:
    path: Path
    exists: bool
    problem: str = ""  # the file cannot be read or used
    events: dict[str, str] = field(default_factory=dict)  # event -> teamtui's command there
    missing: list[str] = field(default_factory=list)  # INSTALLED_EVENTS with no teamtui entry
    extra: list[str] = field(default_factory=list)  # other events holding a teamtui entry
    commands: dict[str, str] = field(default_factory=dict)  # command -> "" when it runs, else why not


def status(path: Path, check: bool = True) -> Status:
    st = Status(path, path.exists())
    try:
        data = read_settings(path)
    except SettingsFileError as exc:
        st.problem = str(exc).replace("; it was left untouched", "")
        return st
    for event, groups in (data.get("hooks") or {}).items():
        mine = _ours(groups)
        if mine:
            st.events[event] = str(mine[0].get("command"))
            if event not in INSTALLED_EVENTS:
                st.extra.append(event)
    st.missing = [e for e in INSTALLED_EVENTS if e not in st.events]
    if check:
        for command in dict.fromkeys(st.events.values()):
            st.commands[command] = command_problem(command)
    return st


def command_problem(command: str) -> str:
    """'' when the hook's command still runs teamtui, else why not (moved, removed, broken)."""
    try:
        words = shlex.split(command)[:-1]
    except ValueError as exc:
        return f"cannot be read as a command ({exc})"
    if not words:
        return "names no program"
    if not os.path.isabs(words[0]):
        return f"{words[0]} is not an absolute path"
    if not os.access(words[0], os.X_OK):
        return f"{words[0]} does not exist or cannot be run"
    try:
        proc = subprocess.run([*words, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"does not run ({exc})"
    if proc.returncode != 0 or not proc.stdout.startswith("teamtui "):
        return f"does not run teamtui (exit {proc.returncode}: {(proc.stderr or proc.stdout).strip()[:200]})"
    return ""
