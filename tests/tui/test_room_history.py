"""The history, from the control room: what its writer could not do is said to the person (a
problem line under the room's header and a toast), never dropped in silence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from teamtui.protocol.history import db_path
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.problems import ProblemList

from .conftest import until


def native_team(root: Path, name: str = "crew") -> NativeTeam:
    team = NativeTeam(root, name)
    team.create(description="")
    team.add_member("ana")
    team.create_task("write the parser")
    return team


def room(tmp_path: Path, *roots: Path) -> TeamTUI:
    settings = load_settings(tmp_path / "none.toml")
    source = LocalSource(settings, roots=list(roots), cwd=tmp_path, claude_root=tmp_path / "no-claude")
    source.discover()
    return TeamTUI(Fleet([source]), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)


def problem_lines(app: TeamTUI) -> list[str]:
    return [t.plain for t in app.fleet.overview.query_one(ProblemList).problems]


async def test_a_history_this_teamtui_cannot_write_is_said_in_the_room_and_the_room_goes_on(tmp_path: Path):
    db = db_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")  # made by a newer teamtui: never written by this one
    con.close()
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        native_team(tmp_path / name, f"crew-{name}")
    app = room(tmp_path, tmp_path / "one", tmp_path / "two")
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: any("newer teamtui" in p for p in problem_lines(app)), "the problem line", limit=20)
        (line,) = [p for p in problem_lines(app) if "newer teamtui" in p]
        assert str(db) in line and "records no history" in line
        assert any("newer teamtui" in str(n.message) for n in app._notifications)  # and a toast, once
        assert sum("newer teamtui" in str(n.message) for n in app._notifications) == 1
        assert "1 problem" in app.fleet.overview.query_one("#fleet-header").render().plain
        NativeTeam(tmp_path / "one", "crew-one").create_task("still followed")
        await until(
            pilot,
            lambda: any(r.tasks_total == 2 for _, r in app.fleet.overview.rows),
            "the room still follows its teams",
        )
