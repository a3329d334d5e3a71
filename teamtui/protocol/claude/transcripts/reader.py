"""One teammate's transcript, read from its last offset into a bounded window of entries.

The first read goes through the file once, in chunks. The token sums need every assistant line's
`message.usage`: only its id, model and usage object are decoded (its content, a tool input, can
be large). Other lines (tool results are the bulk of a transcript) are decoded only if they can
still show in the window or carry a teammate's protocol message. Lines of other record types
(API requests, prompt snapshots, attachments) are never decoded. Later reads take only the
complete lines appended since, each decoded once.

A first read can also start from the end (`read_tail`): only the lines the window needs, so a
screen shows them at once. The lines before them (the head) are then counted apart, by
`count_head` in a thread, and added by `take_head`; until then the token sums say nothing.

Every pass also hands on the lead's work-handing calls (Agent, SendMessage: an assistant line
holding one is decoded) and the errors that answer them (`calls`, for assignments.py), and
records in `drift` what the transcript holds that teamtui does not know (known.py): each line's
`version` and leading type are looked at as bytes, the keys of the lines rendered as decoded.
It also hands on the files the teammate changed (`edits`, edits.py): a user line that may answer
a Write, Edit, MultiEdit or NotebookEdit is decoded, in a first read's pass too, and a line too
long to read still tells which file it changed (from its first bytes).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamtui.protocol.claude.transcripts.assignments import CALL_MARKS, Call, calls_in, refusals_in
from teamtui.protocol.claude.transcripts.edits import HEAD_BYTES, edit_from_head, edits_in, may_hold_edit
from teamtui.protocol.claude.transcripts.known import Drift
from teamtui.protocol.claude.transcripts.render import (
    EntryKind,
    Notice,
    Receipt,
    Renderer,
    TranscriptEntry,
    notices_in,
    parse_ts,
    receipts_in,
)
from teamtui.protocol.claude.transcripts.stats import TranscriptStats
from teamtui.protocol.edits import Edit
from teamtui.protocol.fsio import split_glued
from teamtui.protocol.tail import MAX_LINE_BYTES, READ_CHUNK, TailBatch, TailReader

# Entries a panel keeps per teammate.
DEFAULT_WINDOW = 500
# Undecoded user lines held back during a first read, at most (bytes); the window needs no more.
_HELD_BYTES = 8 * 1024 * 1024
# Protocol messages remembered per transcript.
_NOTICES_KEPT = 256
# Ids of the work-handing calls (Agent, SendMessage) remembered, to know which errors answer them.
_CALL_IDS_KEPT = 256
# A first read from the end looks back for the window's first line in steps of this many bytes.
_BACK_STEP = 512 * 1024
# Numbers each start of a reader's first read: a head counted for one is taken by no other.
_GENERATIONS = itertools.count(1)


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
    # The work-handing calls (a lead's Agent and SendMessage) and the errors that answered them.
    calls: list[Call] = field(default_factory=list)
    # The plain messages the member received (its inbox entries, taken).
    receipts: list[Receipt] = field(default_factory=list)
    # The files changed (Write, Edit, MultiEdit, NotebookEdit), their member left "" for the feed to name.
    edits: list[Edit] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.entries or self.reset or self.notices or self.problems or self.calls or self.edits)


@dataclass(slots=True)
class HeadCount:
    """What the lines before a first read from the end say (`count_head`), for `take_head`."""

    generation: int  # the reader's first read it belongs to: a reader that started over since takes none of it
    stats: TranscriptStats  # the head's usage, counted as a first read counts it
    notices: list[Notice]
    lines: int
    problems: list[tuple[int | None, str]]
    calls: list[Call] = field(default_factory=list)
    drift: Drift | None = None  # what the head holds that teamtui does not know
    edits: list[Edit] = field(default_factory=list)  # the files the head's lines changed


def _shown(line: bytes) -> bool:
    # Claude Code writes compact JSON; a line spaced otherwise is decoded to be sure.
    return (
        b'"type":"user"' in line
        or b'"type":"assistant"' in line
        or b'"type":"system"' in line
        or b'"type":"' not in line
    )


def _counted(line: bytes) -> bool:
    # A compact line with no usage, model or teammate message adds nothing to a head's figures.
    return b'"usage"' in line or b'"model"' in line or b"<teammate-message" in line or b'"type":"' not in line


_CALL = re.compile(b"|".join(re.escape(mark) for mark in CALL_MARKS))


def _hands_out(line: bytes) -> bool:
    """The line may hold a lead's Agent or SendMessage call (decoded for the assignments)."""
    return _CALL.search(line) is not None


