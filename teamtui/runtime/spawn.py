"""How the lead starts a teammate process. The default runs it as a child process with its
output in logs/<name>.log; teamtui.tmux supplies a spawner that runs it in a pane instead."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class TeammateProcess(Protocol):
    name: str
    pid: int | None

    def poll(self) -> int | None:
        """The exit code once the process has ended, else None."""

    def terminate(self) -> None:
        """SIGTERM (to the teammate's whole process group)."""

    def kill(self) -> None:
        """SIGKILL (to the teammate's whole process group)."""


class Spawner(Protocol):
    def spawn(self, name: str, command: str, *, cwd: Path, env: dict[str, str], log_path: Path) -> TeammateProcess:
        """Start `command` (a shell command line) for teammate `name`; its output goes to `log_path`."""
