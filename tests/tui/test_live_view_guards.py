"""Performance guards for the live view, without timing: a change redraws only what it touched.

Each test drives the real dashboard through Pilot on real team files and observes the widgets:
a rebuilt DataTable has new `Row` objects, a log line lands in a widget's `lines`. See
docs/benchmarks.md for the timings these guards protect.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from teamtui.protocol.models import LogEntry
from teamtui.protocol.native import NativeTeam
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.logs import TeammateLog
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.tasks import FIRST_ROWS, TaskBoard
from teamtui.tui.widgets.team import TeamPanel

from .conftest import SIZE, cells, log_lines, until

TEAM = "big"


def big_team(root: Path, teammates: int, tasks: int) -> NativeTeam:
    """A native team with many teammates and tasks, task files written as `teamtui task create` writes them."""
    team = NativeTeam(root, TEAM)
    team.create()
    for i in range(teammates):
        team.add_member(f"mate{i:02d}", status="working")
    for i in range(1, tasks + 1):
        raw = {
            "id": str(i),
            "subject": f"task number {i}",
            "description": "",
            "status": "pending",
            "active_form": "",
            "owner": "",
            "blocks": [],
            "blocked_by": [],
        }
        team.task_path(str(i)).write_text(json.dumps(raw))
    for i in range(teammates):
        team.log(f"mate{i:02d}", f"hello from mate{i:02d}")
    return team


def make(root: Path, tmp_path: Path, **kw) -> TeamTUI:
    return TeamTUI.watching(
        root, TEAM, "native", config_path=tmp_path / "cfg" / "config.toml", cursor_blink=False, **kw
    )


def filling(board: TaskBoard) -> bool:
    """Rows of the board's last rebuild are still being added, a frame's worth at a time."""
    return board._added_later < len(board._later)


def all_logs_text(app: TeamTUI) -> str:
    return "\n".join(line for log in app.dashboard.query(TeammateLog) for line in log_lines(log))


async def test_a_task_update_among_many_redraws_its_row_only(tmp_path):
    team = big_team(tmp_path / "root", 3, FIRST_ROWS + 150)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: board.row_count == FIRST_ROWS + 150 and not filling(board), "every row added")
        rows = dict(board.rows)
        before = cells(board)
        state_board = app.state.board
        team.update_task("120", subject="renamed in place")
        await until(pilot, lambda: any("renamed in place" in r for r in cells(board)), "the new subject on the board")
        after = cells(board)
        changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
        assert changed == [119], "only task #120's row may change"
        # Not cleared and refilled: every row is still the very same Row object.
        assert all(board.rows[key] is row for key, row in rows.items()) and len(board.rows) == len(rows)
        assert app.state.board is state_board, "the board is updated in place, not rebuilt from every task"


async def test_a_row_not_added_yet_is_added_as_it_is_now(tmp_path):
    big_team(tmp_path / "root", 2, FIRST_ROWS + 300)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: not filling(board) and board.row_count == FIRST_ROWS + 300, "first fill done")
        state = app.state.board
        views = state.views()
        board.show(views)  # a rebuild: only the first rows are in, the rest follow frame by frame
        assert board.row_count == FIRST_ROWS and filling(board)
        last = views[-1]
        last.task = last.task.model_copy(update={"subject": "changed while waiting"})
        assert board.update([last], "", len(views))  # no rebuild for a row still to come
        await until(pilot, lambda: not filling(board), "the remaining rows added")
        rows = cells(board)
        assert len(rows) == FIRST_ROWS + 300
        assert [r.split(" | ")[1] for r in rows] == [v.task.id for v in views], "rows keep board order"
        assert "changed while waiting" in rows[-1]


async def test_a_log_line_for_an_offscreen_teammate_writes_to_no_widget(tmp_path):
    team = big_team(tmp_path / "root", 20, 5)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        strip = app.dashboard.query_one("#log-strip")
        # Only the panels that fit side by side exist at all (not one per teammate).
        await until(
            pilot,
            lambda: strip.panels and len(app.dashboard.query(TeammateLog)) == 1 + len(strip.panels),
            "panels placed",
        )
        shown = list(strip.panels)
        assert len(shown) == strip.capacity() < 19
        hidden = next(f"mate{i:02d}" for i in range(19, -1, -1) if f"mate{i:02d}" not in shown + [app.selected])
        team.log(hidden, "TOKEN-hidden")
        team.log(shown[0], "TOKEN-shown")
        # The control: a teammate with a panel gets its line (small panels are written a few times a second).
        await until(pilot, lambda: "TOKEN-shown" in all_logs_text(app), "the shown teammate's line in its panel")
        assert app.state.logs[hidden][-1].text == "TOKEN-hidden", "the line was read"
        assert "TOKEN-hidden" not in all_logs_text(app), "and written to no widget"


async def test_a_log_only_batch_does_not_rebuild_the_team_table(tmp_path):
    team = big_team(tmp_path / "root", 12, 5)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.dashboard.query_one(TeamPanel)
        await until(pilot, lambda: panel.row_count == 12, "team rows")
        rows = dict(panel.rows)
        for i in range(12):
            team.log(f"mate{i:02d}", "busy")
        await until(
            pilot, lambda: all(app.state.logs[f"mate{i:02d}"][-1].text == "busy" for i in range(12)), "lines read"
        )
        await until(pilot, lambda: app.dashboard.health.activity_timer is None, "the once-a-second Active refresh ran")
        assert all(panel.rows[key] is row for key, row in rows.items()), "rows updated in place, never rebuilt"


async def test_a_task_update_moves_no_other_teammates_active_time(tmp_path):
    """ "12s ago" becoming "15s ago" on every row is the relative-time tick's job (every 5 s),
    not a task update's: that rewrote 100 cells of the team table per update at 100 teammates."""
    team = big_team(tmp_path / "root", 12, 5)
    clock = [time.time()]
    app = make(tmp_path / "root", tmp_path, clock=lambda: clock[0])
    async with app.run_test(size=SIZE) as pilot:
        panel = app.dashboard.query_one(TeamPanel)
        await until(pilot, lambda: panel.row_count == 12, "team rows")
        active = {f"mate{i:02d}": str(panel.get_cell(f"mate{i:02d}", "active")) for i in range(12)}
        clock[0] += 30
        team.claim_task("3", "mate05")
        await until(pilot, lambda: "#3" in str(panel.get_cell("mate05", "task")), "the claim on mate05's row")
        assert {n: str(panel.get_cell(n, "active")) for n in active if n != "mate05"} == {
            n: a for n, a in active.items() if n != "mate05"
        }
        app.dashboard.panels.team(tick=True)  # the relative-time tick
        assert all(str(panel.get_cell(n, "active")) != a for n, a in active.items() if n != "mate05"), (
            "the tick moves them"
        )


