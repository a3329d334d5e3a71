"""A task's failures as the runtime's teammates see them: one count for the whole project, kept by
protocol/outcomes.py in the task's metadata (`failure_count`, `last_failure`, `blocked_reason`).
A task held after max_failures waits for a person (`teamtui task retry ID`): the board shows it
blocked, so no teammate claims it and the lead assigns it to nobody (cw-dispatch's escalation)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from teamtui.protocol import outcomes
from teamtui.protocol.board import Board
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.taskmeta import DEFAULT_MAX_FAILURES, LAST_FAILURE, failure_count, held_reason

if TYPE_CHECKING:
    from teamtui.protocol.store import TeamStore

MAX_FAILURES = DEFAULT_MAX_FAILURES


def failures(team: TeamStore, task_id: str) -> int:
    task = team.get_task(task_id)
    return failure_count(task) if isinstance(task, Task) else 0  # a task file that does not read counts none


def record_failure(team: TeamStore, task_id: str, reason: str) -> int:
    """Count one failure of `task_id` and give it back to the board; returns the count."""
    return outcomes.record_failure(team, task_id, reason).count


def ready_to_try(team: TeamStore) -> list[Task]:
    """The board's ready tasks, in order (a held task is blocked on the board, so it is not among them)."""
    tasks, _ = team.list_tasks()
    return Board(tasks).ready()


def given_up(team: TeamStore, tasks: Iterable[Task]) -> dict[str, str]:
    """The unfinished tasks among `tasks` held after too many failures: id → why, for a person to read."""
    out = {}
    for t in tasks:
        if t.status != TaskStatus.COMPLETED and held_reason(t):
            last = t.metadata.get(LAST_FAILURE, "") if isinstance(t.metadata, dict) else ""
            n = failure_count(t)
            out[t.id] = f"#{t.id} {t.subject} failed {n} time{'s' if n != 1 else ''} (last: {last or '?'})"
    return out


__all__ = ["MAX_FAILURES", "failures", "given_up", "ready_to_try", "record_failure"]
