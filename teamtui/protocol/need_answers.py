"""Answers to what a team needs of the person, other than a permission request: written through
the protocol library under teamtui's own name (never as a lead it is not), each journaled in the
hooks journal beside the permission answers.

- a task held after too many failures: `retry_held` (its count reset, back on the board) or
  `block_held` (kept off the board with the person's reason; it no longer asks for anyone);
- a stuck or silent teammate: `message_teammate`, or `ask_restart` where `teamtui run` leads the
  team (a `restart_request` in the running lead's inbox, as `teamtui shutdown` asks it);
- a teammate that disappeared: `release_tasks` (its unfinished tasks back on the board).
"""

from __future__ import annotations

import os
from pathlib import Path

from teamtui.protocol.errors import ConflictError, UnsupportedError
from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.place import ensure_spool
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.store import RunsLead, TeamStore
from teamtui.protocol.taskmeta import BLOCKED_BY, BLOCKED_REASON, held_reason

MAX_REASON = 500


def _journal(spool: Path | None, store: TeamStore, kind: str, action: str, target: str, **fields: object) -> None:
    try:
        spool = spool or ensure_spool()
    except OSError:
        return
    journal.write(
        spool,
        journal.ANSWERED,
        team=store.name,
        root=str(store.root),
        kind=kind,
        decision=action,
        target=target,
        where=fields.pop("where", "") or os.uname().nodename,
        via=fields.pop("via", "cli"),
        **fields,
    )


def _writable(store: TeamStore, what: str) -> None:
    if not store.writes_tasks:
        raise UnsupportedError(f"{what} is not possible in a {store.layout} team: teamtui does not write its tasks")


def retry_held(store: TeamStore, task_id: str, *, via: str = "cli", where: str = "", spool: Path | None = None) -> Task:
    """A held task back on the board, its failure count reset."""
    from teamtui.protocol.outcomes import retry

    _writable(store, "retrying a task")
    task = retry(store, task_id)
    _journal(spool, store, "held", "retry", task.id, via=via, where=where)
    return task


def block_held(
    store: TeamStore,
    task_id: str,
    reason: str,
    by: str,
    *,
    via: str = "cli",
    where: str = "",
    spool: Path | None = None,
) -> Task:
    """Keep a held task off the board with the person's `reason`; `by` (teamtui's sender name) is
    recorded as who decided, so the task no longer waits for a person."""
    _writable(store, "blocking a task")
    reason = " ".join(str(reason).split())[:MAX_REASON]
    if not reason:
        raise ValueError("blocking a task needs a reason (--message)")

    def change(task: Task) -> dict[str, object]:
        if task.status == TaskStatus.COMPLETED:
            raise ConflictError(f"task #{task.id} is already completed")
        if task.status == TaskStatus.IN_PROGRESS:
            raise ConflictError(f"task #{task.id} is being worked on by {task.owner or 'someone'}")
        meta = dict(task.metadata) if isinstance(task.metadata, dict) else {}
        if not held_reason(task) and not meta.get("failure_count"):
            raise ConflictError(f"task #{task.id} is not held after failures")
        meta[BLOCKED_REASON] = f"blocked by {by}: {reason}"
        meta[BLOCKED_BY] = by
        return {"metadata": meta}

    task = store.change_task(task_id, change)
    _journal(spool, store, "held", "block", task.id, message=reason, via=via, where=where)
    return task


def release_tasks(
    store: TeamStore, teammate: str, *, via: str = "cli", where: str = "", spool: Path | None = None
) -> list[str]:
    """Every unfinished task `teammate` holds back on the board; returns their ids."""
    _writable(store, "releasing a teammate's tasks")
    released = store.release_owner(teammate)
    _journal(spool, store, "disappeared", "release", teammate, tasks=released, via=via, where=where)
    return released


def message_teammate(
    store: TeamStore,
    teammate: str,
    text: str,
    sender: str,
    *,
    via: str = "cli",
    where: str = "",
    spool: Path | None = None,
) -> None:
    """A plain message to `teammate` under `sender` (store.outgoing_sender: never as a lead this process is not)."""
    text = text.strip()
    if not text:
        raise ValueError("a message needs text (--message)")
    honest = store.outgoing_sender(sender)
    store.send(teammate, text, honest)
    _journal(spool, store, "stuck", "message", teammate, message=text[:MAX_REASON], sender=honest, via=via, where=where)


def ask_restart(
    store: TeamStore,
    teammate: str,
    reason: str,
    sender: str,
    *,
    via: str = "cli",
    where: str = "",
    spool: Path | None = None,
) -> str:
    """Ask the `teamtui run` leading this team to restart `teammate`: a `restart_request` in the
    lead's inbox under `sender`'s own name. Returns the request id."""
    if not isinstance(store, RunsLead) or store.running_lead() is None:
        raise UnsupportedError(f"no `teamtui run` leads {store.name} now: only its lead can restart a teammate")
    rid = os.urandom(4).hex()
    reason = " ".join(str(reason).split())[:MAX_REASON] or "asked by the person"
    store.send(
        store.lead_name,
        f"restart requested for {teammate}: {reason}",
        store.outgoing_sender(sender),
        type="restart_request",
        extra={"request_id": rid, "teammate": teammate, "reason": reason},
    )
    _journal(spool, store, "stuck", "restart", teammate, request_id=rid, message=reason, via=via, where=where)
    return rid
