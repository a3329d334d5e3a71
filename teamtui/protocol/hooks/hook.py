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


def _claude_pid() -> int:
    """The Claude Code process that ran the hook: the parent, or above the shell it ran us through."""
    pid = os.getppid()
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read(1024)
    except OSError:
        return pid
    comm = stat[stat.find(b"(") + 1 : stat.rfind(b")")]
    if comm in (b"sh", b"dash", b"bash", b"zsh"):
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            return int(fields[1])
    return pid


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
    record = record_of(event, now, _claude_pid())
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
