"""LogBuffer: a teammate's newest log lines, bounded, numbered, and free for the garbage collector."""

from __future__ import annotations

import gc
from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.models import LogEntry, LogLevel


def entry(i: int, level: LogLevel = LogLevel.INFO) -> LogEntry:
    return LogEntry("ann", ts=1_700_000_000.0 + i, level=level, text=f"line {i}", line=i + 1)


def test_keeps_the_newest_lines_and_numbers_them():
    buf = LogBuffer("ann", 3)
    buf.extend([entry(i) for i in range(5)])
    assert [e.text for e in buf] == ["line 2", "line 3", "line 4"]
    assert (buf.first, buf.total, len(buf)) == (2, 5, 3)
    assert buf.entry(4) == entry(4) and buf[-1] == entry(4) and buf[0] == entry(2)
    assert [e.text for e in buf.since(3)] == ["line 3", "line 4"]
    assert [e.text for e in buf.since(0)] == ["line 2", "line 3", "line 4"], "dropped lines are not invented"
    assert buf.since(5) == []
    with pytest.raises(IndexError):
        buf.entry(1)  # dropped
    with pytest.raises(IndexError):
        buf.entry(5)  # not written yet


def test_hands_back_what_was_put_in():
    buf = LogBuffer("ann", 10)
    lines = [
        entry(0, LogLevel.ERROR),
        LogEntry("ann", None, LogLevel.DEBUG, "no time", None),
        entry(2, LogLevel.WARNING),
    ]
    buf.extend(lines)
    assert list(buf) == lines and buf[1:] == lines[1:]
    assert all(isinstance(e.level, LogLevel) for e in buf)


def test_buffered_lines_are_not_tracked_by_the_garbage_collector():
    """10^5 buffered lines must not lengthen CPython's full collections (they paused the dashboard)."""
    buf = LogBuffer("ann", 1000)
    buf.extend([entry(i, LogLevel.WARNING) for i in range(1000)])
    gc.collect()
    assert not any(gc.is_tracked(row) for row in buf._rows)


@given(st.integers(1, 20), st.lists(st.integers(0, 30), max_size=20))
def test_matches_a_plain_bounded_list(maxlen, batches):
    buf, ref, n = LogBuffer("ann", maxlen), deque(maxlen=maxlen), 0
    for size in batches:
        lines = [entry(n + i) for i in range(size)]
        n += size
        buf.extend(lines)
        ref.extend(lines)
        assert list(buf) == list(ref) and buf.total == n and buf.first == n - len(ref)
        for seq in range(max(0, n - maxlen - 2), n + 1):
            assert buf.since(seq) == list(ref)[max(0, seq - buf.first) :]
