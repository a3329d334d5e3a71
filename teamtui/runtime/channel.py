"""How the lead speaks to a teammate. Files today (a message in its inbox); a JSON-RPC pipe or a
one-shot command per task plugs in here. Whatever the transport, a teammate's answers reach the
lead as protocol Messages through `Lead.receive`."""

from __future__ import annotations

from typing import Protocol

from teamtui.protocol.models import Task
from teamtui.protocol.native import NativeTeam


class TeammateChannel(Protocol):
    name: str

    def assign(self, task: Task, *, sender: str) -> None:
        """Hand `task` (already claimed for this teammate) to it."""


class InboxChannel:
    """The file transport: a `task_assignment` line in the teammate's inbox, which it reads in its idle loop."""

    def __init__(self, store: NativeTeam, name: str):
        self.store = store
        self.name = name

    def assign(self, task: Task, *, sender: str) -> None:
        self.store.send(
            self.name,
            f"Please work on #{task.id}: {task.subject}",
            sender,
            type="task_assignment",
            extra={"task_id": task.id, "subject": task.subject, "description": task.description, "assigned_by": sender},
        )
