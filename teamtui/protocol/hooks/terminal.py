"""Seeing that the person answered in the lead's terminal while the hook waits.

Claude Code shows its own dialog beside the hook and does not end the hook when the person
answers there (seen on 2.1.332). What it does write is the transcript: the tool use is there
before the dialog, and its `tool_result` lands once the tool ran or was refused. So the hook
finds the last tool use of this tool with this very input in the transcript of whoever asks
(the lead's, or an in-process teammate's `subagents/agent-<agent_id>.jsonl`) and watches the
file (a FileWatch, in a thread) for that tool use's result.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_TAIL_BYTES = 512 * 1024  # where the tool use is looked for: it was written just before the hook ran
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,120}")


def transcript_of(event: dict[str, Any]) -> Path | None:
    """The transcript of whoever asks: the lead's, or the in-process teammate's beside it."""
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path.endswith(".jsonl") or "\0" in path:
        return None
    lead = Path(path)
    agent = event.get("agent_id")
    if agent is None:
        return lead
    if not isinstance(agent, str) or not _AGENT_ID.fullmatch(agent):
        return None
    return lead.with_suffix("") / "subagents" / f"agent-{agent}.jsonl"


def _lines(data: bytes) -> list[dict[str, Any]]:
    out = []
    for raw in data.splitlines():
        if b'"tool_use' not in raw and b'"tool_result' not in raw:
            continue
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _blocks(rec: dict[str, Any]) -> list[dict[str, Any]]:
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def pending_tool_use(data: bytes, tool: object, tool_input: object) -> tuple[str | None, bool]:
    """(the id of the last use of `tool` with `tool_input` in these transcript lines, whether its
    result is already there)."""
    uses: dict[str, bool] = {}
    last = None
    for rec in _lines(data):
        for b in _blocks(rec):
            if b.get("type") == "tool_use" and b.get("name") == tool and b.get("input") == tool_input:
                if isinstance(b.get("id"), str):
                    last = b["id"]
                    uses[last] = False
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in uses:
                uses[b["tool_use_id"]] = True
    return last, bool(last and uses[last])


def result_seen(data: bytes, tool_use_id: str) -> bool:
    return any(
        b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id
        for rec in _lines(data)
        for b in _blocks(rec)
    )


def watch_terminal(event: dict[str, Any], then: Callable[[], None]) -> None:
    """Call `then` (from a thread) once the tool use this request is about has its result in the
    transcript; nothing when the transcript or the tool use cannot be found."""
    import threading

    path = transcript_of(event)
    if path is None:
        return

    def run() -> None:
        try:
            _follow(path, event.get("tool_name"), event.get("tool_input"), then)
        except Exception:  # noqa: BLE001 - a watcher that fails only loses this shortcut
            return

    threading.Thread(target=run, name="teamtui-terminal", daemon=True).start()


def _follow(path: Path, tool: object, tool_input: object, then: Callable[[], None]) -> None:
    from teamtui.protocol.filewatch import FileWatch

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with FileWatch(path) as watch:  # in place before the first read: no result can slip between
            size = os.fstat(fd).st_size
            start = max(0, size - _TAIL_BYTES)
            os.lseek(fd, start, os.SEEK_SET)
            data = _read_all(fd)
            end = data.rfind(b"\n") + 1
            offset = start + end
            tool_use_id, done = pending_tool_use(data[:end], tool, tool_input)
            if tool_use_id is None:
                return
            if done:
                then()
                return
            for _changed in watch.changes(debounce_ms=50, step_ms=20):
                os.lseek(fd, offset, os.SEEK_SET)
                data = _read_all(fd)
                end = data.rfind(b"\n") + 1
                offset += end
                if result_seen(data[:end], tool_use_id):
                    then()
                    return
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
