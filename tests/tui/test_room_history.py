"""The history, from the control room: what its writer could not do is said to the person (a
problem line under the room's header and a toast), never dropped in silence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from teamtui.protocol.history import db_path
from teamtui.protocol.native import NativeTeam
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.problems import ProblemList

from .conftest import record_toasts, room_on as room, until


def native_team(root: Path, name: str = "crew") -> NativeTeam:
    team = NativeTeam(root, name)
    team.create(description="")
    team.add_member("ana")
    team.create_task("write the parser")
    return team


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
    said = record_toasts(app)
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: any("newer teamtui" in p for p in problem_lines(app)), "the problem line", limit=20)
        (line,) = [p for p in problem_lines(app) if "newer teamtui" in p]
        assert str(db) in line and "records no history" in line
        assert sum("newer teamtui" in m for m in said) == 1  # and a toast, once
        assert "1 problem" in app.fleet.overview.query_one("#fleet-header").render().plain
        NativeTeam(tmp_path / "one", "crew-one").create_task("still followed")
        await until(
            pilot,
            lambda: any(r.tasks_total == 2 for _, r in app.fleet.overview.rows),
            "the room still follows its teams",
        )


async def search(app: TeamTUI, pilot, query: str):
    from teamtui.tui.screens.search import SearchScreen

    await pilot.press("slash")
    await until(pilot, lambda: isinstance(app.screen, SearchScreen), "the search")
    screen = app.screen
    for ch in query:
        await pilot.press(ch)
    await until(pilot, lambda: screen.hits and screen.searched == query, f"hits for {query!r}")
    await pilot.press("enter")  # to the results
    await pilot.press("enter")  # the first
    return screen


async def test_a_search_hit_opens_its_team_at_the_item(tmp_path: Path):
    from teamtui.protocol.history.writer import shared_writer
    from teamtui.tui.screens.dashboard import DashboardScreen
    from teamtui.tui.screens.task_detail import TaskDetail

    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        native_team(tmp_path / name, f"crew-{name}")
    NativeTeam(tmp_path / "two", "crew-two").create_task("tune the flamingo renderer", owner="ana")
    app = room(tmp_path, tmp_path / "one", tmp_path / "two")
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: len(app.fleet.overview.rows) == 2, "both teams")
        assert shared_writer().flush(10)
        await search(app, pilot, "flamingo")
        await until(pilot, lambda: isinstance(app.screen, TaskDetail), "the task itself, over its team")
        assert app.screen.task_id == "2"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its team's dashboard under it")
        assert app.session is not None and app.session.name == "crew-two" and app.selected == "ana"


async def test_a_hit_of_a_team_the_room_no_longer_lists_opens_its_record_read_only(tmp_path: Path):
    import shutil

    from teamtui.protocol.history.writer import shared_writer
    from teamtui.session.local_team import open_local
    from teamtui.tui.screens.dashboard import DashboardScreen

    (tmp_path / "old").mkdir()
    old = native_team(tmp_path / "old", "old-crew")
    old.create_task("migrate the pelican database")
    _, state = open_local(NativeTeam(tmp_path / "old", "old-crew"), log_limit=100, health_timeout=60.0)
    state.load_all()  # recorded as any team the room opens is
    assert shared_writer().flush(10)
    shutil.rmtree(tmp_path / "old")  # gone: the room will not list it
    (tmp_path / "now").mkdir()
    native_team(tmp_path / "now", "now-crew")
    (tmp_path / "also").mkdir()
    native_team(tmp_path / "also", "also-crew")
    app = room(tmp_path, tmp_path / "now", tmp_path / "also")
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: len(app.fleet.overview.rows) == 2, "the two teams there now")
        await search(app, pilot, "pelican")
        await until(pilot, lambda: app.session is not None and app.session.name == "old-crew", "its record, opened")
        await until(pilot, lambda: app.screen.__class__.__name__ == "TaskDetail", "at the task")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the record's dashboard")
        session = app.session
        assert not session.live and "read-only from its history" in session.read_only
        assert [t.subject for t in session.state.tasks.values()] == ["write the parser", "migrate the pelican database"]
        await pilot.press("m")  # nothing is written to a record
        assert not (tmp_path / "old").exists()
