"""Autohand's hook events: run the user's shell commands with the context as HOOK_* variables.

Hooks run as background asyncio subprocesses: a failing or hanging hook is logged and cut off
at its timeout (its whole process group), and never stalls the team.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path

from teamtui.runtime.procs import signal_group

# Autohand's context names, for users copying hooks written for it (HOOK_teamTaskId ...).
AUTOHAND_NAMES = {
    "team_name": "teamName",
    "teammate_name": "teammateName",
    "teammate_agent_type": "teammateAgentName",
    "teammate_pid": "teammatePid",
    "task_id": "teamTaskId",
    "task_owner": "teamTaskOwner",
    "task_result": "teamTaskResult",
    "member_count": "teamMemberCount",
    "tasks_completed": "teamTasksCompleted",
    "tasks_total": "teamTasksTotal",
}

Logger = Callable[[str, str], None]  # (level, text)


def hook_env(event: str, context: dict[str, object]) -> dict[str, str]:
    """HOOK_EVENT plus HOOK_<UPPER_SNAKE> and Autohand's HOOK_<camelCase> for every context value."""
    env = {"HOOK_EVENT": event}
    for key, value in context.items():
        text = "" if value is None else str(value)
        env["HOOK_" + re.sub(r"[^A-Za-z0-9]", "_", key).upper()] = text
        if key in AUTOHAND_NAMES:
            env["HOOK_" + AUTOHAND_NAMES[key]] = text
    return env


class Hooks:
    def __init__(
        self,
        commands: Callable[[str], list[str]],
        *,
        cwd: Path,
        timeout: float,
        log: Logger,
        base_env: dict[str, str] | None = None,
    ):
        self._commands = commands
        self.cwd = cwd
        self.timeout = timeout
        self._log = log
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._running: set[asyncio.Task[None]] = set()

    def fire(self, event: str, **context: object) -> None:
        """Start the event's hooks in the background; returns at once."""
        for command in self._commands(event):
            task = asyncio.get_running_loop().create_task(self._run(event, command, context))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def drain(self) -> None:
        """Wait for every running hook (each is bounded by its timeout)."""
        while self._running:
            await asyncio.gather(*list(self._running), return_exceptions=True)

    async def _run(self, event: str, command: str, context: dict[str, object]) -> None:
        env = {**self._base_env, **hook_env(event, context)}
        try:
            proc = await asyncio.create_subprocess_shell(
                command,
                cwd=str(self.cwd),
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            self._log("error", f"hook {event}: cannot start {command!r}: {exc}")
            return
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), self.timeout)
        except TimeoutError:
            signal_group(proc.pid, signal.SIGKILL)
            await proc.wait()
            self._log("error", f"hook {event}: {command!r} did not finish within {self.timeout:g}s and was killed")
            return
        except asyncio.CancelledError:
            signal_group(proc.pid, signal.SIGKILL)
            raise
        # Anything the hook left running in its group goes with it.
        signal_group(proc.pid, signal.SIGKILL)
        if proc.returncode:
            tail = out.decode("utf-8", "replace").strip().splitlines()[-3:] if out else []
            detail = (": " + " | ".join(tail)) if tail else ""
            self._log("warning", f"hook {event}: {command!r} exited with {proc.returncode}{detail}")
