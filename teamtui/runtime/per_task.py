"""One-shot CLI agents (`claude -p`, `codex exec`, `aider --message`, a script): a teammate whose
`command` runs once per assigned task and exits.

The task reaches the command as TEAMTUI_TASK_ID / _SUBJECT / _DESCRIPTION and, where the command
names them, as `{id}`, `{subject}`, `{description}` replaced by shell-quoted values. Exit 0
completes the task with the last lines of output as its result; anything else is a failure.
Output goes to the teammate's log; the run is its own process group, so the shutdown ladder
(SIGTERM, then SIGKILL) stops whatever the command started.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.models import Task
from teamtui.runtime.spawn import ChildProcess

# The result of a task is the last lines of its output, read from at most this much of its end.
RESULT_LINES = 20
RESULT_TAIL_BYTES = 64 << 10

_FIELD = re.compile(r"(?<!\$)\{(id|subject|description)\}")
# Escape sequences would make a result unreadable on the board; the log keeps them as printed.
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")


def _plain(text: str) -> str:
    # Neither an argument nor an environment value can hold a NUL.
    return text.replace("\0", "")


def task_values(task: Task) -> dict[str, str]:
    return {"id": _plain(task.id), "subject": _plain(task.subject), "description": _plain(task.description)}


def task_command(command: str, task: Task) -> str:
    """`command` with `{id}`, `{subject}`, `{description}` replaced by shell-quoted values
    (`${id}` is the shell's and stays as it is)."""
    values = task_values(task)
    return _FIELD.sub(lambda m: shlex.quote(values[m.group(1)]), command)


def task_env(env: dict[str, str], task: Task) -> dict[str, str]:
    v = task_values(task)
    return {**env, "TEAMTUI_TASK_ID": v["id"], "TEAMTUI_TASK_SUBJECT": v["subject"], "TEAMTUI_TASK_DESCRIPTION": v["description"]}


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    task_id: str
    code: int | None
    result: str  # the last lines of output (on a failure, too: they usually say why)

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def reason(self) -> str:
        """For a failure: how the command ended and its last line of output."""
        if self.ok:
            return ""
        how = f"exit code {self.code}"
        if self.code is not None and self.code < 0:
            try:
                how = f"killed by {signal.Signals(-self.code).name}"
            except ValueError:
                pass
        last = self.result.rsplit("\n", 1)[-1]
        return f"{how}: {last}" if last else how


class TaskRun(ChildProcess):
    """One run of a per-task teammate's command, for one task."""

    def __init__(self, name: str, popen: subprocess.Popen[bytes], task_id: str, log_path: Path, offset: int):
        super().__init__(name, popen)
        self.task_id = task_id
        self.log_path = log_path
        self.offset = offset  # where this run's output starts in the log
        self._outcome: TaskOutcome | None = None

    def outcome(self) -> TaskOutcome:
        """Its exit code and the last lines it printed: read once the run has ended, before the
        teammate's next run appends to the same log, and kept."""
        if self._outcome is None:
            code = self.poll()
            if code is None:
                raise RuntimeError(f"{self.name}'s run for task #{self.task_id} has not ended")
            self._outcome = TaskOutcome(self.task_id, code, output_tail(self.log_path, self.offset))
        return self._outcome


def start_task(name: str, command: str, task: Task, *, cwd: Path, env: dict[str, str], log_path: Path) -> TaskRun:
    """Start `command` for `task` in its own session; stdout and stderr are appended to `log_path`."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        subject = _ESCAPES.sub("", task.subject).replace("\n", " ")
        log.write(f"[teamtui] task #{task.id}: {subject}\n".encode("utf-8", "replace"))
        log.flush()
        offset = log.tell()
        popen = subprocess.Popen(
            ["/bin/sh", "-c", task_command(command, task)],
            cwd=str(cwd),
            env=task_env(env, task),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    return TaskRun(name, popen, task.id, log_path, offset)


def output_tail(path: Path, offset: int, lines: int = RESULT_LINES) -> str:
    """The last `lines` non-blank lines written to `path` after `offset`, escapes removed."""
    try:
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            start = max(offset, end - RESULT_TAIL_BYTES)
            f.seek(start)
            data = f.read(end - start)
    except OSError:
        return ""
    text = _ESCAPES.sub("", data.decode("utf-8", "replace"))
    if start > offset:
        text = text.split("\n", 1)[-1]  # the first line was cut by the tail window
    # A progress bar redraws its line with \r: what is left on screen is the last part.
    shown = (ln.rstrip("\r").rsplit("\r", 1)[-1].rstrip() for ln in text.split("\n"))
    kept = [ln for ln in shown if ln.strip()]
    return "\n".join(kept[-lines:])


__all__ = ["RESULT_LINES", "TaskOutcome", "TaskRun", "output_tail", "start_task", "task_command", "task_env"]
