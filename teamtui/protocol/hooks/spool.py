"""The spool: one JSON object a line in `events.jsonl`, appended by each `teamtui hook`, read by
the room (and a remote `teamtui stream`) from where it left off, on file events.

Bounded: past `MAX_SPOOL_BYTES` the file becomes `events.1.jsonl` (the older generation is
dropped) and a new one starts; a reader that was in the middle finishes the old one first
(`SpoolReader`). An event that cannot be kept leaves a `{"dropped": why}` line instead, so a
reader can count what was lost. Each line goes in one write() on an O_APPEND file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from teamtui.protocol.hooks.place import EVENTS, EVENTS_OLD, SPOOL_LOCK

MAX_SPOOL_BYTES = 1 << 20  # a generation: about 2,000 events
MAX_LINE_BYTES = 32 * 1024  # a record is far smaller (every field is bounded); this is the reader's guard


def line_of(record: dict[str, object]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")


def append_line(path: Path, old: Path, line: bytes, limit: int) -> None:
    """One write() at the end of `path` (0600, never through a symlink); past `limit` it is
    rotated to `old`, by whichever writer gets the rotation lock first."""
    # O_NONBLOCK: a FIFO put in its place fails at once instead of hanging Claude Code.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    try:
        os.write(fd, line)
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if st.st_size > limit:
        _rotate(path, old, st.st_ino)


def _rotate(path: Path, old: Path, ino: int) -> None:
    import fcntl

    lock = os.open(path.with_name(SPOOL_LOCK), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # another writer rotates it
        try:
            if os.stat(path).st_ino == ino:  # not rotated meanwhile by someone else
                os.replace(path, old)
        except FileNotFoundError:
            pass
    finally:
        os.close(lock)


def write_event(spool: Path, record: dict[str, object]) -> None:
    line = line_of(record)
    if len(line) > MAX_LINE_BYTES:
        line = line_of({"v": 1, "at": record.get("at"), "dropped": "too large after trimming"})
    append_line(spool / EVENTS, spool / EVENTS_OLD, line, MAX_SPOOL_BYTES)


def write_dropped(spool: Path, why: str, now: float) -> None:
    append_line(spool / EVENTS, spool / EVENTS_OLD, line_of({"v": 1, "at": now, "dropped": why[:200]}), MAX_SPOOL_BYTES)


class SpoolReader:
    """Reads the spool from where it left off: call `read()` on each file event of the hooks
    folder (and once at start). Only whole lines are taken; a rotation is followed (the rest of
    the old file first), so nothing written is skipped or read twice while this reader keeps up
    with at most one rotation between two reads."""

    def __init__(self, spool: Path, *, from_start: bool = False):
        self.path = spool / EVENTS
        self.old = spool / EVENTS_OLD
        self._ino: int | None = None
        self._offset = 0
        self.dropped = 0  # events the hook could not keep, and lines that did not read
        if not from_start:
            try:
                st = os.stat(self.path)
                self._ino, self._offset = st.st_ino, st.st_size
            except OSError:
                pass

    def read(self) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if self._ino is not None and (st is None or st.st_ino != self._ino):
            # Rotated: finish the old generation if it is the file we were reading.
            try:
                if os.stat(self.old).st_ino == self._ino:
                    out += self._take(self.old)
            except FileNotFoundError:
                pass
            self._ino, self._offset = None, 0
        if st is not None:
            if self._ino is None:
                self._ino, self._offset = st.st_ino, 0
            elif st.st_size < self._offset:  # truncated in place: start again
                self._offset = 0
            out += self._take(self.path)
        return out

    def _take(self, path: Path) -> list[dict[str, object]]:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return []
        try:
            os.lseek(fd, self._offset, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
                if sum(map(len, chunks)) > 4 * MAX_SPOOL_BYTES:
                    break
        finally:
            os.close(fd)
        data = b"".join(chunks)
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
        self._offset += end
        out = []
        for raw in data[:end].splitlines():
            rec = _record(raw)
            if rec is None or "dropped" in rec:
                self.dropped += 1
            if rec is not None and "event" in rec:
                out.append(rec)
        return out


def _record(raw: bytes) -> dict[str, object] | None:
    if not raw.strip() or len(raw) > MAX_LINE_BYTES:
        return None
    try:
        rec = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def count_dropped(spool: Path) -> int:
    """The events the hook dropped (or could not read back), in both generations."""
    n = 0
    for name in (EVENTS_OLD, EVENTS):
        reader = SpoolReader(spool, from_start=True)
        reader.path = spool / name
        reader.old = spool / "-"
        reader.read()
        n += reader.dropped
    return n
