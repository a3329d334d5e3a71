"""Supervision: start a teammate's process with the team's environment, watch for its exit, end it.

Exits are seen through a pidfd per process (readable when it ends): no polling, no thread."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.runtime.protocols import Worktrees, start_teammate
from teamtui.runtime.slot import Slot
from teamtui.runtime.spawn import ProcessSpawner, Spawner, TeammateProcess
from teamtui.runtime.teamfile import TeamFile, TeammateSpec


def search_path(env: dict[str, str]) -> str | None:
    """The PATH a teammate whose environment is `env` gets (None: none set): its own, after the
    lead's bin folder when that holds `teamtui` (so a shell teammate finds the same `teamtui` and
    python as the lead)."""
    bindir = os.path.dirname(sys.executable)
    if shutil.which("teamtui", path=bindir):
        return bindir + os.pathsep + env.get("PATH", "")
    return env.get("PATH")


class Supervisor:
    def __init__(
        self, team: TeamFile, store: NativeTeam, root: Path, spawner: Spawner | None, on_exit: Callable[[Slot], None]
    ):
        self.team = team
        self.store = store
        self.root = root
        self.spawner: Spawner = spawner or ProcessSpawner()
        self.on_exit = on_exit  # called on the lead's loop once per ended run
        self.worktrees = Worktrees(team, store.name)

    def start(self, slot: Slot) -> TeammateProcess:
        """Start one run of `slot`'s command (must be called on the lead's loop); OSError when it cannot start."""
        log_path = self.store.logs_dir / f"{slot.name}.log"
        cwd = self.worktrees.cwd(slot.spec)
        proc = start_teammate(
            self.spawner,
            slot.spec,
            cwd=cwd,
            env=self.env(slot.spec),
            log_path=log_path,
            channel=slot.channel,
            max_failures=self.team.team.max_failures,
        )
        slot.proc = proc
        slot.runs += 1
        self._watch_exit(slot, proc)
        return proc

    def env(self, spec: TeammateSpec) -> dict[str, str]:
        env = dict(os.environ)
        env.update(spec.env)
        path = search_path(env)
        if path is not None:
            env["PATH"] = path
        # Teammates written in Python import the same teamtui as the lead, installed or not.
        pkg_parent = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH", "")) if p)
        settings = self.team.team
        env.update(
            TEAMTUI_ROOT=str(self.root.resolve()),
            TEAMTUI_TEAM=self.store.name,
            TEAMTUI_NAME=spec.name,
            TEAMTUI_AGENT_ID=f"{spec.name}@{self.store.name}",
            TEAMTUI_ASSIGN=settings.assign,
            TEAMTUI_POLL=f"{settings.poll_interval:g}",
            TEAMTUI_PYTHON=sys.executable,
            PYTHONUNBUFFERED="1",
        )
        return env

    def reap(self, slot: Slot) -> int | None:
        """The ended run's exit code; whatever it left in its process group goes with it."""
        proc = slot.proc
        assert proc is not None
        # Kill the group before reaping, so its pid (the group id) cannot be reused yet.
        proc.kill()
        code = proc.poll()
        slot.proc = None
        return code

    def terminate(self, slots: Iterable[Slot]) -> None:
        for s in slots:
            if s.proc is not None:
                s.proc.terminate()

    def kill(self, slots: Iterable[Slot]) -> None:
        for s in slots:
            if s.proc is not None:
                s.proc.kill()

    def _watch_exit(self, slot: Slot, proc: TeammateProcess) -> None:
        loop = asyncio.get_running_loop()
        try:
            fd = os.pidfd_open(proc.pid) if proc.pid else None
        except (OSError, AttributeError):
            fd = None
        if fd is None:
            # No pidfd (old kernel, or a process that is not ours): a waiting thread instead.
            waiter = getattr(proc, "wait", None) or getattr(getattr(proc, "popen", None), "wait", None)
            if waiter is None:
                raise RuntimeError(f"cannot watch {slot.name}'s process for its exit")
            threading.Thread(
                target=lambda: (waiter(), loop.call_soon_threadsafe(self._exit_seen, loop, slot, proc)), daemon=True
            ).start()
            return
        slot.exit_fd = fd
        loop.add_reader(fd, self._exit_seen, loop, slot, proc)

    def _exit_seen(self, loop: asyncio.AbstractEventLoop, slot: Slot, proc: TeammateProcess) -> None:
        if slot.exit_fd is not None:
            loop.remove_reader(slot.exit_fd)
            os.close(slot.exit_fd)
            slot.exit_fd = None
        if slot.proc is proc:  # an exit of an earlier run is old news
            self.on_exit(slot)
