"""What teams changed, in the control room: each row's files changed (left out on a narrow
terminal, the other figures kept), two live teams of this machine on one file of one working tree
as needs-you items (one per file and pair, dismissed with `d`, gone when a team is), and every
need the room lists recorded in the history with when it was raised and cleared."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from teamtui.protocol.history import db_path
from teamtui.protocol.history.query import open_history
from teamtui.protocol.history.writer import shared_writer
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.fleet import FleetNeeds, FleetTable
from tests.conftest import EDITS

from .conftest import cells, room_on as room, until

TEAM = "session-48868de5"


def copy_team(tmp_path: Path, where: str) -> Path:
    root = tmp_path / where / ".claude"
    shutil.copytree(EDITS, root)
    return root


def row_cells(app: TeamTUI) -> list[dict[str, str]]:
    table = app.fleet.overview.query_one(FleetTable)
    return [dict(zip(table.shown, line.split(" | "), strict=True)) for line in cells(table)]


async def test_each_row_says_how_many_files_its_team_changed_and_a_narrow_room_leaves_it_out(tmp_path):
    app = room(tmp_path, copy_team(tmp_path, "one"))
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: app.dashboard is not None, "its one team opened")
        await pilot.press("escape")  # the room, with its one row
        await until(pilot, lambda: [r.get("Files") for r in row_cells(app)] == ["1"], "one file changed (app.py)")
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "Files" not in app.fleet.overview.query_one(FleetTable).shown, "the column left out")
        (row,) = row_cells(app)
        assert row["Tasks"] and row["Active"] and row["Cost"] is not None  # the other figures are all there
        await pilot.resize_terminal(160, 30)
        await until(pilot, lambda: [r.get("Files") for r in row_cells(app)] == ["1"], "back when wide again")


def _collision_needs(app: TeamTUI) -> list:
    return [n for n in app.fleet.overview.query_one(FleetNeeds).needs if n.kind == "collision" and " (" in n.text]


def _recorded_needs() -> list[tuple]:
    assert shared_writer().flush(10)
    con = open_history(db_path(), import_journals=False)
    try:
        return con.execute("SELECT key, kind, member, text, opened_at, answered_at, answer FROM needs").fetchall()
    finally:
        con.close()


async def test_two_live_teams_on_one_file_are_a_need_each_pair_once_dismissed_with_d_and_recorded(tmp_path):
    red, blue = copy_team(tmp_path, "red"), copy_team(tmp_path, "blue")
    app = room(tmp_path, red, blue)
    async with app.run_test(size=(160, 40)) as pilot:
        # alice and bob of each team both changed /src/app/app.py: four pairs across the two teams
        await until(pilot, lambda: len(_collision_needs(app)) == 4, "the four cross-team pairs listed", limit=20)
        texts = sorted(n.text for n in _collision_needs(app))
        assert texts[0].startswith("alice (session-48868de5 in ") and "both changed app.py" in texts[0]
        assert len({n.key for n in _collision_needs(app)}) == 4  # one per file and pair
        assert {n.team for n in _collision_needs(app)} == {_collision_needs(app)[0].team}  # on one team's row
        key = _collision_needs(app)[0].team
        assert app.fleet.alerts.look(key, app.fleet.fleet.sessions[key], time.time())[1] == []  # not called again

        needs = app.fleet.overview.query_one(FleetNeeds)
        first = _collision_needs(app)[0]
        needs.focus()
        needs.highlighted = needs.needs.index(first)
        await pilot.press("d")
        await until(pilot, lambda: first.key not in {n.key for n in needs.needs}, "the dismissed pair gone")
        assert len(_collision_needs(app)) == 3

        recorded = {r[0]: r for r in _recorded_needs()}
        assert first.key in recorded and recorded[first.key][5] is not None  # raised, then cleared
        assert recorded[first.key][4] <= recorded[first.key][5]
        open_keys = {k for k, r in recorded.items() if r[5] is None}
        assert {n.key for n in _collision_needs(app)} <= open_keys  # the three still there: open

        # blue's folder goes (its team ended): every pair with it clears, and is recorded so
        shutil.rmtree(blue / "teams" / TEAM)
        await until(pilot, lambda: not _collision_needs(app), "the pairs gone with the team", limit=20)
    closed = {r[0]: r for r in _recorded_needs()}
    assert all(closed[k][5] is not None for k in open_keys if k.startswith("collision:") and " in " in k)


async def test_an_ended_team_keeps_its_changes_and_shows_their_diffs_from_the_history(tmp_path):
    from teamtui.protocol.claude import journal
    from teamtui.tui.screens.changes import SEP, ChangesScreen
    from teamtui.tui.widgets.diff import DiffLines

    root = copy_team(tmp_path, "gone")
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.transcripts.ready, "the team read")
        await until(pilot, lambda: len(app.state.transcripts.edits) == 2, "its edits")
        shutil.rmtree(root / "teams" / TEAM)  # Claude Code deletes the team's folder when its lead exits
        [session] = app.fleet.fleet.sessions.values()
        await until(pilot, lambda: not session.live, "the team seen ending")
    journal.flush()
    assert shared_writer().flush(10)
    # Another room, later: the team is read back (from the journal), its changes from the history.
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: [r.get("Files") for r in row_cells(app)] == ["1"], "its row: one file changed")
        if app.dashboard is None:
            await pilot.press("enter")
        await until(pilot, lambda: app.dashboard is not None and app.screen is app.dashboard, "the ended team")
        assert app.session is not None and not app.session.live
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "its changes view")
        screen = app.screen
        table = screen.query_one("#changes-table")
        rows = [line.split(" | ")[0].strip() for line in cells(table)]
        assert "alice  1 file" in rows and "bob  1 file" in rows
        table.move_cursor(row=table.get_row_index(f"f{SEP}bob{SEP}/src/app/app.py{SEP}seen"))
        await until(pilot, lambda: "+" in screen.query_one("#diff", DiffLines).plain, "bob's diff, from the history")
        assert (
            "Edit" in screen.query_one("#diff-title").content.plain
            or "Edit" in screen.query_one("#diff", DiffLines).plain
        )
