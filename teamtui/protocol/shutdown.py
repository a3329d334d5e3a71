"""The two-phase graceful shutdown of the Teammate API patterns, without any UI.

Phase one sends a `shutdown_request` (with reason and deadline) to each live teammate;
phase two matches replies in the lead's inbox by request id, and a deadline turns
silence into "timed out" so a teammate that never answers never blocks anyone.
The dashboard renders a ShutdownRun; the runtime drives the same object headless.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from teamtui.protocol.models import (
    MemberStatus,
    Message,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownResponse,
    TaskStatus,
)
from teamtui.protocol.store import TeamStore

DEFAULT_DEADLINE_SECONDS = 30.0
DEFAULT_REASON = "phase_complete"


class Outcome(str, Enum):
    REQUESTED = "requested"
    CLEAN = "clean"
    IN_PROGRESS = "in progress"
    ERROR = "error"
    REJECTED = "rejected"
    TIMED_OUT = "timed out"

    @property
    def final(self) -> bool:
        return self is not Outcome.REQUESTED

    @property
    def said(self) -> str:
        """The outcome in a person's words (the value stays the files' and the JSON's)."""
        return said(self.value)


# "in progress" is the wire's word for a teammate that stopped before its work was done; said as
# such, so a summary never uses "in progress" for a teammate and for a task it left.
_SAID = {"in progress": "left work unfinished"}


def said(outcome: str) -> str:
    """An outcome's value (as a summary or a result file holds it) in a person's words."""
    return _SAID.get(outcome, outcome)


@dataclass(slots=True)
class TeammateShutdown:
    name: str
    request_id: str = ""
    outcome: Outcome = Outcome.REQUESTED
    pending_work: list[str] = field(default_factory=list)
    artifacts_committed: bool | None = None
    detail: str = ""
    answered_at: float | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "teammate": self.name,
            "request_id": self.request_id,
            "outcome": self.outcome.value,
            "pending_work": list(self.pending_work),
            "artifacts_committed": self.artifacts_committed,
            "detail": self.detail,
            "answered_at": self.answered_at,
        }


def live_teammates(state: Any, only: str | None = None) -> list[str]:
    """Teammates a shutdown request should go to: members not shut down, never the lead."""
    cfg = state.config
    if cfg is None:
        return []
    names = [m.name for m in cfg.members if m.status != MemberStatus.SHUTDOWN and m.name != state.lead]
    if only is not None:
        names = [n for n in names if n == only]
    return names


_STATUS_OUTCOME = {"clean": Outcome.CLEAN, "in_progress": Outcome.IN_PROGRESS, "error": Outcome.ERROR}


def outcome_of(message: Message) -> tuple[Outcome, TeammateShutdown] | None:
    """What one reply says, in either wire format; None when it is not a shutdown reply.

    A `shutdown_response` without `approve` is an answer, so an agreement (its `status` says how
    it went: `error` is an error); only `approve: false` is a rejection."""
    p = message.payload
    if isinstance(p, ShutdownResponse):
        outcome = _STATUS_OUTCOME.get(str(p.status), Outcome.ERROR) if p.approves else Outcome.REJECTED
        detail = "" if outcome is Outcome.CLEAN else message.content
        if outcome is Outcome.ERROR and not detail:
            detail = f"status {p.status!r}" if p.status != "error" else "reported an error"
        info = TeammateShutdown(
            message.sender, p.request_id, outcome, list(p.pending_work), p.artifacts_committed, detail
        )
        return outcome, info
    if isinstance(p, ShutdownApproved):
        return Outcome.CLEAN, TeammateShutdown(message.sender or p.from_, p.request_id, Outcome.CLEAN)
    if isinstance(p, ShutdownRejected):
        return Outcome.REJECTED, TeammateShutdown(
            message.sender or p.from_, p.request_id, Outcome.REJECTED, detail=p.reason
        )
    return None


def agrees(message: Message) -> bool:
    """Whether a shutdown reply agrees to stop (approved, or answered without a rejection)."""
    found = outcome_of(message)
    return found is not None and found[0] is not Outcome.REJECTED


