"""Taking the person to a Claude Code teammate's pane: on the tmux server teamtui runs in.

A pane teammate's pane id is in config.json (`%N`); an in-process teammate, a permission or a
plan request is answered in the lead's pane, found as the pane whose process is the lead's
process or one of its parents (config.json's `leadProcess.pid`).
"""

from __future__ import annotations

from collections.abc import Mapping

from teamtui.protocol import processes
from teamtui.tmux.server import Tmux, TmuxError, socket_from_env

# Parents walked up from the lead's process (a shell, a wrapper) to find its pane.
_MAX_DEPTH = 8


def _server(env: Mapping[str, str] | None) -> Tmux | None:
    socket = socket_from_env(env)
    return Tmux(socket) if socket else None


def pane_of_process(pid: int, env: Mapping[str, str] | None = None) -> str | None:
    """The pane running `pid` (or one of its parents), on the tmux server teamtui runs in."""
    tmux = _server(env)
    if tmux is None or pid <= 1:
        return None
    panes = {p.get("pane_pid"): p.get("pane_id") for p in tmux.list_panes(["pane_id", "pane_pid"])}
    at: int | None = pid
    for _ in range(_MAX_DEPTH):
        if at is None or at <= 1:
            return None
        if str(at) in panes:
            return panes[str(at)]
        at = processes.parent(at)
    return None


def select_pane(pane_id: str, env: Mapping[str, str] | None = None) -> bool:
    """Make `pane_id` the active pane of its window and that window current. False when teamtui
    is not inside tmux or the pane is not on its server."""
    tmux = _server(env)
    if tmux is None or not pane_id.startswith("%") or not pane_id[1:].isdigit():
        return False
    if not tmux.pane_exists(pane_id):
        return False
    try:
        tmux.run("select-window", "-t", pane_id)
        tmux.run("select-pane", "-t", pane_id)
    except TmuxError:
        return False
    return True
