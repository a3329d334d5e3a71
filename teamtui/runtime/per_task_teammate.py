"""The process of a per-task teammate: `teamtui run` starts it in the teammate's place (its pane,
its log, its restarts, its shutdown ladder, like any teammate) and it runs the teammate's
`command` once per task it is given.

It speaks the file protocol for the command, which never has to: claims (assign = "self") or
waits for a task_assignment (assign = "lead"), completes the task with the last lines of output,
counts a failure and gives the task back on a non-zero exit, reports idle, and answers a shutdown
request (with the running task as pending work; the lead's ladder then stops the run).

    python -m teamtui.runtime.per_task_teammate      (the command in $TEAMTUI_TASK_COMMAND)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from teamtui.protocol.errors import ConflictError, ProtocolError
from teamtui.protocol.models import Message, Task
from teamtui.protocol.teammate import Teammate
from teamtui.runtime.failures import MAX_FAILURES, ready_to_try, record_failure
from teamtui.runtime.per_task import TaskOutcome, run_task

COMMAND_ENV = "TEAMTUI_TASK_COMMAND"
MAX_FAILURES_ENV = "TEAMTUI_MAX_FAILURES"
# A command silent this long gets a "still running" line in the log (the lead sees it as activity).
STILL_RUNNING_EVERY = 30.0
DRIVER = "teamtui.runtime.per_task_teammate"


def launch(command: str, max_failures: int = MAX_FAILURES) -> tuple[str, dict[str, str]]:
    """What the lead starts for a per-task teammate whose team file says `command`: this module,
    with the command in the environment (never re-quoted into a shell line)."""
    return f'exec "$TEAMTUI_PYTHON" -m {DRIVER}', {COMMAND_ENV: command, MAX_FAILURES_ENV: str(max_failures)}


class PerTaskTeammate(Teammate):
    def __init__(self, *args: Any, command: str, max_failures: int = MAX_FAILURES, cwd: Path | None = None, **kw: Any):
        super().__init__(*args, **kw)
        self.command = command
        self.max_failures = max_failures
        self.cwd = cwd or Path.cwd()
        self._shutdown: Message | None = None
        self._last_note = 0.0

    def claim(self, task_id: str | None = None) -> Task | None:
        """The next ready task it has not failed `max_failures` times (those wait for a person)."""
        if task_id is not None:
            return super().claim(task_id)
        for task in ready_to_try(self.team):
            try:
                return super().claim(task.id)
            except ConflictError:
                continue  # another teammate took it first
        return None

    def serve(self) -> int:
        self.log(f"{self.name} runs its command once per task")
        while True:
            wake = self.idle_loop(timeout=3600)
            if wake.shutdown is not None:
                self.answer_shutdown(wake.shutdown)
                return 0
            for m in wake.messages:
                self.log(
                    f"message from {m.sender} not passed on (a per-task command cannot read messages): {m.content}",
                    "warning",
                )
            if wake.task is not None:
                self.work(wake.task)
                if self._shutdown is not None:
                    return 0

    def work(self, task: Task) -> TaskOutcome:
        self.log(f"running the command for #{task.id}: {task.subject}")
        self._last_note = 0.0
        outcome = run_task(
            self.command,
            task,
            cwd=self.cwd,
            env=dict(os.environ),
            out=sys.stdout.fileno(),
            quiet_every=self.poll,
            on_quiet=self._quiet,
        )
        if outcome.ok:
            self.complete(task.id, outcome.result or None)
            self.report_idle(completed_task_id=task.id)
        else:
            try:
                n = record_failure(self.team, task.id, outcome.reason)
            except ProtocolError as exc:
                self.log(f"#{task.id} failed ({outcome.reason}) and could not be given back: {exc}", "error")
                return outcome
            if n >= self.max_failures:
                self.log(
                    f"#{task.id} failed {n} time{'s' if n != 1 else ''}, last: {outcome.reason}; blocked: per-task teammates leave it for a person",
                    "error",
                )
            else:
                self.log(
                    f"#{task.id} failed ({outcome.reason}); back to the board, failure {n} of {self.max_failures}",
                    "error",
                )
            self.report_idle(reason="failed")
        return outcome

    def _quiet(self, running: float) -> None:
        """Between output: a shutdown request is answered at once; a long silence is noted."""
        if self._shutdown is None:
            request = self.shutdown_requested()
            if request is not None:
                self._shutdown = request
                held = [f"#{t.id} {t.subject}" for t in self.my_tasks()]
                self.log("shutdown requested while the command runs: it goes on until it ends or is stopped")
                self.answer_shutdown(request, status="in_progress", pending_work=held)
        if running - self._last_note >= STILL_RUNNING_EVERY:
            self._last_note = running
            self.log(f"still running ({running:.0f}s)")


def main(argv: list[str] | None = None) -> int:
    command = os.environ.get(COMMAND_ENV, "")
    if not command.strip():
        print(f"{DRIVER}: ${COMMAND_ENV} is not set: nothing to run per task", file=sys.stderr)
        return 2
    try:
        max_failures = max(1, int(os.environ.get(MAX_FAILURES_ENV) or MAX_FAILURES))
    except ValueError:
        max_failures = MAX_FAILURES
    base = Teammate.from_env()
    me = PerTaskTeammate(
        base.team.root,
        base.team.name,
        base.name,
        agent_id=base.agent_id,
        assign=base.assign,
        poll=base.poll,
        command=command,
        max_failures=max_failures,
    )
    return me.serve()


if __name__ == "__main__":
    sys.exit(main())
