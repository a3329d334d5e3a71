"""A task's failures, counted where any round of the board can take them over: in the task's
sidecar (.tasks/.teamtui/<id>.json) as `failures` and `failure_reason`. A task that failed
MAX_FAILURES times waits for a person: no per-task teammate runs it and the lead assigns it
to nobody (cw-dispatch's error escalation)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from teamtui.protocol.board import Board
from teamtui.protocol.models import Task

MAX_FAILURES = 3


def failures(team: Any, task_id: str) -> int:
    side = team.read_sidecar(task_id)
    n = side.get("failures", 0) if isinstance(side, dict) else 0
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0


def failure_reason(team: Any, task_id: str) -> str:
    side = team.read_sidecar(task_id)
    reason = side.get("failure_reason", "") if isinstance(side, dict) else ""
    return reason if isinstance(reason, str) else ""


def record_failure(team: Any, task_id: str, reason: str) -> int:
    """Count one failure of `task_id` and give it back to the board; returns the count."""
    n = failures(team, task_id) + 1
    team.update_task(task_id, failures=n, failure_reason=reason[:500])
    team.release_task(task_id)
    return n


def ready_to_try(team: Any, limit: int = MAX_FAILURES) -> list[Task]:
    """The board's ready tasks, in order, without those that failed `limit` times."""
    tasks, _ = team.list_tasks()
    return [t for t in Board(tasks).ready() if failures(team, t.id) < limit]


def given_up(team: Any, tasks: Iterable[Task], limit: int = MAX_FAILURES) -> dict[str, str]:
    """The unfinished tasks among `tasks` that failed `limit` times: id → why, for a person to read."""
    out = {}
    for t in tasks:
        if t.status.value != "completed" and failures(team, t.id) >= limit:
            out[t.id] = f"#{t.id} {t.subject} failed {failures(team, t.id)} times (last: {failure_reason(team, t.id) or '?'})"
    return out


__all__ = ["MAX_FAILURES", "failure_reason", "failures", "given_up", "ready_to_try", "record_failure"]
