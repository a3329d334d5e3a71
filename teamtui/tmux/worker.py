"""PaneWorker: one daemon thread running the panes' tmux work in order, off the caller's thread.

A job submitted under a key that is already queued (and not yet started) is not queued again:
ten syncs in a burst cost one pass over the newest specs.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable


class PaneWorker:
    def __init__(self, name: str, on_error: Callable[[BaseException], None]):
        self.name = name
        self.on_error = on_error
        self._jobs: deque[tuple[str | None, Callable[[], None]]] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._busy = False
        self._stopped = False

    def submit(self, job: Callable[[], None], key: str | None = None) -> bool:
        """Queue `job`; False once stopped."""
        with self._cond:
            if self._stopped:
                return False
            if key is None or all(k != key for k, _ in self._jobs):
                self._jobs.append((key, job))
            if self._thread is None:
                # Daemon: a tmux call that never returns must not keep the program from exiting.
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return True

    def stop(self) -> None:
        """Drop the queued jobs and end the thread after the job it is running."""
        with self._cond:
            self._stopped = True
            self._jobs.clear()
            self._cond.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job is queued or running; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._jobs or self._stopped)
                if self._stopped:
                    self._busy = False
                    self._cond.notify_all()
                    return
                _, job = self._jobs.popleft()
                self._busy = True
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - one failed tmux job must not end the worker
                self.on_error(exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
