"""The lead's side of one JSON-RPC teammate (Autohand's Agent Teams): its notifications become the
board, the inboxes, the logs and its status; its inbox and the board become notifications.

  team.ready          → it may be given work: the queued task, else it counts as idle
  team.idle           → an idle_notification to the lead; with assign = "self" the lead's runtime
                        claims the next ready task for it at once (Autohand's auto-assignment)
  team.taskUpdate     → the task completed (with its result) or back to pending; only its own tasks
  team.message        → the named member's inbox (dashboard, file teammates, other JSON-RPC teammates)
  team.log            → its .jsonl log;  anything else on stdout → its .log, as printed
  team.shutdownAck    → a shutdown_response to the lead's pending request
  its inbox           → team.shutdown for a shutdown_request, team.assignTask for a task_assignment,
                        team.message (with `from`) for the rest: a dashboard message reaches it so
  the board changed   → team.updateContext
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

from teamtui.protocol.errors import ConflictError, ProtocolError
from teamtui.protocol.fsio import append_bytes, ensure_dir, ensure_inside
from teamtui.protocol.models import Message, Task, TaskStatus, TeamConfig
from teamtui.protocol.teammate import Teammate
from teamtui.runtime import jsonrpc
from teamtui.runtime.failures import ready_to_try
from teamtui.runtime.jsonrpc import (
    Channel,
    Idle,
    Incoming,
    JsonRpcProcess,
    Log,
    Ready,
    Say,
    ShutdownAck,
    Stray,
    TaskUpdate,
)


class JsonRpcTeammate:
    """One JSON-RPC teammate, as the lead drives it. Call `attach` with each run's process,
    `inbox_changed` when its inbox file changed, `board` with the tasks when the board changed,
    and `detach` when the process ended. Everything runs on the lead's event loop."""

    def __init__(
        self,
        root: Path,
        team: str,
        name: str,
        *,
        assign: str = "self",
        say: Callable[[str, str], None] | None = None,
        on_drained: Callable[[str, list[Message]], None] | None = None,
    ):
        self.me = Teammate(Path(root), team, name, assign=assign)
        self.store = self.me.team
        self.name = name
        self.assign_mode = assign
        self.say = say or (lambda level, text: None)  # a line for the lead's progress
        self.on_drained = on_drained  # what it took from its inbox, for a dashboard that could not read it in time
        self.channel: Channel | None = None
        self.idle = False  # said team.idle (or team.ready) and holds no task
        self._queued: Task | None = None  # assigned before team.ready: sent on it
        self._shutdown: Message | None = None  # the lead's request, until acknowledged
        self._context: tuple | None = None  # the board last sent with team.updateContext

    # ------------------------------------------------------------------ lifecycle
    def attach(self, process: JsonRpcProcess, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.channel = Channel(self.name, process, self._incoming)
        self.channel.open(loop)
        self.idle = False
        self._queued = None
        self._shutdown = None
        self._context = None

    def detach(self) -> None:
        if self.channel is not None:
            self.channel.close()
        self.channel = None
        self.idle = False

    @property
    def ready(self) -> bool:
        return self.channel is not None and self.channel.ready

    # ------------------------------------------------------------------ lead → teammate
    def assign(self, task: Task, *, sender: str = "lead") -> None:
        """Hand it `task` (already claimed for it); held until team.ready."""
        if self.channel is None:
            return
        if not self.channel.ready:
            self._queued = task
            return
        self.idle = False
        self.me.set_status("working")
        if not self.channel.assign_task(task):
            self.me.log(f"could not send #{task.id} to {self.name}: its stdin is closed", "error")

    def inbox_changed(self) -> None:
        """Its inbox file changed: take what is there (read-and-clear, as any teammate does) and pass it on."""
        if self.channel is None:
            return
        messages = self.me.drain()
        if messages and self.on_drained is not None:
            self.on_drained(self.name, messages)
        for msg in messages:
            if msg.type == "shutdown_request":
                self._shutdown = msg
                reason = getattr(msg.payload, "reason", "") or msg.content
                self.channel.shutdown(reason)
            elif msg.type == "task_assignment":
                self._assigned_in_inbox(msg)
            elif msg.type in ("shutdown_response", "shutdown_approved", "shutdown_rejected", "idle_notification"):
                self.me.log(f"{msg.type} from {msg.sender} is for a lead, not passed on", "warning")
            else:
                self.channel.message(msg.sender or "unknown", msg.content)

    def board(self, tasks: Iterable[Task]) -> None:
        """The board as the lead just read it: team.updateContext when it changed; an idle
        teammate of an assign = "self" team gets the next ready task."""
        tasks = [t for t in tasks if not t.internal]
        key = tuple((t.id, t.status.value, t.owner, t.subject) for t in tasks)
        channel = self.channel
        if channel is not None and channel.ready and key != self._context:  # self.ready, the channel named
            self._context = key
            channel.update_context(tasks)
        if self.idle:
            self._claim_next()

    # ------------------------------------------------------------------ teammate → lead
    def _incoming(self, item: Incoming) -> None:
        if isinstance(item, Stray):
            self._stray(item)
        elif isinstance(item, Log):
            self.me.log(item.text, "warning" if item.level == "warn" else item.level)
        elif isinstance(item, Ready):
            self.me.log(f"{self.name} is ready (JSON-RPC)")
            queued, self._queued = self._queued, None
            if queued is not None:
                self.assign(queued)
            else:
                self._went_idle(None)
        elif isinstance(item, TaskUpdate):
            self._task_update(item)
        elif isinstance(item, Say):
            self._forward(item)
        elif isinstance(item, Idle):
            self._went_idle(item.last_task)
        elif isinstance(item, ShutdownAck):
            self._acknowledged()

    def _stray(self, item: Stray) -> None:
        path = ensure_inside(self.store.log_paths(self.name)[1], self.store.root)
        ensure_dir(path.parent, self.store.root, self.store.team_dir)
        append_bytes(path, jsonrpc.stray_log_line(item))

    def _went_idle(self, last_task: str | None) -> None:
        if self._holds_task():
            return  # idle while it still holds a task: the lead keeps waiting for its update
        self.idle = True
        self.me.report_idle(completed_task_id=last_task or "")
        self._claim_next()

    def _claim_next(self) -> None:
        if self.assign_mode != "self" or not self.idle or not self.ready or self._shutdown is not None:
            return
        try:
            for candidate in ready_to_try(self.store):
                try:
                    task = self.me.claim(candidate.id)
                except ConflictError:
                    continue  # another teammate took it first
                if task is not None:
                    self.assign(task)
                return
        except ProtocolError as exc:
            self.me.log(f"could not claim a task for {self.name}: {exc}", "error")

    def _holds_task(self) -> bool:
        try:
            return bool(self.me.my_tasks())
        except ProtocolError:
            return False

    def _task_update(self, u: TaskUpdate) -> None:
        try:
            task = self.me.task(u.task_id)
        except ProtocolError as exc:
            self.me.log(f"team.taskUpdate for #{u.task_id}: {exc}", "warning")
            return
        if task.owner != self.name or task.status == TaskStatus.COMPLETED:
            self.me.log(f"team.taskUpdate for #{task.id} ignored: it is not a task {self.name} holds", "warning")
            return
        if u.status == "completed":
            self.me.complete(task.id, u.result)
        elif u.status == "pending":
            self.me.release(task.id)
            self.me.log(f"gave #{task.id} back to the board")
        else:
            self.idle = False
            self.me.set_status("working")

    def _forward(self, m: Say) -> None:
        members = self._members()
        if m.to == self.name or m.to not in members:
            known = ", ".join(sorted(members - {self.name})) or "none"
            self.me.log(
                f"team.message to {m.to!r} not delivered: not a member of the team (members: {known})", "warning"
            )
            self.say("warning", f"{self.name} → {m.to!r}: not a member, message not delivered")
            return
        try:
            self.me.send(m.to, m.content)
        except ProtocolError as exc:
            self.me.log(f"team.message to {m.to!r} not delivered: {exc}", "error")

    def _members(self) -> set[str]:
        cfg = self.store.load_config()
        names = {self.me.lead}
        if isinstance(cfg, TeamConfig):
            names |= {mb.name for mb in cfg.members}
        return names

    def _acknowledged(self) -> None:
        request, self._shutdown = self._shutdown, None
        if request is None:
            self.me.log("team.shutdownAck with no shutdown requested: ignored", "warning")
            return
        pending = [f"#{t.id} {t.subject}" for t in self._my_tasks()]
        self.me.answer_shutdown(request, status="in_progress" if pending else "clean", pending_work=pending)

    def _my_tasks(self) -> list[Task]:
        try:
            return self.me.my_tasks()
        except ProtocolError:
            return []

    def _assigned_in_inbox(self, msg: Message) -> None:
        tid = getattr(msg.payload, "task_id", "")
        try:
            task = self.me.task(tid)
        except ProtocolError as exc:
            self.me.log(f"assigned task #{tid} cannot be read: {exc}", "error")
            return
        if task.owner == self.name and task.status == TaskStatus.IN_PROGRESS:
            self.assign(task)
        else:
            self.me.log(f"task_assignment for #{tid} ignored: it is not held by {self.name}", "warning")


__all__ = ["JsonRpcTeammate"]
