"""One-shot CLI agents (`claude -p`, `codex exec`, `aider --message`, a script): a teammate whose
`command` runs once per assigned task and exits.

The task reaches the command as TEAMTUI_TASK_ID / _SUBJECT / _DESCRIPTION and, where the command
names them, as `{id}`, `{subject}`, `{description}` replaced by shell-quoted values. Exit 0
completes the task with the last lines of output as its result; anything else is a failure.
Output goes on to the teammate's log (and pane); the run shares the teammate's process group,
so the shutdown ladder (SIGTERM, then SIGKILL to the group) stops whatever the command started.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.models import Task

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
    return {
        **env,
        "TEAMTUI_TASK_ID": v["id"],
        "TEAMTUI_TASK_SUBJECT": v["subject"],
        "TEAMTUI_TASK_DESCRIPTION": v["description"],
    }


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


def run_task(
    command: str,
    task: Task,
    *,
    cwd: Path,
    env: dict[str, str],
    out: int,
    quiet_every: float = 1.0,
    on_quiet: Callable[[float], None] | None = None,
) -> TaskOutcome:
    """Run `command` for `task` to its end, passing its output (stdout and stderr) on to the file
    descriptor `out` and keeping the end of it for the result. It runs in the caller's process
    group, so whatever stops the caller's group (the lead's ladder) stops it too.
    `on_quiet(seconds_running)` is called after every `quiet_every` s without output."""
    started = time.monotonic()
    popen = subprocess.Popen(
        ["/bin/sh", "-c", task_command(command, task)],
        cwd=str(cwd),
        env=task_env(env, task),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        close_fds=True,
    )
    assert popen.stdout is not None
    fd = popen.stdout.fileno()
    tail = bytearray()
    cut = False
    with popen.stdout:
        while True:
            readable, _, _ = select.select([fd], [], [], quiet_every)
            if not readable:
                if on_quiet is not None:
                    on_quiet(time.monotonic() - started)
                continue
            data = os.read(fd, 65536)
            if not data:
                break
            _pass_on(out, data)
            tail += data
            if len(tail) > RESULT_TAIL_BYTES:
                del tail[: len(tail) - RESULT_TAIL_BYTES]
                cut = True
    code = popen.wait()
    return TaskOutcome(task.id, code, last_lines(bytes(tail), cut=cut))


def _pass_on(out: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(out, view) :]
        except OSError:
            return  # the log or pane is gone: the run goes on, its result is still kept


def last_lines(data: bytes, lines: int = RESULT_LINES, *, cut: bool = False) -> str:
    """The last `lines` non-blank lines of `data` as a reader would see them; `cut`: its first
    line is a fragment (the window started mid-line) and is left out."""
    text = _ESCAPES.sub("", data.decode("utf-8", "replace"))
    if cut:
        text = text.split("\n", 1)[-1]
    # A progress bar redraws its line with \r: what is left on screen is the last part.
    shown = (ln.rstrip("\r").rsplit("\r", 1)[-1].rstrip() for ln in text.split("\n"))
    kept = [ln for ln in shown if ln.strip()]
    return "\n".join(kept[-lines:])


__all__ = ["RESULT_LINES", "TaskOutcome", "last_lines", "run_task", "task_command", "task_env"]
