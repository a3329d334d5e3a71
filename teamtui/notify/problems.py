"""A channel's failures, told once: a broken command must not raise a toast at every event."""

from __future__ import annotations

import threading
from collections.abc import Callable

Problem = Callable[[str], None]


class OnceReporter:
    """Passes the first failure to `on_problem`, then stays quiet until a success re-arms it."""

    def __init__(self, on_problem: Problem | None) -> None:
        self._on_problem = on_problem
        self._lock = threading.Lock()
        self._reported = False

    def failed(self, problem: str) -> None:
        with self._lock:
            if self._reported:
                return
            self._reported = True
        if self._on_problem is not None:
            self._on_problem(problem)

    def succeeded(self) -> None:
        with self._lock:
            self._reported = False
