"""Shutdown requests handed to a running lead (`teamtui shutdown` while `teamtui run` leads):
a `shutdown_request` in the lead's own inbox, with the CLI's request id, reason, deadline and
the teammates it names (none: the whole team).

The whole team goes through the lead's own shutdown; some teammates get a run of their own
here. Either way the summary lands in `shutdown/<request id>.json`, which `--wait` waits for.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from teamtui.protocol.models import Message
from teamtui.protocol.names import is_safe_name
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.shutdown import DEFAULT_DEADLINE_SECONDS, DEFAULT_REASON, ShutdownRun, TeammateShutdown

MAX_DEADLINE = 24 * 3600.0


@dataclass(slots=True)
class ShutdownAsk:
    request_id: str
    sender: str
    reason: str = DEFAULT_REASON
    deadline: float = DEFAULT_DEADLINE_SECONDS
    teammates: list[str] = field(default_factory=list)


def parse_ask(msg: Message) -> ShutdownAsk | None:
    """The ask a `shutdown_request` to the lead carries; None when it names no usable request id."""
    raw = msg.raw
    rid = raw.get("request_id")
    if not isinstance(rid, str) or not is_safe_name(rid):
        return None
    reason = raw.get("reason")
    deadline = raw.get("deadline_seconds")
    names = raw.get("teammates")
    return ShutdownAsk(
        rid,
        msg.sender,
        reason if isinstance(reason, str) and reason else DEFAULT_REASON,
        _deadline(deadline),
        [n for n in names if isinstance(n, str)] if isinstance(names, list) else [],
    )


def _deadline(v: object) -> float:
    """A request's deadline in seconds: a number from 0 to MAX_DEADLINE, else the default."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= MAX_DEADLINE:
        return float(v)
    return DEFAULT_DEADLINE_SECONDS


class Asks:
    """The asks a lead is answering: whole-team ones wait for the team's summary; the others
    are shutdown runs of their own, one per ask."""

    def __init__(self, store: NativeTeam, sender: str):
        self.store = store
        self.sender = sender
        self.team_asks: list[ShutdownAsk] = []
        self.runs: list[tuple[ShutdownAsk, ShutdownRun]] = []

    def start_run(self, ask: ShutdownAsk, names: list[str]) -> ShutdownRun:
        run = ShutdownRun(self.store, names, sender=self.sender, reason=ask.reason, deadline_seconds=ask.deadline)
        run.start()
        self.runs.append((ask, run))
        return run

    def observe(self, replies: Iterable[Message]) -> list[TeammateShutdown]:
        """Feed replies to the open runs; returns the teammates whose answer arrived."""
        replies = list(replies)
        answered = []
        for _ask, run in self.runs:
            for name in run.observe(replies):
                answered.append(run.teammates[name])
        return answered

    def expire(self, now: float | None = None) -> list[TeammateShutdown]:
        now = time.time() if now is None else now
        out = []
        for _ask, run in self.runs:
            out += [run.teammates[n] for n in run.expire(now)]
        return out

    def next_deadline(self) -> float | None:
        due = [run.deadline_at for _ask, run in self.runs if not run.done]
        return min(due) if due else None

    def settle(self, tasks: list[object]) -> list[ShutdownRun]:
        """Write the summary of every run that is done and forget it; returns those runs."""
        done = [(a, r) for a, r in self.runs if r.done]
        for ask, run in done:
            run.write_results(tasks)
            self.store.write_shutdown_result(ask.request_id, {"run": run.summary(tasks)})
        self.runs = [(a, r) for a, r in self.runs if not r.done]
        return [r for _a, r in done]

    def finish_team(self, summary: dict[str, object] | None) -> None:
        """The team's shutdown is over: every whole-team ask gets its summary."""
        if summary is None:  # no teammate was running: nobody left to ask
            summary = {
                "team": self.store.name,
                "teammates": [],
                "outcomes": {},
                "all_accounted_for": True,
                "tasks_in_progress": [],
            }
        for ask in self.team_asks:
            self.store.write_shutdown_result(ask.request_id, {"run": summary})
        self.team_asks = []
