"""A small blocking file watch for a thread or a CLI loop: changes under some paths, from the
moment the watch is made. watchfiles' `watch()` sets its watch up only once iterated, so a change
between "read what is there" and "wait for more" could be missed; here the watch is in place
before the caller reads, and every change after that wakes it (inotify; no polling of files).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

# What watchfiles.watch drives; pinned watchfiles 1.3 (protocol/watch.py drives it too).
from watchfiles._rust_notify import RustNotify

DEBOUNCE_MS = 30
STEP_MS = 10
# How often the Rust loop hands back to check the stop event when nothing happens (not a file poll).
IDLE_MS = 5_000


class FileWatch:
    def __init__(self, *paths: Path, recursive: bool = False):
        self._notify = RustNotify([str(p) for p in paths], False, False, 300, recursive, False)
        self.stop = threading.Event()

    def changes(self, *, debounce_ms: int = DEBOUNCE_MS, step_ms: int = STEP_MS) -> Iterator[set[str]]:
        """The paths changed, batch by batch, until `stop` is set (or an interrupt). It may be
        called again after the caller left a loop over it; the owner closes the watch."""
        while not self.stop.is_set():
            raw = self._notify.watch(debounce_ms, step_ms, IDLE_MS, self.stop)
            if isinstance(raw, str):  # "stop", "signal" or "timeout"
                if raw == "timeout":
                    continue
                return
            yield {path for _change, path in raw}

    def close(self) -> None:
        self.stop.set()
        self._notify.close()

    def __enter__(self) -> FileWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
