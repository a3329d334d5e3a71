"""What the reference designs keep in a task's `metadata`, read the same way everywhere.

- cw-dispatch's scope: `metadata.scope.files_to_create` + `metadata.scope.files_to_modify`,
  which count for the file-conflict check as the task's `files` do.
- cw-dispatch's failure count: `metadata.failure_count`; at the team's `max_failures` the task is
  held (`metadata.blocked_reason`) until someone retries it.
- `metadata.released_from`: who held the task when the lead took it back (crash, disappearance,
  `task fail`), so a late `complete` from them is refused.
- `metadata.failed`: why work that is over did not succeed (a Claude Code lead's assignment whose
  teammate reported failure or left), so the board shows it failed rather than waiting.

In the native layout `metadata` lives in the task's sidecar (`.tasks/.teamtui/<id>.json`), so the
task file keeps the eight keys its peers read. Pure: tasks in, answers out.
"""

from __future__ import annotations

from teamtui.protocol.models import Task

FAILURE_COUNT = "failure_count"
LAST_FAILURE = "last_failure"
BLOCKED_REASON = "blocked_reason"
BLOCKED_BY = "blocked_by"  # a person kept a held task off the board (need_answers.block_held): it waits for nobody
RELEASED_FROM = "released_from"
FAILED = "failed"
DEFAULT_MAX_FAILURES = 3


def _meta(task: Task) -> dict[str, object]:
    return task.metadata if isinstance(task.metadata, dict) else {}


def failure_count(task: Task) -> int:
    n = _meta(task).get(FAILURE_COUNT, 0)
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0


def held_reason(task: Task) -> str:
    """Why a task is held off the board after failing too often ('' when it is not)."""
    reason = _meta(task).get(BLOCKED_REASON)
    if reason is None or reason is False or reason == "":
        return ""
    return reason if isinstance(reason, str) else "blocked"


def blocked_by(task: Task) -> str:
    """Who kept a held task blocked on purpose ('' when nobody did)."""
    who = _meta(task).get(BLOCKED_BY)
    return who if isinstance(who, str) else ""


def failed_reason(task: Task) -> str:
    """Why the task failed for good ('' when it did not)."""
    why = _meta(task).get(FAILED)
    if why is None or why is False or why == "":
        return ""
    return why if isinstance(why, str) else "failed"


def released_from(task: Task) -> list[str]:
    names = _meta(task).get(RELEASED_FROM, [])
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def scope_files(task: Task) -> list[str]:
    """Every file the task says it touches: `files` and cw-dispatch's scope, in order, once each."""
    scope = _meta(task).get("scope")
    extra: list[object] = []
    if isinstance(scope, dict):
        for key in ("files_to_create", "files_to_modify"):
            v = scope.get(key)
            if isinstance(v, list):
                extra += v
    if not extra:
        return task.files
    return list(dict.fromkeys([*task.files, *(f for f in extra if isinstance(f, str) and f)]))
