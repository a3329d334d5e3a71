"""Measuring hooks around the real dashboard, without changing it.

BenchTUI is TeamTUI plus three probes:
  * every frame the compositor hands to the terminal driver (`App._display`) is scanned for
    awaited tokens: a change "shows" at the moment the first frame containing its text is
    ready to be written to the terminal;
  * the time spent in the feed on each batch (`TeamTUI.on_batch`: reading the changed files,
    then updating the widgets);
  * the log entries the feed handled, with their write time (the writer puts it in "ts").
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from pathlib import Path

from textual._compositor import ChopsUpdate, LayoutUpdate

from teamtui.tui.app import TeamTUI


def frame_text(renderable) -> str:
    """The plain text of one compositor update, a line per screen row (partial rows included)."""
    lines: list[str] = []
    if isinstance(renderable, LayoutUpdate):
        for line in renderable.strips:
            lines.append("".join(strip.text for strip in line))
    elif isinstance(renderable, ChopsUpdate):
        for chops in renderable.chops:
            lines.append("".join(strip.text for strip in chops.values() if strip is not None))
    return "\n".join(lines)


def proc_cpu_seconds() -> float:
    """user + system CPU time of this process (all threads), from /proc/self/stat."""
    with open("/proc/self/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    # After the ")" the fields start at 3 (state); utime is 14 and stime 15.
    ticks = int(fields[11]) + int(fields[12])
    return ticks / _CLK_TCK


def rss_mb() -> tuple[float, float]:
    """(current RSS, peak RSS) in MB from /proc/self/status."""
    cur = peak = 0.0
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return cur, peak


import os as _os  # noqa: E402

_CLK_TCK = _os.sysconf("SC_CLK_TCK")


class BenchTUI(TeamTUI):
    # CSS_PATH is resolved against the defining class's module: point at the dashboard's own.
    CSS_PATH = str(Path(inspect.getfile(TeamTUI)).with_name("app.tcss"))

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.created_at = time.time()
        self.opened_at: float | None = None
        self.first_full_frame: float | None = None
        self.frames = 0
        self._awaited: dict[str, asyncio.Future[float]] = {}
        self._frame_waiters: list[asyncio.Future[float]] = []
        self._close_waiters: list[asyncio.Future[float]] = []
        # (seconds reading files, seconds in apply_changes, task changes) per feed batch
        self.batches: list[tuple[float, float, int]] = []
        self.on_log_entries: Callable[[str, list, float], None] | None = None
        self.on_close_filter: Callable[[float], None] | None = None
        self._display = self._probe_display  # type: ignore[method-assign]
        self.on_batch = self._batch_handled  # the app's own hook: no private method wrapped

    def _opened(self) -> None:
        """The team's dashboard has its session (the one route opens it from the fleet's first look):
        from now on frames count, and the filter's close is probed."""
        self.opened_at = time.time()
        dashboard = self.dashboard
        assert dashboard is not None
        close_filter = dashboard.task_filter.close  # the dashboard's own, then the probe's bookkeeping

        def closed(clear: bool) -> None:
            close_filter(clear)
            self._filter_closed()

        dashboard.task_filter.close = closed  # type: ignore[method-assign]

    # ------------------------------------------------------------ frames
    def expect(self, token: str) -> asyncio.Future[float]:
        fut = asyncio.get_running_loop().create_future()
        self._awaited[token] = fut
        return fut

    def next_frame(self) -> asyncio.Future[float]:
        fut = asyncio.get_running_loop().create_future()
        self._frame_waiters.append(fut)
        return fut

    def _probe_display(self, screen, renderable) -> None:
        t = time.time()
        if self.opened_at is None and self.dashboard is not None and self.dashboard.session is not None:
            self._opened()
        if renderable is not None:
            self.frames += 1
            if self.first_full_frame is None and self.opened_at is not None:
                self.first_full_frame = t
            if self._frame_waiters:
                for fut in self._frame_waiters:
                    if not fut.done():
                        fut.set_result(t)
                self._frame_waiters.clear()
            if self._awaited:
                text = frame_text(renderable)
                for token in [k for k in self._awaited if k in text]:
                    fut = self._awaited.pop(token)
                    if not fut.done():
                        fut.set_result(t)
        TeamTUI._display(self, screen, renderable)

    # ------------------------------------------------------------ feed time
    def _batch_handled(self, changes, read_s: float, widgets_s: float) -> None:
        tasks = sum(1 for c in changes if c.kind == "task")
        self.batches.append((read_s, widgets_s, tasks))
        if self.on_log_entries is not None:
            now = time.time()
            for c in changes:
                if c.kind == "log":
                    self.on_log_entries(c.key, c.entries, now)

    def frame_after_close(self) -> asyncio.Future[float]:
        """Resolved at the first frame drawn after the next close_filter (registered before the key
        is sent: a waiter registered after close_filter ran could miss that frame and get a later one)."""
        fut = asyncio.get_running_loop().create_future()
        self._close_waiters.append(fut)
        return fut

    def _filter_closed(self) -> None:
        self._frame_waiters.extend(self._close_waiters)
        self._close_waiters.clear()
        if self.on_close_filter is not None:
            self.on_close_filter(time.time())
