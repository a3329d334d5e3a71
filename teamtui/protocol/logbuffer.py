"""LogBuffer: one teammate's newest log lines, bounded, cheap for the garbage collector.

A dashboard holds up to 10^5 buffered lines. Each is kept as a plain tuple of atomic values
(time, level, text, line number): CPython stops tracking such a tuple at its first collection, so
the buffers add nothing to the full collections that would otherwise pause the live view. Lines
are handed out as `LogEntry`s, built when read.
"""

from __future__ import annotations

from collections import deque
from itertools import islice

from teamtui.protocol.models import LogEntry, LogLevel

TYPE_CHECKING = False  # not typing's: `teamtui status` and `follow` import this, and typing costs ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import overload

_LEVELS = {level.value: level for level in LogLevel}

Row = tuple  # (ts: float | None, level: str, text: str, line: int | None)


class LogBuffer:
    """The newest `maxlen` lines of `member`'s log. `total` counts every line ever added, so a
    reader can tell which lines are new since it last looked: the line numbered `seq` (from 0) is
    still here while `first <= seq < total`."""

    __slots__ = ("member", "_rows", "total")

    def __init__(self, member: str, maxlen: int):
        self.member = member
        self._rows: deque[Row] = deque(maxlen=maxlen)
        self.total = 0

    @property
    def maxlen(self) -> int:
        return self._rows.maxlen or 0

    @property
    def first(self) -> int:
        """The number of the oldest line still kept."""
        return self.total - len(self._rows)

    def extend(self, entries: Iterable[LogEntry]) -> None:
        # Enum members are tracked objects: the level is kept as its plain string.
        rows = [(e.ts, e.level.value, e.text, e.line) for e in entries]
        self._rows.extend(rows)
        self.total += len(rows)

    def entry(self, seq: int) -> LogEntry:
        """The line numbered `seq` (IndexError once it has been dropped or before it was added)."""
        if not self.first <= seq < self.total:
            raise IndexError(f"log line {seq} is not in the buffer ({self.first}..{self.total - 1})")
        return self._make(self._rows[seq - self.first])

    def since(self, seq: int) -> list[LogEntry]:
        """The lines from number `seq` on (those still kept)."""
        skip = max(0, seq - self.first)
        rows = self._rows
        make = self._make
        if skip > len(rows) // 2:  # the usual call asks for the few newest: walk from the end
            return [make(rows[i]) for i in range(skip - len(rows), 0)]
        return [make(row) for row in islice(rows, skip, None)]

    def _make(self, row: Row) -> LogEntry:
        ts, level, text, line = row
        return LogEntry(self.member, ts, _LEVELS[level], text, line)

    def __len__(self) -> int:
        return len(self._rows)

    def __bool__(self) -> bool:
        return bool(self._rows)

    def __iter__(self) -> Iterator[LogEntry]:
        make = self._make
        return (make(row) for row in self._rows)

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, index: int) -> LogEntry: ...
        @overload
        def __getitem__(self, index: slice) -> list[LogEntry]: ...

    def __getitem__(self, index: int | slice) -> LogEntry | list[LogEntry]:
        if isinstance(index, slice):
            return [self._make(row) for row in list(self._rows)[index]]
        return self._make(self._rows[index])

    def __repr__(self) -> str:
        return f"LogBuffer({self.member!r}, {len(self)}/{self.maxlen} lines, {self.total} seen)"
