"""Leftover panes of a teamtui that died without closing them (SIGKILL, a crash).

Every pane teamtui opens carries pane user options:
  @teamtui-owner    "<pid>:<start>" of the teamtui that opened it (start = the process's
                    start token from teamtui.protocol.processes, so a reused pid is not
                    mistaken for the owner)
  @teamtui-team     the team's name
  @teamtui-teammate the teammate's name
The same three also go into the pane's environment when it is opened (OWNER_ENV, TEAM_ENV,
TEAMMATE_ENV, with `split-window -e`): the options are set by a second tmux call, and a
teamtui killed between the two leaves a pane only its process's environment names.
A pane whose owner is no longer running is a leftover: its processes are ended and the
pane closed, at the next start (TmuxPanes.from_env) or by `teamtui cleanup`.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from teamtui.protocol import processes
from teamtui.runtime.procs import signal_group
from teamtui.tmux.server import Tmux

OWNER = "@teamtui-owner"
TEAM = "@teamtui-team"
TEAMMATE = "@teamtui-teammate"
OWNER_ENV = "TEAMTUI_PANE_OWNER"
TEAM_ENV = "TEAMTUI_PANE_TEAM"
TEAMMATE_ENV = "TEAMTUI_PANE_TEAMMATE"
# How long a leftover's processes get between SIGTERM and SIGKILL.
GRACE_SECONDS = 1.0


def owner_token(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{pid}:{processes.start_of(pid)}"


def owner_alive(token: str) -> bool:
    pid_text, _, start = token.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    # A pane is a leftover only when its owner has surely ended: one that cannot be read is kept.
    return pid > 0 and processes.state(pid, start=start) != "ended"


def end_groups(pgids: list[int], grace: float = GRACE_SECONDS) -> None:
    """SIGTERM each process group, then SIGKILL the ones still there after `grace` seconds."""
    groups = [g for g in pgids if g > 1 and processes.group_alive(g)]
    for g in groups:
        signal_group(g, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while groups and time.monotonic() < deadline:
        groups = [g for g in groups if processes.group_alive(g)]
        if groups:
            time.sleep(0.02)
    for g in groups:
        signal_group(g, signal.SIGKILL)


def close_panes(tmux: Tmux, panes: list[tuple[str, int]], grace: float = GRACE_SECONDS) -> None:
    """Close panes by id and end the process group running in each (pane_pid leads its own group)."""
    for pane_id, _ in panes:
        tmux.try_run("kill-pane", "-t", pane_id)
    end_groups([pid for _, pid in panes], grace)


@dataclass(frozen=True, slots=True)
class Leftover:
    pane_id: str
    pid: int
    team: str
    teammate: str
    owner: str


def pane_env(owner: str, team: str, teammate: str) -> dict[str, str]:
    """The marks a pane is opened with, in its process's environment (see the module doc)."""
    return {OWNER_ENV: owner, TEAM_ENV: team, TEAMMATE_ENV: teammate}


def find_leftovers(tmux: Tmux, team: str | None = None) -> list[Leftover]:
    found = []
    # Only fields teamtui wrote itself in the listing: a name with a newline or tab must not forge a row.
    for row in tmux.list_panes(["pane_id", "pane_pid", OWNER]):
        try:
            pid = int(row.get("pane_pid") or 0)
        except ValueError:
            pid = 0
        # Not marked (yet, or ever): its opener may have died between opening and marking it.
        env = None if row.get(OWNER) else processes.environment(pid)[1]
        owner = row.get(OWNER, "") if env is None else env.get(OWNER_ENV, "")
        if not owner or owner_alive(owner):
            continue
        if env is None:
            pane_team = tmux.pane_info(row["pane_id"], "#{%s}" % TEAM) or ""
            teammate = tmux.pane_info(row["pane_id"], "#{%s}" % TEAMMATE) or ""
        else:
            pane_team, teammate = env.get(TEAM_ENV, ""), env.get(TEAMMATE_ENV, "")
        if team is not None and pane_team != team:
            continue
        found.append(Leftover(row["pane_id"], pid, pane_team, teammate, owner))
    return found


def cleanup_leftovers(tmux: Tmux, team: str | None = None) -> list[Leftover]:
    """Close every leftover pane (of `team`, or of any team) and end its processes."""
    leftovers = find_leftovers(tmux, team)
    close_panes(tmux, [(x.pane_id, x.pid) for x in leftovers])
    return leftovers
