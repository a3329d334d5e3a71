"""CPython's full garbage collections, moved to moments when nobody is typing.

A full collection scans every tracked object: 20-100 ms for a busy dashboard (~80 k objects,
most of them Textual's rendered rows). Started by the allocator, it lands anywhere, and one in
a key press made that key press late. CPython starts one after `threshold2` young (generation 1)
collections; this collector counts those itself and runs the full collection when no key or
click came in the last QUIET_AFTER seconds, or, if the user keeps typing, once FORCE_AFTER young
collections have passed. No allocation, no young collection, no work: an idle dashboard costs
nothing more.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# Young generations larger than CPython's (700, 10): fewer, still short, young collections.
YOUNG_THRESHOLDS = (2000, 20)
# CPython's own threshold2: a full collection is due after this many generation-1 collections ...
DUE_AFTER = 10
# ... and run once no key or click came for this long ...
QUIET_AFTER = 0.4
# ... or, while the user keeps typing, after this many (memory must not grow without bound).
FORCE_AFTER = 4 * DUE_AFTER
# The allocator's own threshold2 while this collector runs: never reached before FORCE_AFTER.
_NEVER = 1_000_000


class QuietCollector:
    """Owns CPython's full collections while a dashboard runs; `stop()` gives them back."""

    def __init__(self, loop: asyncio.AbstractEventLoop, clock: Callable[[], float] = time.monotonic):
        self.loop = loop
        self.clock = clock
        self.full_collections = 0  # run by this collector
        self._young = 0  # generation-1 collections since the last full one
        self._last_input = float("-inf")
        self._scheduled = False
        self._saved: tuple[int, int, int] | None = None

    def start(self) -> None:
        if self._saved is not None:
            return
        self._saved = gc.get_threshold()
        have = self._saved
        # Raise, never lower, what the process already set (the lead of `teamtui run` shares it).
        gc.set_threshold(max(have[0], YOUNG_THRESHOLDS[0]), max(have[1], YOUNG_THRESHOLDS[1]), _NEVER)
        gc.callbacks.append(self._on_gc)

    def stop(self) -> None:
        if self._saved is None:
            return
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        gc.set_threshold(*self._saved)
        self._saved = None

    def loaded(self) -> None:
        """Many teams were just read (a source's first screen): what they hold lives as long as the
        room, so it is collected once now and frozen; a full collection never scans it again (at a
        thousand teams, a few hundred ms each, in the middle of whatever the person waits for)."""
        if self._saved is None:
            return
        gc.collect()
        gc.freeze()
        self._young = 0

    def user_input(self) -> None:
        """A key or a click: the user is there, a pause now would be felt."""
        self._last_input = self.clock()

    def _on_gc(self, phase: str, info: dict) -> None:
        # Runs in whichever thread allocated (the watcher's, the lead's): hand over to the loop.
        if phase != "stop":
            return
        if info["generation"] == 2:
            self._young = 0
        elif info["generation"] == 1:
            self._young += 1
            if self._young in (DUE_AFTER, FORCE_AFTER):
                try:
                    self.loop.call_soon_threadsafe(self._collect_when_quiet)
                except RuntimeError:  # the loop is closed: the app is gone
                    pass

    def _collect_when_quiet(self) -> None:
        if self._saved is None or self._young < DUE_AFTER:
            return  # stopped, or collected meanwhile
        wait = self._last_input + QUIET_AFTER - self.clock()
        if wait > 0 and self._young < FORCE_AFTER:
            if not self._scheduled:
                self._scheduled = True
                self.loop.call_later(wait, self._recheck)
            return
        gc.collect()
        self.full_collections += 1

    def _recheck(self) -> None:
        self._scheduled = False
        self._collect_when_quiet()


@contextmanager
def first_load() -> Iterator[None]:
    """Around a dashboard's first load: it makes ~10^6 objects and no cycles, so a collection
    would only rescan them; what it read lives as long as the view, so it is frozen after."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
    gc.freeze()
