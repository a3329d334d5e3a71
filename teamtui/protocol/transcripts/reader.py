"""One teammate's transcript, read from its last offset into a bounded window of entries.

The first read goes through the file once, in chunks: every assistant line is decoded (the token
sums need each `message.usage`), while user lines, the bulk of a transcript (tool results), are
decoded only if they can still show in the window or carry a teammate's protocol message.
Later reads take only the complete lines appended since.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamtui.protocol.tail import MAX_LINE_BYTES, TailReader
from teamtui.protocol.transcripts.render import EntryKind, Notice, Renderer, TranscriptEntry, notices_in
from teamtui.protocol.transcripts.stats import TranscriptStats

# Entries a panel keeps per teammate.
DEFAULT_WINDOW = 500
# Undecoded user lines held back during a first read, at most (bytes); the window needs no more.
_HELD_BYTES = 8 * 1024 * 1024
# Protocol messages remembered per transcript.
_NOTICES_KEPT = 256
# The record types that show or count; others (api requests, snapshots, attachments) are skipped unread.
_SHOWN = (b'"type":"user"', b'"type":"assistant"', b'"type":"system"')


@dataclass(slots=True)
class TranscriptUpdate:
    """What one read found."""

    entries: list[TranscriptEntry] = field(default_factory=list)
    # The file was replaced or truncated: the window was cleared and rebuilt from the new file.
    reset: bool = False
    missing: bool = False
    notices: list[Notice] = field(default_factory=list)
    # Lines that could not be read, as (line number, why); the file's error, if any.
    problems: list[tuple[int | None, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.entries or self.reset or self.notices or self.problems)


def _shown(line: bytes) -> bool:
    # Claude Code writes compact JSON; a line spaced otherwise is decoded to be sure.
    return any(t in line for t in _SHOWN) or b'"type":"' not in line


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


class _Held:
    """The newest lines of a first read that may still show: decoded records, or raw user lines."""

    def __init__(self, count: int):
        self.items: deque[tuple[int, dict[str, Any] | bytes]] = deque()
        self.count = count
        self.raw_bytes = 0
        self.folded = 0  # the number of the last line already folded into the stats

    def add(self, no: int, item: dict[str, Any] | bytes) -> None:
        self.items.append((no, item))
        if isinstance(item, bytes):
            self.raw_bytes += len(item)
        while self.items and (len(self.items) > self.count or self.raw_bytes > _HELD_BYTES):
            old = self.items.popleft()[1]
            if isinstance(old, bytes):
                self.raw_bytes -= len(old)


class TranscriptReader:
    """Reads one transcript incrementally. `entries` is the bounded window (oldest first),
    `stats` the teammate's activity, tokens and context, `notices` the protocol messages received."""

    def __init__(self, path: Path, *, window: int = DEFAULT_WINDOW, max_line_bytes: int = MAX_LINE_BYTES):
        self.path = Path(path)
        self.window = window
        self._tail = TailReader(self.path, max_line_bytes=max_line_bytes)
        self._fresh()

    def _fresh(self) -> None:
        self.entries: deque[TranscriptEntry] = deque(maxlen=self.window)
        self.stats = TranscriptStats()
        self.notices: deque[Notice] = deque(maxlen=_NOTICES_KEPT)
        self._renderer = Renderer()
        self._started = False

    @property
    def offset(self) -> int:
        return self._tail.offset

    @property
    def bytes_read(self) -> int:
        return self._tail.bytes_read

    def read(self) -> TranscriptUpdate:
        """Everything new since the last read (the whole file, once, on the first)."""
        update = TranscriptUpdate()
        held = _Held(self.window) if not self._started else None
        while True:
            batch = self._tail.read()
            if batch.reset:
                self._fresh()
                update = TranscriptUpdate(reset=True)
                held = _Held(self.window)
            update.missing = batch.missing
            if batch.error:
                update.problems.append((None, batch.error))
            update.problems.extend((no, f"line of {size} bytes skipped (over the limit)") for no, size in batch.overlong)
            self._started = self._started or not batch.missing
            for line, no in zip(batch.lines, batch.line_numbers):
                if not _shown(line):
                    continue
                if held is not None and b'"type":"user"' in line and b"<teammate-message" not in line:
                    held.add(no, line)  # decoded at the end, if it is still in the window
                    continue
                rec = _decode(line)
                if rec is None:
                    update.problems.append((no, "not a JSON object"))
                elif held is not None:
                    self.stats.fold(rec)
                    self._collect(rec, update)
                    held.add(no, rec)
                    held.folded = no
                else:
                    self._take(rec, no, update)
            if not batch.more or batch.error:
                break
        if held is not None:
            self._settle(held, update)
        if len(update.entries) > self.window:
            del update.entries[: len(update.entries) - self.window]
        return update

    def _settle(self, held: _Held, update: TranscriptUpdate) -> None:
        """End of a first read: render the lines that fit the window, in file order."""
        for no, item in held.items:
            rec = item if isinstance(item, dict) else _decode(item)
            if rec is None:
                update.problems.append((no, "not a JSON object"))
                continue
            if no > held.folded:  # user lines after the last folded one still tell the activity
                self.stats.fold(rec)
            new = self._renderer.render(rec, no)
            self.entries.extend(new)
            update.entries.extend(new)

    def _take(self, rec: dict[str, Any], no: int, update: TranscriptUpdate) -> None:
        self.stats.fold(rec)
        self._collect(rec, update)
        new = self._renderer.render(rec, no)
        self.entries.extend(new)
        update.entries.extend(new)

    def _collect(self, rec: dict[str, Any], update: TranscriptUpdate) -> None:
        if rec.get("type") == "user":
            found = notices_in(rec)
            self.notices.extend(found)
            update.notices.extend(found)


__all__ = ["DEFAULT_WINDOW", "EntryKind", "TranscriptReader", "TranscriptUpdate"]
