"""The teammate side of the native protocol: what a teammate process needs, in a few calls.

from teamtui.protocol.teammate import Teammate
me = Teammate.from_env()          # TEAMTUI_ROOT / TEAMTUI_TEAM / TEAMTUI_NAME, set by `teamtui run`
while True:
    wake = me.idle_loop()         # learn-claude-code: check inbox and board every N s
    if wake.shutdown:
        me.answer_shutdown(wake.shutdown); break
    if wake.task:
        ...work...; me.complete(wake.task.id, "done")
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.errors import ConflictError, NotFoundError, ProtocolError
from teamtui.protocol.models import Message, Task, TaskStatus
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import complete_as
from teamtui.protocol.text import inert
from teamtui.protocol.touching import record_touch, touched

# Set by teamtui's tmux runner to the pane's terminal: log lines are shown there too.
PANE_TTY_ENV = "TEAMTUI_PANE_TTY"

DEFAULT_POLL = 2.0  # learn-claude-code polls every 2 s ...
DEFAULT_IDLE_TIMEOUT = 60.0  # ... for up to 60 s


@dataclass
class Wake:
    """Why the idle loop returned. At most one of task / shutdown is set; messages may come with either."""

    messages: list[Message] = field(default_factory=list)
    task: Task | None = None
    shutdown: Message | None = None

    @property
    def timed_out(self) -> bool:
        return not (self.messages or self.task or self.shutdown)


class Teammate:
    def __init__(
        self, root: Path, team: str, name: str, *, agent_id: str = "", assign: str = "self", poll: float = DEFAULT_POLL
    ):
        self.team = NativeTeam(Path(root), team)
        self.name = name
        self.agent_id = agent_id or f"{name}@{team}"
        # "self": claim from the board when idle; "lead": wait for a task_assignment.
        self.assign = assign
        self.poll = poll
        self._held: list[Message] = []
        self._idle_reported = False  # one idle_notification per idle period, however often the loop wakes
        self._pane_tty: int | None = _open_pane_tty(os.environ.get(PANE_TTY_ENV, ""))

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Teammate:
        env = dict(os.environ if env is None else env)
        missing = [v for v in ("TEAMTUI_TEAM", "TEAMTUI_NAME") if not env.get(v)]
        if missing:
            raise ProtocolError(f"not started as a teammate: {', '.join(missing)} not set")
        poll = float(env.get("TEAMTUI_POLL") or DEFAULT_POLL)
        return cls(
            Path(env.get("TEAMTUI_ROOT") or "."),
            env["TEAMTUI_TEAM"],
            env["TEAMTUI_NAME"],
            agent_id=env.get("TEAMTUI_AGENT_ID", ""),
            assign=env.get("TEAMTUI_ASSIGN") or "self",
            poll=poll,
        )

    @property
    def lead(self) -> str:
        return self.team.lead_name

    # ------------------------------------------------------------ messages
    def drain(self) -> list[Message]:
        """Read-and-clear my inbox (messages a previous call held back come first)."""
        out, self._held = self._held, []
        read = self.team.drain(self.name)
        for err in read.errors:
            self.log(f"unreadable inbox line kept aside: {err}", "warning")
        return out + read.messages

    def send(self, to: str, content: str, *, type: str = "message", **extra: object) -> Message:
        return self.team.send(to, content, self.name, type=type, extra=extra or None)

    def broadcast(self, content: str) -> list[str]:
        sent = [m.recipient for m in self.team.broadcast(content, self.name)]
        found = touched(content)
        if found is not None:
            record_touch(self.team, found[0], self.name, task=found[1])
        return sent

    def shutdown_requested(self) -> Message | None:
        """Check for a shutdown request mid-work without losing other messages (they wait for drain())."""
        msgs = self.drain()
        request = next((m for m in msgs if m.type == "shutdown_request"), None)
        self._held = [m for m in msgs if m is not request]
        return request

    def answer_shutdown(
        self,
        request: Message,
        *,
        approve: bool = True,
        status: str = "clean",
        pending_work: list[str] | None = None,
        artifacts_committed: bool = False,
        reason: str = "",
    ) -> None:
        """Reply to the lead's shutdown_request with its request_id (the two-phase protocol)."""
        request_id = getattr(request.payload, "request_id", "") or str(request.raw.get("request_id", ""))
        self.team.send_shutdown_response(
            self.name,
            request_id,
            approve=approve,
            status=status,
            pending_work=pending_work,
            artifacts_committed=artifacts_committed,
            reason=reason,
        )
        if approve:
            self.set_status("shutdown")

    def report_idle(self, *, summary: str = "", completed_task_id: str = "", reason: str = "available") -> None:
        """Tell the lead I am idle (the lead assigns work on it in `assign = "lead"` mode)."""
        extra = {"from": self.name, "idle_reason": reason}
        if completed_task_id:
            extra["completed_task_id"] = completed_task_id
            extra["completed_status"] = "resolved"
        self.team.send(self.lead, summary or f"{self.name} is idle", self.name, type="idle_notification", extra=extra)
        self._idle_reported = True
        self.set_status("idle")

    # --------------------------------------------------------------- tasks
    def claim(self, task_id: str | None = None) -> Task | None:
        """Claim a task (the next ready one by default); None when nothing is ready."""
        task = self.team.claim_task(task_id, self.name)
        if task is not None:
            self._idle_reported = False
            self.set_status("working")
            self.log(f"claimed #{task.id} {task.subject}")
        return task

    def task(self, task_id: str) -> Task:
        task = self.team.get_task(task_id)
        if not isinstance(task, Task):
            raise NotFoundError(str(task))
        return task

    def my_tasks(self) -> list[Task]:
        tasks, _ = self.team.list_tasks(include_internal=True)
        return [t for t in tasks if t.owner == self.name and t.status == TaskStatus.IN_PROGRESS]

    def complete(self, task_id: str, result: str | None = None) -> Task:
        """Complete a task I hold; refused (ConflictError) once the lead has taken it back from me."""
        try:
            task = complete_as(self.team, task_id, self.name, result)
        except ConflictError as exc:
            self.log(str(exc), "warning")
            raise
        self.log(f"completed #{task.id} {task.subject}")
        return task

    def release(self, task_id: str) -> Task:
        return self.team.release_task(task_id)

    # ---------------------------------------------------------- log, status
    def log(self, text: str, level: str = "info") -> None:
        self.team.log(self.name, text, level)
        if self._pane_tty is not None:
            self._echo(text, level)

    def _echo(self, text: str, level: str) -> None:
        """The log line in the teammate's tmux pane too (straight to its terminal: the .jsonl has it already)."""
        tty = self._pane_tty
        if tty is None:
            return
        mark = "" if level == "info" else f"{inert(level)}: "
        line = f"{time.strftime('%H:%M:%S')} {mark}{inert(text)}\n"
        try:
            os.write(tty, line.encode("utf-8", "replace"))
        except OSError:  # the pane closed: keep working, the log file has the line
            os.close(tty)
            self._pane_tty = None

    def set_status(self, status: str) -> None:
        try:
            self.team.update_member(self.name, status=status, last_seen=time.time())
        except NotFoundError:
            pass  # not registered in the config (started by hand): the status is informational

    # ------------------------------------------------------------ idle loop
    def idle_loop(
        self, *, poll: float | None = None, timeout: float = DEFAULT_IDLE_TIMEOUT, notify: bool = True
    ) -> Wake:
        """learn-claude-code's idle phase: every `poll` s check the inbox, then (self mode) the board.

        Returns on a shutdown request, new messages, a claimed or assigned task, or after `timeout` s.
        """
        poll = self.poll if poll is None else poll
        if notify and not self._idle_reported:
            self.report_idle()
        deadline = time.monotonic() + timeout
        while True:
            wake = self._check()
            if not wake.timed_out:
                return wake
            left = deadline - time.monotonic()
            if left <= 0:
                return wake
            time.sleep(min(poll, left))

    def _check(self) -> Wake:
        msgs = self.drain()
        request = next((m for m in msgs if m.type == "shutdown_request"), None)
        if request is not None:
            return Wake([m for m in msgs if m is not request], shutdown=request)
        for m in msgs:
            if m.type == "task_assignment":
                tid = getattr(m.payload, "task_id", "")
                if tid:
                    try:
                        task = self.task(tid)
                    except ProtocolError as exc:
                        self.log(f"assigned task #{tid} cannot be read: {exc}", "error")
                        continue
                    if task.owner == self.name and task.status != TaskStatus.COMPLETED:
                        self._idle_reported = False
                        self.set_status("working")
                        return Wake([x for x in msgs if x is not m], task=task)
        if msgs:
            return Wake(msgs)
        if self.assign == "self":
            claimed = self.claim()
            if claimed is not None:
                return Wake(task=claimed)
        return Wake()


def _open_pane_tty(path: str) -> int | None:
    """The pane's terminal named by the runner, or None (not in a pane, or it cannot be opened)."""
    if not path.startswith("/dev/"):
        return None
    try:
        return os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_APPEND)
    except OSError:
        return None