def _refuses(line: bytes) -> bool:
    """The line may answer a call with an error."""
    return b'"is_error":true' in line or b'"success":false' in line


def _window_start(path: Path, window: int) -> tuple[int, int]:
    """(where the last `window` shown lines begin, the file's size): a line's first byte, 0 for
    the whole file. Reads back from the end in steps, at most _HELD_BYTES (the window keeps no more)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return 0, 0
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return 0, 0
        size = at = pos = st.st_size  # the lines from `at` on are counted; [pos, at) is read next
        shown = lines_seen = 0
        while pos > 0 and size - pos < _HELD_BYTES:
            pos = max(0, pos - _BACK_STEP)
            lines = os.pread(fd, at - pos, pos).split(b"\n")
            at -= len(lines.pop())  # after the last newline: no whole line
            for line in reversed(lines if pos == 0 else lines[1:]):  # the first piece began before `pos`: read again
                at -= len(line) + 1
                lines_seen += 1
                if line.strip() and _shown(line):
                    shown += 1
                    if shown >= window:
                        return at, size
        return (at if pos > 0 and lines_seen else 0), size
    except OSError:
        return 0, 0
    finally:
        os.close(fd)


# What a transcript record carries at its top level (no nested block does): a record glued onto a
# torn line is known by it.
_RECORD_KEYS = ("parentUuid", "sessionId")


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        # A line cut short by a crash is skipped; a record glued onto it is still read.
        glued = split_glued(line, _RECORD_KEYS)
        if glued is None:
            return None
        rec = json.loads(glued[1])
    return rec if isinstance(rec, dict) else None


class _Held:
    """The newest raw lines of a first read: those that may still show in the window."""

    def __init__(self, count: int):
        self.items: deque[tuple[int | None, bytes]] = deque()
        self.count = count
        self.size = 0

    def add(self, no: int | None, line: bytes) -> None:
        self.items.append((no, line))
        self.size += len(line)
        while self.items and (len(self.items) > self.count or self.size > _HELD_BYTES):
            self.size -= len(self.items.popleft()[1])


_USAGE_DECODER = json.JSONDecoder()


def _quick_usage(line: bytes) -> tuple[str, dict[str, object], str | None, float | None] | None:
    """(message id, usage, model, timestamp) of an assistant line as Claude Code writes it, without
    decoding the content (a tool input can be large); None when the line is shaped otherwise."""
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
    return line[start:end].decode("utf-8", "replace"), usage, model, _line_ts(line)


def _line_ts(line: bytes) -> float | None:
    """The record's `timestamp` (Claude Code writes it after the message; a quote inside a string is escaped)."""
    at = line.rfind(b'"timestamp":"')
    if at < 0:
        return None
    start = at + len(b'"timestamp":"')
    return parse_ts(line[start : line.find(b'"', start)].decode("ascii", "replace"))


def _scan(
    line: bytes, no: int | None, stats: TranscriptStats, update: TranscriptUpdate, ids: OrderedDict[str, None]
) -> bool:
    """A first read's pass over one line: count its usage, collect its notices and calls, decode
    no more than that. False when the line cannot be read."""
    if b'"type":"assistant"' in line:
        quick = _quick_usage(line) if b'"type":"user"' not in line else None
        if quick is not None:
            stats.count(*quick)
            if _hands_out(line):
                rec = _decode(line)
                if rec is not None:
                    _collect(rec, update, ids)
            return True
    elif (
        b'"type":"' in line
        and b"<teammate-message" not in line
        and not (ids and _refuses(line))
        and not may_hold_edit(line)
    ):
        return True  # a user or system line as Claude Code writes it: decoded only if it shows
    rec = _decode(line)
    if rec is None:
        update.problems.append((no, "not a JSON object"))
        return False
    if rec.get("type") == "assistant" and isinstance(rec.get("message"), dict):
        msg = rec["message"]
        stats.count(msg.get("id"), msg.get("usage"), msg.get("model"), parse_ts(rec.get("timestamp")))
    _collect(rec, update, ids)
    return True


