"""The panes a team's own teammates run in, on the tmux server the team runs on (not teamtui's
panes): which are still open and still run their teammate, and closing the ones a person
confirmed. Claude Code names each pane teammate's pane in config.json (`%N`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from teamtui.protocol import processes
from teamtui.tmux.server import Tmux, TmuxError, socket_from_env


class TeammatePane(NamedTuple):
    name: str
    pane: str
    agent_id: str  # what Claude Code passes as --agent-id (NAME@TEAM)


def team_socket(lead_env: Mapping[str, str] | None) -> str | None:
    """The tmux server the team runs on: the lead's $TMUX (socket path), else this process's."""
    return socket_from_env(lead_env if lead_env and lead_env.get("TMUX") else None)  # None: this process's $TMUX


def open_panes(socket: str) -> dict[str, int] | None:
    """The panes of the tmux server at `socket`: pane id -> the pid of the process it started
    (None: tmux could not be asked, so nothing is known; {}: no server there, nothing is open)."""
    try:
        rows = Tmux(socket).run("list-panes", "-a", "-F", "#{pane_id} #{pane_pid}")
    except TmuxError as exc:
        return {} if "no server" in str(exc) or "error connecting" in str(exc) else None
    except OSError:
        return None
    panes = {}
    for line in rows:
        pane, _, pid = line.partition(" ")
        if pid.isdigit():
            panes[pane] = int(pid)
    return panes


def runs_agent(pid: int, agent_id: str, tree: dict[int, list[int]] | None = None) -> bool:
    """Whether `pid` or a process under it was started for `agent_id`: Claude Code starts a pane
    teammate with `--agent-id NAME@TEAM`. A pane id now used by another program is not the teammate."""
    for p in processes.family(pid, 3, tree):
        if any(agent_id in re.split(r"[\s=\"']+", arg) for arg in processes.command_line(p) or []):
            return True
    return False


def still_running(socket: str | None, candidates: Iterable[TeammatePane]) -> dict[str, str] | None:
    """Of `candidates`, name -> pane of those whose pane is still open and still runs that
    teammate; None when the team's tmux server is unknown."""
    if socket is None:
        return None
    candidates = list(candidates)
    if not candidates:
        return {}
    panes = open_panes(socket) or {}
    tree = processes.children() if any(c.pane in panes for c in candidates) else {}
    return {c.name: c.pane for c in candidates if c.pane in panes and runs_agent(panes[c.pane], c.agent_id, tree=tree)}


def close_panes(socket: str | None, panes: Mapping[str, str], still: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """Close the panes a person confirmed (name -> pane), each only if `still` (checked just
    before) says it runs that teammate: (closed names, errors, one line each)."""
    closed, errors = [], []
    for name, pane in panes.items():
        if socket is None:
            errors.append("the team's tmux server is unknown (the lead has ended and teamtui is not inside tmux)")
            break
        if still.get(name) != pane:
            errors.append(f"{name}'s pane {pane} is no longer open")
            continue
        try:
            Tmux(socket).run("kill-pane", "-t", pane)  # its process ends with it
        except (TmuxError, OSError) as exc:
            errors.append(f"pane {pane} of {name} not closed: {exc}")
            continue
        closed.append(name)
    return closed, errors
