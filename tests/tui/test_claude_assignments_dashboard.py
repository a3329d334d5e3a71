"""A Claude Code team without a task list on the dashboard (the real 2.1.328 files, copied): the
board shows the work the lead handed out and says so in its title, the team panel's "Current task"
is the teammate's open assignment, Enter shows the prompt and the result; a real task list wins;
a newer Claude Code's transcripts get one quiet line under the header."""

from __future__ import annotations

import json
from pathlib import Path

from teamtui.protocol.claude.transcripts.known import newest_tested
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.task_detail import TaskDetail
from teamtui.tui.widgets.drift import DriftLine
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel
from tests.conftest import copy_fixture

from .conftest import SIZE, cells, make, transcripts_loaded, until

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
LEAD = Path("projects") / "-src-app" / "421dba11-a86f-4c03-bd8f-13c51d730076.jsonl"


def copy_case(tmp_path: Path, case: str) -> Path:
    return copy_fixture(FIXTURES / case, tmp_path / case)


def row_of(app: TeamTUI, name: str) -> list[str]:
    return [str(getattr(c, "plain", c)) for c in app.dashboard.query_one(TeamPanel).get_row(name)]


def idle_arrives(sender: str, result: str) -> bytes:
    payload = {
        "type": "idle_notification",
        "from": sender,
        "timestamp": "2026-11-23T07:02:47.009Z",
        "idleReason": "available",
        "result": result,
    }
    body = f'Another Claude session sent a message:\n<teammate-message teammate_id="{sender}">\n{json.dumps(payload)}\n</teammate-message>'
    rec = {
        "type": "user",
        "message": {"role": "user", "content": body},
        "timestamp": "2026-11-23T07:02:47.871Z",
        "version": "2.1.328",
    }
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


async def test_the_board_shows_the_leads_assignments_and_says_so(tmp_path, config_file):
    app = make(copy_case(tmp_path, "tmux-running"), config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: board.row_count == 2, "the two assignments on the board")
        assert cells(board) == ["✓ | a1 | probe alice | alice | completed", "✓ | a2 | probe bob | bob | completed"]
        assert board.border_title == "Tasks · assignments"
        assert "Tasks 2/2 done" in str(app.dashboard.query_one(TeamHeader).render())
        assert not app.dashboard.query_one(DriftLine).display  # Claude Code 2.1.328: nothing unknown
        # Enter on a row: the Agent call's prompt and the teammate's result in full.
        board.focus()
        board.move_cursor(row=0)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TaskDetail), "the task detail open")
        shown = app.screen.render_task().plain
        assert "TMALICE: you are alice. Reply briefly." in shown
        assert "Result\nhello from the mock" in shown
        assert "Owner   alice" in shown


async def test_current_task_is_the_open_assignment_until_the_teammate_goes_idle(tmp_path, config_file):
    root = copy_case(tmp_path, "tmux-running")
    lead = root / LEAD
    lead.write_bytes(b"".join(lead.read_bytes().splitlines(keepends=True)[:37]))  # before the idle notices
    app = make(root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        await until(pilot, lambda: row_of(app, "alice")[2].startswith("#a1 pr"), "alice's current task")
        assert row_of(app, "bob")[2].startswith("#a2 pr")
        assert cells(app.dashboard.query_one(TaskBoard))[0] == "● | a1 | probe alice | alice | in progress"
        with lead.open("ab") as fh:
            fh.write(idle_arrives("alice", "all green"))
        await until(pilot, lambda: row_of(app, "alice")[2] == "—", "alice's work done")
        await until(
            pilot,
            lambda: cells(app.dashboard.query_one(TaskBoard))[0] == "✓ | a1 | probe alice | alice | completed",
            "a1 completed",
        )
        assert app.state.board.tasks["a1"].result == "all green"
        assert row_of(app, "bob")[2].startswith("#a2 pr")


async def test_a_real_task_list_wins_on_the_board(tmp_path, config_file):
    app = make(copy_case(tmp_path, "inprocess-running"), config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: board.border_title == "Tasks · task list", "the board's title")
        assert [c.split(" | ")[1] for c in cells(board)] == ["1", "2"]


async def test_a_newer_claude_code_gets_one_quiet_line(tmp_path, config_file):
    root = copy_case(tmp_path, "tmux-running")
    app = make(root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_loaded(pilot, app)
        line = app.dashboard.query_one(DriftLine)
        assert not line.display
        rec = {"type": "thinking-trace", "sessionId": "421dba11-a86f-4c03-bd8f-13c51d730076", "version": "2.1.999"}
        with (root / LEAD).open("ab") as fh:
            fh.write(json.dumps(rec, separators=(",", ":")).encode() + b"\n")
        await until(pilot, lambda: line.display, "the drift line shown")
        assert line.text == f"Claude Code 2.1.999: 1 unknown entry kind — teamtui tested up to {newest_tested()}"
        await pilot.pause()  # its region is the next layout's: on a busy machine that comes after `display`
        assert line.region.height == 1
