"""A teammate's log file (`TeamFiles.teammate_logs`), read on from its last offset into log lines."""

from __future__ import annotations

import json
from pathlib import Path

from teamtui.protocol.errors import ReadError
from teamtui.protocol.fsio import split_glued
from teamtui.protocol.models import LogEntry, LogLevel, normalize_level
from teamtui.protocol.tail import TailReader

# On first load a log is read from at most this far before its end: the buffer keeps only the tail anyway.
LOG_TAIL_BYTES_PER_LINE = 512
# What every `.jsonl` log line carries: a line glued onto a torn one is known by it.
_LOG_KEYS = ("ts", "level")


class TeamLog:
    """One teammate's log file (`<member>.jsonl` or `.log`), read on from its last offset."""

    def __init__(self, path: Path, limit: int, *, initial: bool):
        self.path = path
        self.member = path.name.rsplit(".", 1)[0]
        self.limit = limit
        self.tail = TailReader(path)
        if initial:
            self.tail.seek_tail(limit * LOG_TAIL_BYTES_PER_LINE)

    def read(self) -> tuple[list[LogEntry], list[ReadError], bool]:
        """The new lines (no more than the buffer keeps), what is wrong, and whether the errors
        replace those reported (a read that found nothing new keeps them)."""
        batch = self.tail.read_all()
        errors = batch.read_errors(self.path)
        keep = self.limit
        entries = [
            log_entry(self.member, self.path, line, no)
            for line, no in zip(batch.lines[-keep:], batch.line_numbers[-keep:], strict=True)
        ]
        return entries, errors, bool(errors or entries or batch.reset or batch.missing)


def log_entry(member: str, path: Path, line: bytes, no: int) -> LogEntry:
    text = line.decode("utf-8", errors="replace").rstrip("\r")
    # str(path) is cached by pathlib, path.suffix is not: this runs for every line of every log.
    if text.startswith("{") and str(path).endswith(".jsonl"):
        try:
            d = json.loads(text)
        except (ValueError, RecursionError):
            glued = split_glued(line, _LOG_KEYS)  # a line cut short, with the next one glued on
            d = json.loads(glued[1]) if glued else None
        if isinstance(d, dict):
            ts = d.get("ts")
            body = d.get("text", d.get("message", ""))
            try:
                when = float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None
            except OverflowError:  # an int too large for a float (e.g. 10**400)
                when = None
            return LogEntry(
                member=member,
                ts=when,
                level=normalize_level(d.get("level")),
                text=body if isinstance(body, str) else str(body),
                line=no,
            )
    return LogEntry(member=member, ts=None, level=LogLevel.INFO, text=text, line=no)
