"""The hook's side of a permission request: ask the room, wait for the one answer, carry it out.

Claude Code shows its own dialog in the lead's terminal at once, beside the hook, and obeys
whichever answers first: the hook's printed decision or the person at that dialog. So the hook
asks only while a room that answers runs (room.py), and it stops waiting — printing nothing,
which leaves the dialog in charge — when the room goes, when `answer_wait` passes, when the
person answered in the lead's terminal (terminal.py sees the tool's result in the transcript),
or when Claude Code ends the hook. Each of those is itself claimed as the answer (`lead`), so a
late answer from the room loses and is told so. Waiting is on the request's FIFO (select), which
an answer, the room-lock thread and the transcript watcher each write a byte to: no polling.
"""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.asks import (
    LEAD,
    REQUEST,
    WAKE,
    claim,
    decision_json,
    make_answer,
    new_id,
    read_answer,
    write_private,
)
from teamtui.protocol.hooks.event import session_team, summary
from teamtui.protocol.hooks.place import ensure_requests, private_dir
from teamtui.protocol.hooks.room import room_running, when_no_room
from teamtui.protocol.hooks.spool import write_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, TextIO

# Closed requests are kept this long for the room to show what became of them, then removed.
KEEP_CLOSED_S = 24 * 3600.0
MAX_KEPT = 500


class _Ended(Exception):
    """Claude Code ended the hook (a signal) while it waited."""


def _ended(signum: int, frame: object) -> None:
    raise _Ended


def claude_config_dir(env: Mapping[str, str]) -> Path:
    cfg = env.get("CLAUDE_CONFIG_DIR")
    return Path(cfg) if cfg else Path(env.get("HOME") or os.path.expanduser("~")) / ".claude"


def team_of(session_id: str, env: Mapping[str, str]) -> str:
    """The team of the session that asks: Claude Code 2.1.178+ names it `session-<8 hex>`; ''
    when no such team is there (agent teams off, or an older Claude Code)."""
    name = session_team(session_id)
    return name if name and (claude_config_dir(env) / "teams" / name / "config.json").exists() else ""


def ask(
    spool: Path,
    event: dict[str, object],
    record: dict[str, Any],
    out: TextIO,
    env: Mapping[str, str],
    wait_s: float,
) -> None:
    """The whole PermissionRequest: record it, and when a room answers, wait and print its decision."""
    host = os.uname().nodename
    if wait_s <= 0 or not room_running(spool):
        record["outcome"] = "answering is off (answer_wait = 0)" if wait_s <= 0 else "no room running"
        write_event(spool, record)
        journal.write(spool, journal.ASKED, **_about(record), outcome=record["outcome"], host=host)
        return
    # From here Claude Code ending the hook (a signal) hands the request to the lead's terminal.
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _ended)
    rid = new_id()
    # Made under a temporary name and renamed into place whole: a watcher of requests/ sees one
    # new folder holding everything (a recursive watch may miss files made in a brand-new folder).
    base = ensure_requests(spool)
    making = private_dir(base / f".{rid}.new")
    os.mkfifo(making / WAKE, 0o600)
    # Read and write: the hook itself keeps a writer, so select never sees an end of file.
    wake_fd = os.open(making / WAKE, os.O_RDWR | os.O_NONBLOCK)
    now = time.time()
    request: dict[str, object] = {
        "v": 1,
        "id": rid,
        "at": now,
        "wait": wait_s,
        "deadline": now + wait_s,
        "team": team_of(record.get("session_id", ""), env),
        "config_dir": str(claude_config_dir(env)),
        "host": host,
        "hook_pid": os.getpid(),
        **{k: record[k] for k in ("session_id", "cwd", "agent_id", "agent_type", "pid", "tool") if k in record},
        "who": record.get("agent_type") or "",
        "summary": summary(record["tool"]),
    }
    folder = base / rid
    try:
        write_private(making / REQUEST, request)
        os.rename(making, folder)
        record["request"] = rid
        write_event(spool, record)
        journal.write(spool, journal.ASKED, **_about(request), host=host)
        answer = _wait(spool, folder, rid, wake_fd, wait_s, event, host, record["at"])
    except _Ended:
        if not folder.exists():  # ended before the request was shown: nothing to hand over
            return
        ended = make_answer(rid, LEAD, via="hook", where=host, why="Claude Code ended the hook")
        answer = claim(folder, ended)[1] or ended
    printed = decision_json(answer)
    if printed is not None:
        out.write(printed + "\n")
        out.flush()
    journal.write(
        spool,
        journal.CARRIED_OUT,
        id=rid,
        decision=answer.get("decision"),
        printed=printed is not None,
        why=answer.get("why", ""),
        host=host,
    )
    os.close(wake_fd)
    try:
        os.unlink(folder / WAKE)  # an answer from now on is told at once that nobody waits
    except OSError:
        pass
    prune(spool)


def _about(request: dict[str, Any]) -> dict[str, Any]:
    tool = request.get("tool") or {}
    return {
        "id": request.get("id", ""),
        "team": request.get("team", ""),
        "session_id": request.get("session_id", ""),
        "who": request.get("agent_type") or request.get("who") or "",
        "tool": tool.get("name", ""),
        "summary": request.get("summary") or summary(tool),
    }


def _wait(
    spool: Path,
    folder: Path,
    rid: str,
    wake_fd: int,
    wait_s: float,
    event: dict[str, object],
    host: str,
    since: float,
) -> dict[str, object]:
    reasons: list[str] = []

    def poke(reason: str) -> None:
        reasons.append(reason)
        try:
            os.write(wake_fd, b"!")
        except OSError:
            pass

    when_no_room(spool, lambda: poke("room"))
    from teamtui.protocol.hooks.terminal import watch_terminal

    watch_terminal(event, since, lambda: poke("terminal"))
    deadline = time.monotonic() + wait_s
    why, via = "", "hook"
    while True:
        answer = read_answer(folder, rid)
        if answer is not None:
            return answer
        left = deadline - time.monotonic()
        if "terminal" in reasons:
            why, via = "answered in the lead's terminal", "terminal"
        elif "room" in reasons:
            why = "the room quit"
        elif left <= 0:
            why = f"nobody answered within {wait_s:g} s"
        if why:
            break
        ready, _, _ = select.select([wake_fd], [], [], left)
        if ready:
            try:
                os.read(wake_fd, 4096)
            except BlockingIOError:
                pass
    return claim(folder, make_answer(rid, LEAD, via=via, where=host, why=why))[1] or {"decision": LEAD}


def prune(spool: Path, now: float | None = None) -> None:
    """Remove closed requests older than a day (and the oldest past MAX_KEPT)."""
    from teamtui.protocol.hooks.asks import hook_waiting

    now = time.time() if now is None else now
    base = spool / "requests"
    try:
        entries = sorted((e.stat().st_mtime, e.path) for e in os.scandir(base) if e.is_dir(follow_symlinks=False))
    except OSError:
        return
    extra = len(entries) - MAX_KEPT
    for i, (mtime, path) in enumerate(entries):
        if (now - mtime > KEEP_CLOSED_S or i < extra) and not hook_waiting(Path(path)):
            _remove(Path(path))


def _remove(folder: Path) -> None:
    try:
        for e in os.scandir(folder):
            os.unlink(e.path)
        os.rmdir(folder)
    except OSError:
        pass
