"""How a task reaches a teammate, in each `assign` mode of the team file.

assign = "lead": a teammate says it is idle (an idle_notification; `Lead.receive` marks its slot
`waiting`), and `assign_waiting` below, called from `Lead._direct`, claims the next ready task for
it and hands it over through its channel: a `task_assignment` in its inbox (channel.py
`InboxChannel.assign`, taken up by protocol/teammate.py `Teammate._check`) or `team.assignTask`
on its pipe (jsonrpc_teammate.py `JsonRpcTeammate.assign`).

assign = "self" (the default): the lead assigns nothing; teammates claim for themselves:
- protocol/teammate.py `Teammate._check` (its idle loop) → `Teammate.claim`, for file teammates;
  per_task_teammate.py `PerTaskTeammate.claim` in the same loop, for a command run per task.
- jsonrpc_teammate.py `JsonRpcTeammate._claim_next`, in the lead's process, for a JSON-RPC
  teammate: when it goes idle (team.idle, team.ready) and when the lead hands it the board.
- cli/protocol_cmds.py `cmd_task_claim` (`teamtui task claim`), for shell teammates.
"""

from __future__ import annotations

from collections.abc import Callable

from teamtui.protocol.errors import ConflictError, ProtocolError
from teamtui.protocol.models import Task
from teamtui.protocol.native import NativeTeam
from teamtui.runtime.slot import Slot


def assign_waiting(
    store: NativeTeam, slots: list[Slot], busy: set[str], ready: list[Task], say: Callable[..., None], *, sender: str
) -> None:
    """Give each waiting teammate that holds no task the first of `ready` it can have, in order."""
    queue = [t.id for t in ready]
    for slot in slots:
        if not slot.waiting or slot.name in busy:
            continue
        task = _claim_first(store, queue, slot.name, say)
        if task is None:
            return  # nothing ready: the others wait too
        slot.waiting = False
        slot.channel.assign(task, sender=sender)
        busy.add(slot.name)


def _claim_first(store: NativeTeam, queue: list[str], owner: str, say: Callable[..., None]) -> Task | None:
    while queue:
        tid = queue.pop(0)
        try:
            return store.claim_task(tid, owner)
        except ConflictError:
            continue  # its files were taken by the task just claimed
        except ProtocolError as exc:
            say("error", f"could not claim #{tid} for {owner}: {exc}")
            return None
    return None