def _collect(rec: dict[str, object], update: TranscriptUpdate, ids: OrderedDict[str, None]) -> None:
    kind = rec.get("type")
    if kind == "user":
        update.notices.extend(notices_in(rec))
        update.receipts.extend(receipts_in(rec))
        if ids:
            update.calls.extend(refusals_in(rec, ids))
        if "toolUseResult" in rec:
            update.edits.extend(edits_in(rec))
    elif kind == "assistant":
        calls = calls_in(rec)
        for call in calls:
            ids[call.key] = None
            if len(ids) > _CALL_IDS_KEPT:
                ids.popitem(last=False)
        update.calls.extend(calls)


def _overlong_edits(batch: TailBatch, update: TranscriptUpdate) -> None:
    """The edits the lines too long to read were about, from their first bytes."""
    for no, size in batch.overlong:
        head = batch.overlong_heads.get(no)
        edit = edit_from_head(head, size) if head else None
        if edit is not None:
            update.edits.append(edit)


class TranscriptReader:
    """Reads one transcript incrementally. `entries` is the bounded window (oldest first),
    `stats` the teammate's activity, tokens and context, `notices` the protocol messages received."""

    def __init__(self, path: Path, *, window: int = DEFAULT_WINDOW, max_line_bytes: int = MAX_LINE_BYTES):
        self.path = Path(path)
        self.window = window
        self._tail = TailReader(self.path, max_line_bytes=max_line_bytes, keep_head=HEAD_BYTES)
        self._fresh()

    def _fresh(self) -> None:
        self.entries: deque[TranscriptEntry] = deque(maxlen=self.window)
        self.stats = TranscriptStats()
        self.notices: deque[Notice] = deque(maxlen=_NOTICES_KEPT)
        self._renderer = Renderer()
        # What the transcript holds that teamtui does not know (format drift), counted, never dropped silently.
        self.drift = Drift(self.path)
        self._call_ids: OrderedDict[str, None] = OrderedDict()
        self._started = False
        self._generation = next(_GENERATIONS)
        # A first read from the end: where its tail reader started (the head ends with that line).
        self._head_end = 0
        self._head_ident: tuple[int, int] | None = None
        # Added to the tail reader's line numbers for the file's; None until the head is counted.
        self._line_base: int | None = 0

    @property
    def offset(self) -> int:
        return self._tail.offset

    @property
    def bytes_read(self) -> int:
        return self._tail.bytes_read

    @property
    def head_pending(self) -> bool:
        """A first read from the end left a head for `count_head`."""
        return self._head_end > 0

    def read_tail(self) -> TranscriptUpdate:
        """A first read from the end: the lines the window needs, rendered, and their usage
        counted. The head is left to `count_head`: `stats.tokens` says nothing until `take_head`.
        Once the transcript was read, the same as `read`."""
        if self._started:
            return self.read()
        start, size = _window_start(self.path, self.window)
        if start > 0:
            self._tail.seek_tail(size - start + 1)  # on the newline before `start`: the tail skips no line of its own
            if self._tail.offset > 0:
                try:
                    st = os.stat(self.path)
                except OSError:
                    pass  # `read` reports it
                else:
                    self._head_end, self._head_ident = self._tail.offset, (st.st_dev, st.st_ino)
                    self._line_base = None
                    self.stats.without_head()
        return self.read()

    def count_head(self) -> HeadCount | None:
        """Count the usage and collect the notices of the head a first read from the end left.
        Reads the file and changes nothing here: safe in a thread. None when there is no head,
        or the file is no longer the one read."""
        end, generation, ident = self._head_end, self._generation, self._head_ident
        if not end:
            return None
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != ident or st.st_size < end:
                return None
            while True:  # the head ends with the line the tail reader started in (it skipped that line's rest)
                piece = os.pread(fd, 64 * 1024, end)
                nl = piece.find(b"\n")
                if nl >= 0:
                    end += nl + 1
                    break
                if not piece:
                    return None
                end += len(piece)
        except OSError:
            return None
        finally:
            os.close(fd)
        reader = TailReader(self.path, max_line_bytes=self._tail.max_line_bytes, keep_head=HEAD_BYTES)
        stats, update, drift, ids = TranscriptStats(), TranscriptUpdate(), Drift(self.path), OrderedDict[str, None]()
        while reader.offset < end:
            reader.chunk = min(READ_CHUNK, end - reader.offset)
            batch = reader.read()
            if batch.reset or batch.missing or batch.error:
                return None
            update.problems.extend(
                (no, f"line of {size} bytes skipped (over the limit)") for no, size in batch.overlong
            )
            _overlong_edits(batch, update)
            for line, no in zip(batch.lines, batch.line_numbers, strict=True):
                drift.see_line(line, no)
                if _counted(line) or (ids and _refuses(line)) or may_hold_edit(line):
                    _scan(line, no, stats, update, ids)
        return HeadCount(
            generation, stats, update.notices, reader.line_no, update.problems, update.calls, drift, update.edits
        )

    def take_head(self, head: HeadCount) -> bool:
        """Add what `count_head` found: the token sums are then the whole transcript's. False when
        it comes too late (the file was replaced, and read whole, since)."""
        if head.generation != self._generation or not self._head_end:
            return False
        self.stats.add_head(head.stats)
        self.notices = deque([*head.notices, *self.notices], maxlen=_NOTICES_KEPT)
        if head.drift is not None:
            self.drift.merge(head.drift)
        self._line_base = head.lines - 1  # the tail reader's line 1 was the rest of the head's last
        self._head_end, self._head_ident = 0, None
        return True

    def _numbers(self, numbers: list[int]) -> Sequence[int | None]:
        base = self._line_base
        return [None] * len(numbers) if base is None else [n + base for n in numbers] if base else numbers

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
            overlong = self._numbers([no for no, _ in batch.overlong])
            update.problems.extend(
                (no, f"line of {size} bytes skipped (over the limit)")
                for no, (_, size) in zip(overlong, batch.overlong, strict=True)
            )
            _overlong_edits(batch, update)
            self._started = self._started or not batch.missing
            for line, no in zip(batch.lines, self._numbers(batch.line_numbers), strict=True):
                self.drift.see_line(line, no)
                if not _shown(line):
                    continue
                if held is None:
                    rec = _decode(line)
                    if rec is None:
                        update.problems.append((no, "not a JSON object"))
                    else:
                        self._take(rec, no, update)
                elif _scan(line, no, self.stats, update, self._call_ids):
                    held.add(no, line)  # decoded at the end, if it is still in the window
            if not batch.more or batch.error:
                break
        if held is not None:
            self._settle(held, update)
        if len(update.entries) > self.window:
            del update.entries[: len(update.entries) - self.window]
        self.notices.extend(update.notices)
        return update

    def _settle(self, held: _Held, update: TranscriptUpdate) -> None:
        """End of a first read: decode the lines that fit the window, in file order."""
        for no, line in held.items:
            rec = _decode(line)
            if rec is None:
                update.problems.append((no, "not a JSON object"))
                continue
            self.stats.fold(rec, usage=False)
            self.drift.see_record(rec, no)
            new = self._renderer.render(rec, no)
            self.entries.extend(new)
            update.entries.extend(new)

    def _take(self, rec: dict[str, object], no: int | None, update: TranscriptUpdate) -> None:
        self.stats.fold(rec)
        _collect(rec, update, self._call_ids)
        self.drift.see_record(rec, no)
        new = self._renderer.render(rec, no)
        self.entries.extend(new)
        update.entries.extend(new)


__all__ = ["DEFAULT_WINDOW", "EntryKind", "HeadCount", "TranscriptReader", "TranscriptUpdate"]
