"""The control room in tmux: a team's follow panes open beside its dashboard and close when the
person goes back to the overview, so the room has its whole pane again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.processes import group_alive, running

pytestmark = pytest.mark.tmux


def test_escape_to_the_overview_closes_the_teams_follow_panes(
    tmux_server: TmuxServer, native_root: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    shutil.copytree(native_root, other)
    room, pid = tmux_server.start_teamtui(str(native_root), str(other), "--teammate-mode", "tmux")
    wait_for(lambda: tmux_server.screen(room).count("refactor-auth") >= 2, "the overview's two rows", 60)
    assert tmux_server.marked() == {}  # the overview opens no pane
    tmux_server.run("send-keys", "-t", room, "Enter")
    follows = wait_for(
        lambda: m if len(m := tmux_server.marked("refactor-auth")) >= 2 else None, "the team's follow panes", 30
    )
    pids = [int(r["pane_pid"]) for r in follows.values()]  # type: ignore[union-attr]
    tmux_server.run("send-keys", "-t", room, "Escape")
    wait_for(lambda: not tmux_server.marked(), "the follow panes to close on escape", 30)
    wait_for(lambda: not any(group_alive(p) for p in pids), "no follow process left", 10)
    width = int(tmux_server.tmux.pane_info(room, "#{pane_width}") or 0)
    assert width == int(tmux_server.tmux.pane_info(room, "#{window_width}") or -1)  # the room has its width back
    tmux_server.run("send-keys", "-t", room, "q")
    wait_for(lambda: not running(pid), "teamtui to exit", 20)
