"""How a task ends for its owner: completed (only by whoever holds it), or failed and back on the
board, counted, and held after `max_failures` (cw-dispatch's error escalation) until retried.

`record_failure` is the one call for every failure: a crash, a disappearance, `teamtui task fail`,
a per-task teammate's non-zero exit. Counts live in the task's metadata (see taskmeta).
"""

from __future__ import annotations

import time

from teamtui.protocol.errors import ConflictError, UnsupportedError
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.record import FrozenRecord, init_field
from teamtui.protocol.store import TeamStore
from teamtui.protocol.taskmeta import (
    BLOCKED_BY,
    BLOCKED_REASON,
    DEFAULT_MAX_FAILURES,
    FAILURE_COUNT,
    LAST_FAILURE,
    RELEASED_FROM,
    failure_count,
    held_reason,
    released_from,
)

TYPE_CHECKING = False  # not typing's: `teamtui task complete` imports this, and typing costs ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_REASON = 500  # a reason is shown on one board line


class Failure(FrozenRecord):
    __slots__ = ("task", "count", "held", "previous_owner")
    task: Task
    count: int
    held: bool  # this failure reached max_failures: the task is off the board until retried
    previous_owner: str

    def __init__(self, task: Task, count: int, held: bool, previous_owner: str):
        init_field(self, "task", task)
        init_field(self, "count", count)
        init_field(self, "held", held)
        init_field(self, "previous_owner", previous_owner)


def team_max_failures(store: TeamStore) -> int:
    """The team's max_failures: the lead writes its team file's into the config; else the default (3)."""
    cfg = store.load_config()
    n = getattr(cfg, "raw", {}).get("max_failures")
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else DEFAULT_MAX_FAILURES


def _change_task(store: TeamStore, task_id: str, change: Callable[[Task], dict[str, object] | None]) -> Task:
    if not store.writes_tasks:
        raise UnsupportedError(f"changing tasks is not supported for {store.layout} teams")
    return store.change_task(task_id, change)


def record_failure(
    store: TeamStore,
    task_id: str,
    reason: str,
    *,
    max_failures: int | None = None,
    owner: str | None = None,
) -> Failure:
    """Count one failure of a task and put it back on the board (pending, no owner); the
    `max_failures`-th holds it (shown as blocked, never assigned) until `retry`.

    `owner`: count only if the task is still held by them (ConflictError otherwise), so a
    failure reported late, after the task moved on, changes nothing. `max_failures` defaults to
    the team's (see team_max_failures)."""
    limit = team_max_failures(store) if max_failures is None else max_failures
    reason = " ".join(str(reason).split())[:MAX_REASON] or "failed"
    seen: dict[str, Any] = {}

    def change(task: Task) -> dict[str, Any]:
        if task.status == TaskStatus.COMPLETED:
            raise ConflictError(f"task #{task.id} is already completed")
        if owner is not None and task.owner != owner:
            raise ConflictError(f"task #{task.id} is not held by {owner} (owner: {task.owner or 'none'})")
        count = failure_count(task) + 1
        meta = dict(task.metadata) if isinstance(task.metadata, dict) else {}
        meta[FAILURE_COUNT] = count
        meta[LAST_FAILURE] = reason
        if task.owner and task.owner not in released_from(task):
            meta[RELEASED_FROM] = [*released_from(task), task.owner]
        held = count >= limit and not held_reason(task)
        if held:
            meta[BLOCKED_REASON] = (
                f"failed {count} time{'s' if count != 1 else ''} (last: {reason}); `teamtui task retry {task.id}` to try again"
            )
        seen.update(count=count, held=held, owner=task.owner)
        return {"owner": "", "status": TaskStatus.PENDING.value, "metadata": meta}

    task = _change_task(store, task_id, change)
    return Failure(task, seen["count"], seen["held"], seen["owner"])


def retry(store: TeamStore, task_id: str) -> Task:
    """Put a held task back on the board with its failure count reset."""

    def change(task: Task) -> dict[str, object]:
        if task.status == TaskStatus.COMPLETED:
            raise ConflictError(f"task #{task.id} is already completed")
        meta = dict(task.metadata) if isinstance(task.metadata, dict) else {}
        if not (held_reason(task) or failure_count(task)):
            raise ConflictError(f"task #{task.id} has no failures to retry")
        meta.pop(BLOCKED_REASON, None)
        meta.pop(BLOCKED_BY, None)
        meta[FAILURE_COUNT] = 0
        return {"metadata": meta}

    return _change_task(store, task_id, change)


def completion_refusal(task: Task, by: str) -> str:
    """Why `by` may not complete `task` ('' when they may): it was taken back from them, or is someone else's."""
    if task.owner and task.owner != by:
        if task.status == TaskStatus.COMPLETED:
            return f"task #{task.id} was completed by {task.owner}"
        return f"task #{task.id} is held by {task.owner}, not {by}"
    if not task.owner and by in released_from(task):
        return f"task #{task.id} was taken back from {by} and is on the board again"
    return ""


def complete_as(store: TeamStore, task_id: str, by: str | None, result: str | None = None) -> Task:
    """Complete a task; with `by`, only if `by` holds it (a late `complete` from an old owner is refused)."""
    if by is None or not store.writes_tasks:
        return store.complete_task(task_id, result)

    def change(task: Task) -> dict[str, object] | None:
        why = completion_refusal(task, by)
        if why:
            raise ConflictError(f"not completed: {why}")
        if task.status == TaskStatus.COMPLETED:
            return None  # already done: its completion time and result stay as they were
        fields: dict[str, object] = {"status": TaskStatus.COMPLETED.value, "completed_at": time.time()}
        if result is not None:
            fields["result"] = result
        return fields

    return _change_task(store, task_id, change)
