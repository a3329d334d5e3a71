"""`teamtui hook`: what Claude Code runs for each hooked event, with the event as JSON on stdin.

It records the event in the spool and exits: a few milliseconds over a bare Python, because it
runs inside Claude Code's loop (the CLI dispatches here before building its parser). Only a
`PermissionRequest` may wait, and only on a person: while a room that answers runs (wait.py).
It always exits 0 — another status could block or deny something in Claude Code — and says a
problem on stderr in one line; an event it cannot take is dropped with a `dropped` line in the
spool, never a crash.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import BinaryIO, TextIO


_SHELLS = frozenset({"sh", "dash", "bash", "zsh", "fish", "ksh"})
MAX_SESSION_FILE = 64 * 1024


def _claude_pid(session_id: str, env: Mapping[str, str]) -> int:
    """The Claude Code process that ran the hook: the session's own record, else the parent
    (above the shell it ran us through), the same on every OS."""
    return _session_pid(session_id, env) or _parent_above_shell()


def _session_pid(session_id: str, env: Mapping[str, str]) -> int | None:
    """The pid in the `sessions/<pid>.json` Claude Code keeps for this session (FORMATS §5)."""
    import json

    cfg = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")
    try:
        entries = list(os.scandir(os.path.join(cfg, "sessions")))
    except OSError:
        return None
    for entry in entries:
        # Only `<pid>.json`: the `<pid>.<hash>.key` beside it is a secret, never opened.
        stem, dot, ext = entry.name.partition(".")
        if ext != "json" or not stem.isdigit():
            continue
        try:
            with open(entry.path, "rb") as fh:
                data = json.loads(fh.read(MAX_SESSION_FILE))
        except (OSError, ValueError):
            continue  # being rewritten, or not ours to read: the parent below still tells
        if isinstance(data, dict) and data.get("sessionId") == session_id and data.get("pid") == int(stem):
            return int(stem)
    return None


def _parent_above_shell() -> int:
    pid = os.getppid()
    try:
        name, ppid = _name_and_parent(pid)
    except Exception:  # noqa: BLE001 - gone, or not ours to read: the parent is the best guess
        return pid
    return ppid if name in _SHELLS and ppid > 1 else pid


def _name_and_parent(pid: int) -> tuple[str, int]:
    if sys.platform.startswith("linux"):
        # /proc directly on Linux: psutil's import (and the datetime it pulls in) would take the
        # hook past its start-up budget (2x a bare python; docs/benchmarks.md row 14).
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read(1024)
        end = stat.rfind(b")")
        return stat[stat.find(b"(") + 1 : end].decode(errors="replace"), int(stat[end + 2 :].split()[1])
    import psutil  # macOS and the rest: no /proc

    proc = psutil.Process(pid)
    return proc.name(), proc.ppid()


def answer_wait(env: Mapping[str, str]) -> float:
    """config.toml's answer_wait (read only for a permission request)."""
    from pathlib import Path

    # The TOML alone, not the settings model (pydantic): the hook runs in Claude Code's loop.
    from teamtui.protocol.config_file import DEFAULT_ANSWER_WAIT, MAX_ANSWER_WAIT, read_config

    base = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    data, _why = read_config(Path(base) / "teamtui" / "config.toml")
    wait = data.get("answer_wait") if data is not None else None
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 0 <= wait <= MAX_ANSWER_WAIT:
        return float(wait)
    return DEFAULT_ANSWER_WAIT  # unset, or wrong (teamtui doctor says what is wrong with it)


def run(stdin: BinaryIO, out: TextIO, env: Mapping[str, str]) -> None:
    from teamtui.protocol.hooks.event import MAX_EVENT_BYTES, BadEvent, parse, record_of
    from teamtui.protocol.hooks.place import ensure_spool
    from teamtui.protocol.hooks.spool import write_dropped, write_event

    now = time.time()
    spool = ensure_spool(env)
    data = stdin.read(MAX_EVENT_BYTES + 1)
    try:
        event = parse(data)
    except BadEvent as exc:
        write_dropped(spool, str(exc), now)
        return
    record = record_of(event, now, _claude_pid(event["session_id"], env))
    if record["event"] != "PermissionRequest":
        write_event(spool, record)
        return
    from teamtui.protocol.hooks.wait import ask

    ask(spool, event, record, out, env, answer_wait(env))


def main() -> int:
    try:
        run(sys.stdin.buffer, sys.stdout, os.environ)
    except BaseException as exc:  # noqa: BLE001 - never fail Claude Code's event, whatever happened
        if isinstance(exc, KeyboardInterrupt):
            return 0
        try:
            print(f"teamtui hook: {type(exc).__name__}: {exc}", file=sys.stderr)
        except Exception:  # noqa: BLE001
            pass
    return 0
