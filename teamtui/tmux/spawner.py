"""TmuxSpawner: the runtime's Spawner, running each teammate in its own pane.

The pane runs teamtui.tmux.runner, which runs the teammate command with its output shown
in the pane and appended to its log. The pane's process (pane_pid) leads its own process
group (tmux starts every pane in a new session), so terminate/kill signal that whole
group. poll is cheap while the process lives (a psutil probe of pane_pid, no tmux call);
once it is gone the exit status is read from the pane (the runner set remain-on-exit and
stored the status in @teamtui-exit) and the pane is closed: a teammate's pane closes when
it ends. The Popen convention holds: -N when the teammate died of signal N.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

from teamtui.protocol import processes
from teamtui.runtime.procs import signal_group
from teamtui.tmux.commands import python_module_command
from teamtui.tmux.panes import TmuxPanes
from teamtui.tmux.runner import EXIT_OPTION

# Exit status reported when the pane vanished before its status could be read.
PANE_GONE = -signal.SIGHUP


def _as_int(text: str) -> int | None:
    return int(text) if text.lstrip("-").isdigit() else None


def runner_command(command: str, log_path: Path) -> str:
    return python_module_command("teamtui.tmux.runner", "--log", str(log_path), "--", command)


class TmuxTeammateProcess:
    def __init__(self, panes: TmuxPanes, name: str, pane_id: str, pid: int):
        self.panes = panes
        self.name = name
        self.pane_id = pane_id
        self.pid: int | None = pid
        self._code: int | None = None
        self._killed = False

    def poll(self) -> int | None:
        if self._code is not None:
            return self._code
        assert self.pid is not None
        if processes.running(self.pid):
            return None
        info = self.panes.tmux.pane_info(self.pane_id, "#{pane_dead}\t#{%s}\t#{pane_dead_status}" % EXIT_OPTION)
        if info is not None:
            dead, recorded, status = info.split("\t")
            if dead != "1":
                return None  # the probe raced tmux's bookkeeping: ask again next time
            code = _as_int(recorded)
            if code is None:  # the runner could not record it (SIGKILLed)
                code = _as_int(status)
                code = 128 - code if code is not None and 128 < code < 128 + 65 else code
            if code is None:
                code = -signal.SIGKILL if self._killed else PANE_GONE
        else:
            code = -signal.SIGKILL if self._killed else PANE_GONE
        self._code = code
        self.panes.release(self.name, self.pane_id)
        return code

    def terminate(self) -> None:
        if self._code is None and self.pid:
            signal_group(self.pid, signal.SIGTERM)

    def kill(self) -> None:
        if self._code is None and self.pid:
            self._killed = True
            signal_group(self.pid, signal.SIGKILL)


class TmuxSpawner:
    """Runs teammates in panes of `panes`; `color_of(name)` gives a teammate's border color."""

    def __init__(self, panes: TmuxPanes, color_of: Callable[[str], str] | None = None):
        self.panes = panes
        self.color_of = color_of

    def spawn(self, name: str, command: str, *, cwd: Path, env: dict[str, str], log_path: Path) -> TmuxTeammateProcess:
        color = self.color_of(name) if self.color_of else ""
        pane = self.panes.open(
            name, color=color, command=runner_command(command, log_path), cwd=cwd, env=env, pinned=True
        )
        return TmuxTeammateProcess(self.panes, name, pane.pane_id, pane.pid)
