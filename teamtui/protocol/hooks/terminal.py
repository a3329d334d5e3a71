"""Seeing that the person answered in the lead's terminal while the hook waits.

Claude Code shows its own dialog beside the hook and does not end the hook when the person
answers there (seen on 2.1.332). What it does write is the transcript: the tool use (sometimes
only after the hook started: its writes are queued), then its `tool_result` once the tool ran or
was refused. So the hook finds the tool use of this tool with this very input in the transcript of
whoever asks (the lead's, or an in-process teammate's `subagents/agent-<agent_id>.jsonl`), or waits
for it, and watches the file (a FileWatch, in a thread) for that tool use's result.
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


def transcript_of(event: dict[str, object]) -> Path | None:
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


def _lines(data: bytes) -> list[dict[str, object]]:
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


def _stamp(rec: dict[str, object]) -> float | None:
    """A transcript line's time (ISO 8601, as Claude Code writes it), in seconds; None when absent."""
    from datetime import datetime

    ts = rec.get("timestamp")
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class ToolUseWatch:
    """Which tool use this request is about, and whether its result has come.

    Ours is the last use of this tool with this very input that has no result yet. Claude Code
    may write the tool use to the transcript after the hook starts (its writes are queued), so
    when none waits, the next such use written is ours. A use whose result is already there is
    ours only if that result was written after the hook began: an older, identical command
    (the same `npm test` run twice) was answered before this request existed."""

    def __init__(self, tool: object, tool_input: object, since: float) -> None:
        self.tool, self.tool_input, self.since = tool, tool_input, since
        self.ours: str | None = None
        self.answered = False
        self._first = True

    def feed(self, data: bytes) -> bool:
        """Read whole transcript lines; True once our tool use has its result."""
        waiting: list[str] = []
        results: dict[str, float | None] = {}
        for rec in _lines(data):
            for b in _blocks(rec):
                if b.get("type") == "tool_use" and b.get("name") == self.tool and b.get("input") == self.tool_input:
                    if isinstance(b.get("id"), str):
                        waiting.append(b["id"])
                elif b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                    results[b["tool_use_id"]] = _stamp(rec)
        first, self._first = self._first, False
        if self.ours is None:
            if first:
                unanswered = [u for u in waiting if u not in results]
                late = [u for u in waiting if (results.get(u) or 0) >= self.since]
                found = unanswered or late
                self.ours = found[-1] if found else None
            elif waiting:
                self.ours = waiting[0]
        if self.ours is not None and self.ours in results:
            self.answered = True
        return self.answered


def watch_terminal(event: dict[str, object], since: float, then: Callable[[], None]) -> None:
    """Call `then` (from a thread) once the tool use this request is about has its result in the
    transcript (`since`: when the hook began); nothing when the transcript cannot be found."""
    import threading

    path = transcript_of(event)
    if path is None:
        return

    def run() -> None:
        try:
            _follow(path, event.get("tool_name"), event.get("tool_input"), since, then)
        except Exception:  # noqa: BLE001 - a watcher that fails only loses this shortcut
            return

    threading.Thread(target=run, name="teamtui-terminal", daemon=True).start()


def _follow(path: Path, tool: object, tool_input: object, since: float, then: Callable[[], None]) -> None:
    from teamtui.protocol.filewatch import FileWatch

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with FileWatch(path) as watch:  # in place before the first read: no result can slip between
            size = os.fstat(fd).st_size
            offset = max(0, size - _TAIL_BYTES)
            use = ToolUseWatch(tool, tool_input, since)
            changes = watch.changes(debounce_ms=50, step_ms=20)
            while True:
                os.lseek(fd, offset, os.SEEK_SET)
                data = _read_all(fd)
                end = data.rfind(b"\n") + 1
                offset += end
                if use.feed(data[:end]):
                    then()
                    return
                next(changes)
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