async def test_a_new_message_adds_one_row_and_is_in_view(tmp_path):
    team = big_team(tmp_path / "root", 3, 5)
    for i in range(40):
        team.send("mate00", f"older message {i}", "lead")
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.dashboard.query_one(MessageTraffic)
        await until(pilot, lambda: table.row_count == 40, "messages shown")
        rows = dict(table.rows)
        team.send("mate01", "the newest message", "lead")
        await until(pilot, lambda: table.row_count == 41, "the new message's row")
        assert all(table.rows[key] is row for key, row in rows.items()), "older rows kept, not rebuilt"
        assert "the newest message" in cells(table)[-1]
        # Scrolled to it at once: the last row is inside the visible window.
        assert table.scroll_y + table.scrollable_content_region.height >= table.header_height + 41


async def test_a_growing_log_keeps_its_scrollbar_right(tmp_path):
    """Logs skip Textual's screen relayout when they grow (SizedByLayout): their own scrollbar must still follow."""
    big_team(tmp_path / "root", 2, 3)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        log = app.dashboard.query_one("#log-main", TeammateLog)
        await until(pilot, lambda: log_lines(log) != ["no log yet"], "the log filled")
        buffer = app.state.logs[app.selected]
        for i in range(60):
            buffer.extend([LogEntry(member=app.selected, ts=1.0, text=f"line {i}")])
            log.sync(buffer)
        # Checked before yielding to the app, so no relayout from anything else can have updated it.
        assert "line 59" in log_lines(log)[-1]
        assert log.vertical_scrollbar.window_virtual_size == log.line_count > log.size.height
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0, "scrolled to the newest line"


async def test_opening_and_closing_the_filter_rebuilds_no_row(tmp_path):
    big_team(tmp_path / "root", 2, 30)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: board.row_count == 30, "the board")
        rows = dict(board.rows)
        await pilot.press("slash")
        await pilot.press("escape")
        assert app.task_query == "" and board.row_count == 30
        assert all(board.rows[key] is row for key, row in rows.items()), "nothing to filter: nothing rebuilt"
        await pilot.press("slash", "2", "9")
        assert [r.split(" | ")[1] for r in cells(board)] == ["29"], "a query does filter"
