"""Finding Claude Code 2.1.328 session teams: the room tells them apart, and a team that
appears while the room waits for one is opened."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from teamtui.tui.widgets.fleet import FleetTable
from tests.tui.conftest import SIZE, cells, make_in as make, named_cells, until

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"


def my_start() -> str:
    return Path("/proc/self/stat").read_text().rpartition(")")[2].split()[19]


async def test_picker_shows_lead_members_cwd_and_age(tmp_path):
    root = tmp_path / "claude"
    for example in ("tmux-running", "inprocess-running"):
        shutil.copytree(EXAMPLES / example / "teams", root / "teams", dirs_exist_ok=True)
    # The tmux team's lead is this process (alive); the other's pid belongs to nobody here (ended).
    cfg_path = root / "teams" / "session-421dba11" / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["leadProcess"].update(pid=os.getpid(), procStart=my_start(), pidSpace=os.readlink("/proc/self/ns/pid"))
    cfg["createdAt"] = int((time.time() - 150) * 1000)
    cfg_path.write_text(json.dumps(cfg))
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.fleet.overview.query_one(FleetTable)
        await until(pilot, lambda: len(cells(table)) == 2, "both teams in the room")
        rows = {r["Team"].split()[0]: r for r in named_cells(table)}
        assert set(rows) == {"session-421dba11", "session-8dd2dc96"}
        tmux_team, inproc_team = rows["session-421dba11"], rows["session-8dd2dc96"]
        assert tmux_team["Lead"] == "alive" and inproc_team["Lead"] == "ended"
        assert tmux_team["Where"] == inproc_team["Where"] == "/src/app"
        table.move_cursor(row=[r.split(" | ")[0].split()[0] for r in cells(table)].index("session-421dba11"))
        await pilot.press("enter")
        await until(pilot, lambda: app.state is not None, "the chosen team opened")
        assert app.state.name == "session-421dba11"


async def test_a_session_team_appearing_is_opened(tmp_path):
    root = tmp_path / "claude"
    (root / "teams").mkdir(parents=True)
    (root / "tasks").mkdir()
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.screen is app.fleet.overview, "the room, waiting")
        # Claude Code starts an interactive session: its implicit team appears.
        staging = tmp_path / "staging"
        shutil.copytree(EXAMPLES / "tmux-running" / "teams" / "session-421dba11", staging)
        os.rename(staging, root / "teams" / "session-421dba11")
        await until(pilot, lambda: app.state is not None and app.state.name == "session-421dba11", "the team opened")
        assert type(app.screen).__name__ == "DashboardScreen"
