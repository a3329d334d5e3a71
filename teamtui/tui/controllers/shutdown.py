"""The graceful shutdown of teammates, driven from the dashboard: one controller, two ways.

`LocalShutdown` sends the two-phase requests itself and matches the replies the file feed
brings; `LeadShutdown` hands the team's shutdown to the lead of `teamtui run`/`demo`, whose
progress comes back from the lead's thread. Either way the screen learns of it only through
`ShutdownProgress` messages: nothing here waits on a thread or polls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.store import TeamStore
from teamtui.runtime.shutdown import ShutdownRun
from teamtui.tui.messages import ShutdownProgress

Report = Callable[[ShutdownProgress], Any]  # a post_message: thread-safe
# The runtime's side: Lead.request_shutdown(reason, deadline, on_progress), returns at once.
OnShutdown = Callable[[str, float, Callable[[ShutdownRun | None], None]], None]


class ShutdownController:
    """One shutdown run at a time; `report` receives every change of it."""

    # The change kinds after which `observe` has something to look at.
    watches: frozenset[str] = frozenset({"inbox", "inbox_read"})

    def __init__(self, report: Report):
        self.report = report

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        raise NotImplementedError

    def observe(self) -> None:
        """New inbox messages arrived (the lead-driven run observes them itself)."""

    def close_panes(self, names: list[str]) -> None:
        """Close the panes of teammates still there after the deadline (where a controller offers it)."""

    def stop(self) -> None:
        """The dashboard goes away."""


class LocalShutdown(ShutdownController):
    """The dashboard asks each teammate, matches replies by request id, times the silent out at
    the deadline and writes the results beside the team."""

    def __init__(
        self,
        report: Report,
        store: TeamStore,
        *,
        sender: str,
        clock: Callable[[], float],
        replies: Callable[[], list[InboxMessage]],
        tasks: Callable[[], Iterable[Any]],
        set_timer: Callable[[float, Callable[[], None]], Any],
    ):
        super().__init__(report)
        self.store, self.sender, self.clock = store, sender, clock
        self.replies, self.tasks, self.set_timer = replies, tasks, set_timer
        self.run: ShutdownRun | None = None
        self._timer = None

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        run = ShutdownRun(self.store, targets, sender=self.sender, reason=reason, deadline_seconds=deadline, clock=self.clock)
        run.start()
        self.run = run
        self._timer = self.set_timer(deadline, self._deadline)
        self.observe()

    def observe(self) -> None:
        run = self.run
        if run is None or run.finished_at is not None and run.results_written:
            return
        self._report(run.observe(self.replies()))

    def _deadline(self) -> None:
        run = self.run
        if run is not None:
            # The timer fires at the deadline, whatever the display clock says.
            self._report(run.expire(now=run.deadline_at))

    def _report(self, changed: list[str]) -> None:
        run = self.run
        assert run is not None
        error = ""
        if run.done and not run.results_written and run.finished_at is not None:
            self.stop()
            try:
                run.write_results(list(self.tasks()))
            except Exception as exc:  # noqa: BLE001 - told to the user; the outcomes stand
                error = f"Shutdown result not written: {exc}"
        self.report(ShutdownProgress(run, changed, error))

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None


class LeadShutdown(ShutdownController):
    """The lead owns the team's shutdown (its requests and its ladder): ask it, then follow the
    snapshots it reports from its own thread."""

    def __init__(self, report: Report, on_shutdown: OnShutdown):
        super().__init__(report)
        self.on_shutdown = on_shutdown

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        self.on_shutdown(reason, deadline, self._progress)

    def _progress(self, run: ShutdownRun | None) -> None:
        self.report(ShutdownProgress(run))
