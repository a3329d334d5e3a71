"""How the lead starts a teammate process. The default runs it as a child process with its
output in logs/<name>.log; teamtui.tmux supplies a spawner that runs it in a pane instead."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Protocol

from teamtui.runtime.procs import signal_group


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


class ChildProcess:
    """A teammate run by `sh -c` in its own session, so its group is its own and nothing it starts escapes."""

    def __init__(self, name: str, popen: subprocess.Popen[bytes]):
        self.name = name
        self.popen = popen
        self.pid: int | None = popen.pid
        # start_new_session=True makes the child the leader of a group with its own pid.
        self.pgid: int | None = popen.pid

    def poll(self) -> int | None:
        return self.popen.poll()

    def terminate(self) -> None:
        signal_group(self.pgid, signal.SIGTERM)

    def kill(self) -> None:
        signal_group(self.pgid, signal.SIGKILL)

    def __repr__(self) -> str:
        return f"ChildProcess({self.name!r}, pid={self.pid})"


def start_shell(
    command: str, *, cwd: Path, env: dict[str, str], log_path: Path, piped: bool = False
) -> subprocess.Popen[bytes]:
    """`sh -c command` in its own session, stderr appended to `log_path`; stdin and stdout are
    pipes when `piped` (a JSON-RPC teammate), else nothing and the log (a file-protocol one)."""
    log_path.parent.mkdir(exist_ok=True)  # the logs folder, in a team folder that must still be there
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=str(cwd),
            env=env,
            stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
            stdout=subprocess.PIPE if piped else log,
            stderr=log if piped else subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )


class ProcessSpawner:
    """The default spawner: a child process per teammate, stdout and stderr appended to its .log."""

    def spawn(self, name: str, command: str, *, cwd: Path, env: dict[str, str], log_path: Path) -> ChildProcess:
        return ChildProcess(name, start_shell(command, cwd=cwd, env=env, log_path=log_path))
