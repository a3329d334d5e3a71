"""The Notifier: which events reach the channels. One per (host, team, kind) every 30 s, none
while muted, and a channel that fails never stops the others or the caller."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from teamtui.notify.events import NotifyEvent, NotifyKind
from teamtui.notify.problems import OnceReporter, Problem

RATE_INTERVAL = 30.0  # seconds between two notifications of one kind for one team
# Past this many remembered (host, team, kind) keys, the ones older than the interval go.
_PRUNE_AT = 512


class Sink(Protocol):
    """A channel. `send` must return at once: slow work belongs on the sink's own thread."""

    def send(self, event: NotifyEvent) -> None: ...


class Notifier:
    """`notify(event)` from any thread; `mute(seconds)` silences every channel until then.
    `clock` gives epoch seconds (injectable for tests); `muted_until` is on that clock."""

    def __init__(
        self,
        sinks: Sequence[Sink] = (),
        *,
        interval: float = RATE_INTERVAL,
        clock: Callable[[], float] = time.time,
        on_problem: Problem | None = None,
    ) -> None:
        self.sinks = tuple(sinks)
        self.interval = interval
        self._clock = clock
        self._reporters = [OnceReporter(on_problem) for _ in self.sinks]
        self._lock = threading.Lock()
        self._last: dict[tuple[str, str, NotifyKind], float] = {}
        self._muted_until = 0.0

    @property
    def muted_until(self) -> float | None:
        """When the mute ends (epoch seconds on the clock), or None when not muted."""
        with self._lock:
            return self._muted_until if self._muted_until > self._clock() else None

    def mute(self, seconds: float) -> float:
        """Silence every channel for `seconds` from now (replacing any mute); returns its end."""
        with self._lock:
            self._muted_until = self._clock() + max(0.0, seconds)
            return self._muted_until

    def unmute(self) -> None:
        with self._lock:
            self._muted_until = 0.0

    def notify(self, event: NotifyEvent) -> bool:
        """Send `event` through every channel unless muted or rate-limited; True when sent."""
        event = event.cleaned()
        key = (event.host, event.team, event.kind)
        with self._lock:
            now = self._clock()
            if now < self._muted_until:
                return False
            last = self._last.get(key)
            # A budget crossing is said once by its own rule (protocol/budgets.py): two of one team
            # (its budget and a teammate's) must both get through.
            if last is not None and now - last < self.interval and event.kind != NotifyKind.BUDGET:
                return False
            self._last[key] = now
            if len(self._last) > _PRUNE_AT:
                self._last = {k: t for k, t in self._last.items() if now - t < self.interval}
        for sink, reporter in zip(self.sinks, self._reporters, strict=True):
            try:
                sink.send(event)
            except Exception as exc:  # noqa: BLE001 - one broken channel must not silence the rest
                reporter.failed(f"notification through {type(sink).__name__} failed: {exc}")
            else:
                reporter.succeeded()
        return True

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every channel has handled what it was sent (e.g. before exit, so a command
        gets the last events); False when `timeout` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for sink in self.sinks:
            wait = getattr(sink, "wait_idle", None)
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if wait is not None and not wait(left):
                return False
        return True

    def close(self) -> None:
        """Stop the channels' threads (events not yet run are dropped)."""
        for sink in self.sinks:
            close = getattr(sink, "close", None)
            if close is not None:
                close()
