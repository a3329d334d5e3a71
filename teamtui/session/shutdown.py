"""Shutting teammates down on behalf of whoever watches a team: one controller per run, chosen by
TeamSession.shutdown from what the team's store can do. Every path reports `ShutdownNews` through one
callable (a UI posts it as a message); nothing here waits on a thread or polls.

- LocalShutdown   this process sends the two-phase requests and matches the replies itself
- LeadShutdown    the lead of this process (`teamtui run`/`demo`) climbs its own ladder
- AskRunningLead  a teamtui lead in another process runs the team: it is asked, as
                  `teamtui shutdown` asks it, never written around
- AskLeadShutdown (lead_asked.py) the store says `shutdown_via_lead` (Claude Code): its lead is
                  asked in a plain message, and the files are followed
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from teamtui.protocol.changes import Change, ChangeKind
from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.shutdown import ShutdownRun
from teamtui.protocol.store import RunsLead, TeamStore


class Stoppable(Protocol):
    """A timer a SetTimer started (a Textual Timer, a threading.Timer's wrapper)."""

    def stop(self) -> None: ...


SetTimer = Callable[[float, Callable[[], None]], Stoppable]
# Runs `work` off the caller's loop (a UI's thread worker), then `done(result)` back on it.
Background = Callable[[Callable[[], Any], Callable[[Any], None]], None]
# The runtime's side: Lead.request_shutdown(reason, deadline, on_progress), returns at once.
OnShutdown = Callable[[str, float, Callable[[ShutdownRun | None], None]], None]


@dataclass
class ShutdownNews:
    """A shutdown run as it stands (None: the lead did not start one), and what to tell about it."""

    run: ShutdownRun | None
    changed: list[str] = field(default_factory=list)  # teammates whose outcome changed, to announce
    error: str = ""  # what went wrong along the way
    # Teammates still there whose tmux panes may be closed (name -> pane), to offer the person.
    offer_panes: dict[str, str] = field(default_factory=dict)
    offer_title: str = ""  # the offer's own words, when not the deadline's
    offer_why: str = ""
    asked: str = ""  # a lead elsewhere was asked to do it: what was asked (no run to follow here)
    changes: list[Change] = field(default_factory=list)  # the team's changes the controller caused

    @property
    def routine(self) -> bool:
        """Only a newer snapshot: nothing to announce, safe to drop for the next one."""
        return not (self.changed or self.error or self.offer_panes or self.asked or self.changes)


Report = Callable[[ShutdownNews], object]  # thread-safe (a UI's post_message)


class ShutdownController:
    """One shutdown run at a time; `report` receives every change of it."""

    # The change kinds after which `observe` has something to look at.
    watches: frozenset[ChangeKind] = frozenset({ChangeKind.INBOX, ChangeKind.INBOX_READ})
    run: ShutdownRun | None = None

    def __init__(self, report: Report):
        self.report = report

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        raise NotImplementedError

    def observe(self) -> None:
        """New inbox messages arrived (a lead-driven run observes them itself)."""

    def close_panes(self, names: list[str]) -> None:
        """Close the panes of teammates still there after the deadline (where a controller offers it)."""

    def panes_seen(self, open_panes: set[str] | None) -> None:
        """What a look at the team's tmux panes found (where a controller asked for one)."""

    def stop(self) -> None:
        """Whoever watched goes away."""


class LocalShutdown(ShutdownController):
    """This process asks each teammate, matches replies by request id, times the silent out at
    the deadline and writes the results beside the team."""

    def __init__(
        self,
        report: Report,
        store: TeamStore,
        *,
        sender: str,
        clock: Callable[[], float],
        replies: Callable[[], list[InboxMessage]],
        tasks: Callable[[], Iterable[object]],
        set_timer: SetTimer,
    ):
        super().__init__(report)
        self.store, self.sender, self.clock = store, sender, clock
        self.replies, self.tasks, self.set_timer = replies, tasks, set_timer
        self._timer: Stoppable | None = None

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        run = ShutdownRun(
            self.store, targets, sender=self.sender, reason=reason, deadline_seconds=deadline, clock=self.clock
        )
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
        if self.run is not None:
            # The timer fires at the deadline, whatever the display clock says.
            self._report(self.run.expire(now=self.run.deadline_at))

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
        self.report(ShutdownNews(run, changed, error))

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
        self.run = run
        self.report(ShutdownNews(run))


class AskRunningLead(ShutdownController):
    """A teamtui lead in another process runs this team: ask it (it writes the summary), rather
    than write shutdown requests in its name and race its drain for the replies."""

    def __init__(self, report: Report, store: RunsLead, *, sender: str, pid: int, only: str | None):
        super().__init__(report)
        self.store, self.sender, self.pid, self.only = store, sender, pid, only

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        request = self.store.ask_running_lead(self.sender, reason, deadline, [self.only] if self.only else [])
        who = self.only or "the team"
        self.report(
            ShutdownNews(
                None,
                asked=f"Asked the lead (pid {self.pid}) to shut down {who}; "
                f"it writes the summary to shutdown/{request}.json",
            )
        )
