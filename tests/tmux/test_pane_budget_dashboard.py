"""The pane budget end to end: `teamtui watch --max-panes 8` inside a private tmux server on a team
of 12 live teammates, driven with tmux send-keys as a person would type."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.processes import group_alive, running

pytestmark = pytest.mark.tmux

MATES = [f"mate{i}" for i in range(10)]


def _add_members(root: Path, names: list[str]) -> None:
    path = root / ".teams" / "refactor-auth" / "config.json"
    config = json.loads(path.read_text())
    config["members"] += [{"name": n, "agent_id": f"{n}@refactor-auth", "status": "active"} for n in names]
    path.write_text(json.dumps(config, indent=2))


def _follows(server: TmuxServer) -> dict[str, dict[str, str]]:
    return {r["@teamtui-teammate"]: r for r in server.marked("refactor-auth").values()}


def test_twelve_teammates_get_eight_panes_enter_opens_the_tenth_and_quitting_closes_them_all(
    tmux_server: TmuxServer, native_root: Path
) -> None:
    # hunter, scout and mate0..mate9 are live (tracer has shut down): 12 teammates, 8 panes.
    _add_members(native_root, MATES)
    for fixed in ("COLUMNS", "LINES"):  # set by the test session: they would pin the dashboard at 80x24
        tmux_server.run("set-environment", "-g", "-u", fixed)
    dashboard, pid = tmux_server.start_teamtui("watch", str(native_root), "--teammate-mode", "tmux", "--max-panes", "8")
    wait_for(lambda: len(_follows(tmux_server)) == 8, "eight follow panes", timeout=60)
    first = ["hunter", "scout", *MATES[:6]]
    assert sorted(_follows(tmux_server)) == sorted(first)  # the first eight in team order
    wait_for(lambda: "4 without a pane" in tmux_server.screen(dashboard), "the team table to say 4 have no pane")
    # The 10th live teammate is mate7: row 11 of the team table (hunter, scout, tracer, mate0...).
    tmux_server.run("send-keys", "-t", dashboard, *["Down"] * 10, "Enter")
    wait_for(lambda: "mate7" in _follows(tmux_server), "mate7's pane to open on enter", timeout=30)
    rows = _follows(tmux_server)
    assert len(rows) == 8 and "hunter" not in rows  # hunter, used least recently, made room
    mate7 = rows["mate7"]["pane_id"]
    wait_for(
        lambda: tmux_server.run("display-message", "-p", "-t", mate7, "#{pane_active}") == ["1"], "mate7's pane focused"
    )
    assert tmux_server.tmux.pane_info(mate7, "#{window_id}") != tmux_server.tmux.pane_info(dashboard, "#{window_id}")
    pane_pids = [int(r["pane_pid"]) for r in rows.values()]
    tmux_server.run("send-keys", "-t", dashboard, "q")
    wait_for(lambda: not tmux_server.marked(), "every pane to close on q", timeout=30)
    wait_for(lambda: not running(pid), "the dashboard to exit", timeout=20)
    wait_for(lambda: not any(group_alive(p) for p in pane_pids), "no follow process left", timeout=10)


def test_max_panes_below_one_is_refused_with_one_line(native_root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "teamtui", "watch", str(native_root), "--max-panes", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "teamtui: --max-panes must be at least 1"
