"""One teammate's transcript, read from its last offset into a bounded window of entries.

The first read goes through the file once, in chunks. The token sums need every assistant line's
`message.usage`: only its id, model and usage object are decoded (its content, a tool input, can
be large). Other lines (tool results are the bulk of a transcript) are decoded only if they can
still show in the window or carry a teammate's protocol message. Lines of other record types
(API requests, prompt snapshots, attachments) are never decoded. Later reads take only the
complete lines appended since, each decoded once.
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
    return b'"type":"user"' in line or b'"type":"assistant"' in line or b'"type":"system"' in line or b'"type":"' not in line


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


class _Held:
    """The newest raw lines of a first read: those that may still show in the window."""

    def __init__(self, count: int):
        self.items: deque[tuple[int, bytes]] = deque()
        self.count = count
        self.size = 0

    def add(self, no: int, line: bytes) -> None:
        self.items.append((no, line))
        self.size += len(line)
        while self.items and (len(self.items) > self.count or self.size > _HELD_BYTES):
            self.size -= len(self.items.popleft()[1])


_USAGE_DECODER = json.JSONDecoder()


def _quick_usage(line: bytes) -> tuple[str, dict[str, Any], str | None] | None:
    """(message id, usage, model) of an assistant line as Claude Code writes it, without decoding
    the content (a tool input can be large); None when the line is shaped otherwise."""
    head = line.find(b'"message":{"id":"')
    at = line.rfind(b'"usage":{')  # the message's usage follows its content
    if head < 0 or at < head or line.find(b'"role":"assistant"', head, head + 300) < 0:
        return None
    start = head + len(b'"message":{"id":"')
    end = line.find(b'"', start)
    model_at = line.find(b'"model":"', end, at)
    try:
        usage, _ = _USAGE_DECODER.raw_decode(line[at + len(b'"usage":') :].decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(usage, dict) or end < 0:
        return None
    model = None
    if model_at >= 0:
        m_start = model_at + len(b'"model":"')
        model = line[m_start : line.find(b'"', m_start)].decode("utf-8", "replace")
    return line[start:end].decode("utf-8", "replace"), usage, model


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
                if held is None:
                    rec = _decode(line)
                    if rec is None:
                        update.problems.append((no, "not a JSON object"))
                    else:
                        self._take(rec, no, update)
                elif self._scan(line, no, update):
                    held.add(no, line)  # decoded at the end, if it is still in the window
            if not batch.more or batch.error:
                break
        if held is not None:
            self._settle(held, update)
        if len(update.entries) > self.window:
            del update.entries[: len(update.entries) - self.window]
        return update

    def _scan(self, line: bytes, no: int, update: TranscriptUpdate) -> bool:
        """A first read's pass over one line: count its usage, collect its notices, decode no
        more than that. False when the line cannot be read."""
        if b'"type":"assistant"' in line:
            quick = _quick_usage(line) if b'"type":"user"' not in line else None
            if quick is not None:
                self.stats.count(*quick)
                return True
        elif b'"type":"' in line and b"<teammate-message" not in line:
            return True  # a user or system line as Claude Code writes it: decoded only if it shows
        rec = _decode(line)
        if rec is None:
            update.problems.append((no, "not a JSON object"))
            return False
        if rec.get("type") == "assistant" and isinstance(rec.get("message"), dict):
            msg = rec["message"]
            self.stats.count(msg.get("id"), msg.get("usage"), msg.get("model"))
        self._collect(rec, update)
        return True

    def _settle(self, held: _Held, update: TranscriptUpdate) -> None:
        """End of a first read: decode the lines that fit the window, in file order."""
        for no, line in held.items:
            rec = _decode(line)
            if rec is None:
                update.problems.append((no, "not a JSON object"))
                continue
            self.stats.fold(rec, usage=False)
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