class ShutdownRun:
    """One graceful shutdown of some teammates; feed it replies and the clock, read its state."""

    note = ""  # what was done on the person's behalf, for the view (a run asked of a lead says what)

    def __init__(
        self,
        store: TeamStore,
        targets: Iterable[str],
        *,
        sender: str,
        reason: str = DEFAULT_REASON,
        deadline_seconds: float = DEFAULT_DEADLINE_SECONDS,
        clock: Callable[[], float] = time.time,
    ):
        self.store: TeamStore | None = store  # None: a run carried out elsewhere, mirrored here (`mirror`)
        self.team = store.name
        self.sender = sender
        self.reason = reason
        self.deadline_seconds = float(deadline_seconds)
        self.clock = clock
        self.teammates: dict[str, TeammateShutdown] = {n: TeammateShutdown(n) for n in targets}
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.results_written: list[str] = []

    @classmethod
    def mirror(
        cls,
        team: str,
        targets: Iterable[str],
        *,
        sender: str,
        reason: str = DEFAULT_REASON,
        deadline_seconds: float = DEFAULT_DEADLINE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> ShutdownRun:
        """A run carried out somewhere else (another machine), its steps copied in as they are told."""
        run = cls.__new__(cls)
        run.store, run.team, run.sender, run.reason, run.clock = None, team, sender, reason, clock
        run.deadline_seconds = float(deadline_seconds)
        run.teammates = {n: TeammateShutdown(n) for n in targets}
        run.started_at = run.finished_at = None
        run.results_written = []
        return run

    # ------------------------------------------------------------------ phase one
    def start(self) -> None:
        """Send one request per teammate; a teammate whose inbox cannot be written is an error, not a stop."""
        assert self.store is not None, "a mirrored run is started where it runs"
        self.started_at = self.clock()
        for t in self.teammates.values():
            try:
                t.request_id = self.store.send_shutdown_request(t.name, self.sender, self.reason, self.deadline_seconds)
            except Exception as exc:  # noqa: BLE001 - reported per teammate, the others still get theirs
                t.outcome = Outcome.ERROR
                t.detail = f"request not sent: {exc}"
                t.answered_at = self.started_at
        self._maybe_finish()

    @property
    def deadline_at(self) -> float:
        return (self.started_at or self.clock()) + self.deadline_seconds

    def remaining(self, now: float | None = None) -> float:
        now = self.clock() if now is None else now
        return max(0.0, self.deadline_at - now)

    # ------------------------------------------------------------------ phase two
    def observe(self, replies: Iterable[Message]) -> list[str]:
        """Match replies by request id, or a reply without one (the patterns' schema) to its
        sender's open request; returns the teammates whose state changed."""
        by_request = {t.request_id: t for t in self.teammates.values() if t.request_id}
        changed = []
        for msg in replies:
            found = outcome_of(msg)
            if found is None:
                continue
            _, info = found
            if info.request_id:
                t = by_request.get(info.request_id)
            else:
                t = self.teammates.get(info.name)
                t = t if t is not None and t.request_id else None  # a request that was never sent is not open
            if t is None or t.outcome.final:
                continue
            t.outcome = info.outcome
            t.pending_work = info.pending_work
            t.artifacts_committed = info.artifacts_committed
            t.detail = info.detail
            t.answered_at = self.clock()
            changed.append(t.name)
        self._maybe_finish()
        return changed

    def expire(self, now: float | None = None) -> list[str]:
        """Past the deadline, every silent teammate is timed out; returns those."""
        now = self.clock() if now is None else now
        if self.started_at is None or now < self.deadline_at:
            return []
        timed_out = []
        for t in self.teammates.values():
            if not t.outcome.final:
                t.outcome = Outcome.TIMED_OUT
                t.detail = f"did not respond within {self.deadline_seconds:g}s"
                timed_out.append(t.name)
        self._maybe_finish()
        return timed_out

    @property
    def done(self) -> bool:
        return all(t.outcome.final for t in self.teammates.values())

    def _maybe_finish(self) -> None:
        if self.done and self.finished_at is None:
            self.finished_at = self.clock()

    # ------------------------------------------------------------------ verification
    def summary(self, tasks: Iterable[Any] = ()) -> dict[str, Any]:
        """The verification summary: each teammate's outcome and pending work, and unfinished tasks."""
        in_progress = [
            {"id": t.id, "subject": t.subject, "owner": t.owner} for t in tasks if t.status == TaskStatus.IN_PROGRESS
        ]
        counts: dict[str, int] = {}
        for t in self.teammates.values():
            counts[t.outcome.value] = counts.get(t.outcome.value, 0) + 1
        return {
            "team": self.team,
            "reason": self.reason,
            "deadline_seconds": self.deadline_seconds,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "teammates": [t.as_dict() for t in self.teammates.values()],
            "outcomes": counts,
            "all_accounted_for": self.done,
            "tasks_in_progress": in_progress,
        }

    def write_results(self, tasks: Iterable[object] = ()) -> list[str]:
        """Native teams keep the result beside the team: `shutdown/<request_id>.json`, one per request."""
        if self.store is None or not self.store.writes_shutdown_results:
            return []
        summary = self.summary(tasks)
        paths = []
        for t in self.teammates.values():
            if t.request_id:
                paths.append(str(self.store.write_shutdown_result(t.request_id, {**t.as_dict(), "run": summary})))
        self.results_written = paths
        return paths
