"""What changed on the board since the lead last read it, said and hooked: a task assigned
(task-assigned; its teammate is working), completed (task-completed), or newly held after too
many failures (announced once)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from teamtui.protocol.board import Board
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.taskmeta import held_reason
from teamtui.runtime.hooks import Hooks
from teamtui.runtime.slot import Slot


class BoardEvents:
    def __init__(
        self,
        team_name: str,
        slots: dict[str, Slot],
        active: Callable[[str], None],
        hooks: Hooks,
        say: Callable[..., None],
    ):
        self.team_name = team_name
        self.slots = slots
        self.active = active  # a sign of life of the named teammate
        self.hooks = hooks
        self.say = say
        self._prev: dict[str, tuple[str, str]] = {}
        self._held: set[str] = set()

    def start(self, tasks: Iterable[Task]) -> None:
        """The board as created: what it holds already is no news."""
        tasks = list(tasks)
        self._prev = {t.id: (t.status.value, t.owner) for t in tasks}
        self._held = {t.id for t in tasks if held_reason(t)}

    def diff(self, board: Board) -> None:
        now = {t.id: (t.status.value, t.owner) for t in board.tasks.values()}
        for tid, (status, owner) in sorted(now.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
            before = self._prev.get(tid)
            task = board.tasks[tid]
            # Claimed and completed between two reads is assigned too: every completed task's hook pair.
            claimed_unseen = status == "completed" and owner and (before is None or before[0] != "completed")
            claimed_unseen = claimed_unseen and before != ("in_progress", owner)
            if (status == "in_progress" and owner and before != (status, owner)) or claimed_unseen:
                self.say("info", f"#{tid} {task.subject} → {owner}")
                self.hooks.fire(
                    "task-assigned", team_name=self.team_name, task_id=tid, task_owner=owner, task_subject=task.subject
                )
                slot = self.slots.get(owner)
                # Still on it: no longer waiting. Claimed and already completed, it may have said idle
                # since (read first in this step): it waits for its next task, so leave it waiting.
                if slot and status == "in_progress":
                    slot.waiting = False
                    if slot.alive and slot.health != "disappeared":
                        slot.health = "working"
                self.active(owner)
            if status == "completed" and (before is None or before[0] != "completed"):
                done, total = board.progress()
                self.say("info", f"#{tid} {task.subject} completed by {owner or '?'} [{done}/{total}]")
                self.hooks.fire(
                    "task-completed",
                    team_name=self.team_name,
                    task_id=tid,
                    task_owner=owner,
                    task_subject=task.subject,
                    task_result=task.result or "",
                )
                self.active(owner)
        held = {t.id for t in board.tasks.values() if held_reason(t) and t.status != TaskStatus.COMPLETED}
        for tid in sorted(held - self._held):
            task = board.tasks[tid]
            self.say("error", f"#{tid} {task.subject} is blocked: {held_reason(task)}", notify=True)
        self._held = held
        self._prev = now
