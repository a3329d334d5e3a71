"""How the lead starts a teammate of each protocol, and where it works.

  files     the team file's command, by the lead's spawner (a child process or a tmux pane)
  per-task  the per-task teammate process in its place (same spawner), the command in its env
  jsonrpc   a child process whose stdin and stdout stay pipes to the lead (JsonRpcTeammate)

With `worktree = true` a teammate works in its own git worktree (worktrees.py); `Worktrees`
creates them as teammates first start and settles them when the run ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from teamtui.runtime import worktrees
from teamtui.runtime.jsonrpc import spawn_jsonrpc
from teamtui.runtime.per_task_teammate import launch
from teamtui.runtime.spawn import Spawner, TeammateProcess
from teamtui.runtime.teamfile import TeamFile, TeammateSpec
from teamtui.runtime.worktrees import Ending, Worktree, WorktreeError


def start_teammate(
    spawner: Spawner,
    spec: TeammateSpec,
    *,
    cwd: Path,
    env: dict[str, str],
    log_path: Path,
    channel: Any = None,
    max_failures: int,
) -> TeammateProcess:
    """Start one run of teammate `spec` by its protocol; a JSON-RPC teammate's pipes go to `channel`;
    a per-task teammate is told the team file's `max_failures` ($TEAMTUI_MAX_FAILURES)."""
    if spec.protocol == "jsonrpc":
        proc = spawn_jsonrpc(spec.name, spec.command, cwd=cwd, env=env, log_path=log_path)
        channel.attach(proc)
        return proc
    command = spec.command
    if spec.protocol == "per-task":
        command, extra = launch(spec.command, max_failures)
        env = {**env, **extra}
    return spawner.spawn(spec.name, command, cwd=cwd, env=env, log_path=log_path)


class Worktrees:
    """The team's git worktrees, one per teammate that asks for one."""

    def __init__(self, team: TeamFile, team_name: str):
        self.team = team
        self.team_name = team_name
        self.made: dict[str, Worktree] = {}

    @property
    def wanted(self) -> list[TeammateSpec]:
        return [t for t in self.team.teammates if self.team.uses_worktree(t)]

    def problem(self) -> str:
        """Why the worktrees cannot be made ('' when they can): checked before the team starts."""
        if not self.wanted:
            return ""
        try:
            worktrees.repo_root(self.team.base_dir)
            for spec in self.wanted:
                worktrees.branch_for(self.team_name, spec.name)
        except WorktreeError as exc:
            return str(exc)
        return ""

    def cwd(self, spec: TeammateSpec) -> Path:
        """Where teammate `spec` works: its worktree (made on its first start) or its cwd. OSError when git fails."""
        base = self.team.teammate_cwd(spec)
        if not self.team.uses_worktree(spec):
            return base
        wt = self.made.get(spec.name)
        if wt is None or not wt.path.is_dir():
            try:
                wt = worktrees.add(self.team.base_dir, self.team_name, spec.name)
            except WorktreeError as exc:
                raise OSError(f"no worktree for {spec.name}: {exc}") from None
            self.made[spec.name] = wt
        return wt.map(base)

    def finish(self) -> list[Ending]:
        """Remove the clean ones, keep the dirty ones: what became of each."""
        endings = []
        for wt in self.made.values():
            try:
                endings.append(worktrees.finish(wt))
            except WorktreeError as exc:
                endings.append(Ending(wt, removed=False, branch_kept=True, detail=f"not removed: {exc}"))
        self.made.clear()
        return endings


__all__ = ["Worktrees", "start_teammate"]
