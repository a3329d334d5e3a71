"""A Claude Code workflow run on the dashboard, from the real 2.1.331 files: its agents are the
team's members and its agent() calls the board, each agent's transcript is its log, the header
says how the run stands, the run takes no message, and the picker lists it beside a session team."""

from __future__ import annotations

import shutil
from pathlib import Path

from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.fleet import FleetTable
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel
from tests.conftest import writable

from .conftest import SIZE, cells, log_lines, make_in as make, named_cells, until

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-workflow"
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
FAILED = "probe-flow-wf_2226302a-502"
RUNNING = "probe-flow-wf_4e0e88a0-7e7"


def copy_case(tmp_path: Path, case: str) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / case / "projects", root / "projects", dirs_exist_ok=True)
    return writable(root, touch=True)


def header(app: TeamTUI) -> str:
    shown = app.dashboard.query_one(TeamHeader)._shown
    return shown.plain if shown is not None else ""


async def test_a_failed_run_on_the_dashboard(tmp_path):
    app = make(copy_case(tmp_path, "failed"), tmp_path, team=FAILED)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: app.state is not None and app.state.transcripts.ready, "the run and its transcripts read"
        )
        panel = app.dashboard.query_one(TeamPanel)
        await until(pilot, lambda: panel.row_count == 3, "a row per agent")
        assert [str(r.key.value) for r in panel.ordered_rows] == ["alpha", "beta", "gamma"]
        board = cells(app.dashboard.query_one(TaskBoard))
        assert [row.split(" | ")[1:3] for row in board][::2] == [["1", "alpha"], ["3", "gamma"]]
        assert board[1].split(" | ")[2].startswith("beta\nfailed: API Error: 400 WFBROKEN")  # why, under the subject
        assert [row.split(" | ")[-1] for row in board] == ["completed", "failed", "completed"]
        assert FAILED in header(app) and "workflow failed" in header(app) and "Tasks 2/3 done" in header(app)
        assert "3 members · workflow" in header(app)
        # An agent's transcript is its log.
        panel.move_cursor(row=panel.get_row_index("gamma"))
        await until(
            pilot,
            lambda: any("RESULT-C" in line for line in log_lines(app.dashboard.query_one("#log-main"))),
            "gamma's log shown",
        )
        # `m` on an agent: nothing to write to.
        await pilot.press("m")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert any("Unavailable: a workflow run takes no messages" in str(n.message) for n in app._notifications)
        assert app.dashboard.query_one(MessageTraffic).border_subtitle == "a workflow run takes no messages"


async def test_a_running_run_completes_on_screen(tmp_path):
    root = copy_case(tmp_path, "running")
    app = make(root, tmp_path, team=RUNNING)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "workflow running" in header(app), "the running run")
        board = app.dashboard.query_one(TaskBoard)
        assert [row.split(" | ")[-1] for row in cells(board)] == ["completed", "completed", "in progress"]
        # The run ends: gamma's result in the journal, then the record.
        session = root / "projects" / "-src-app" / "2dea95bc-8389-45c4-becb-755f5c99e7ad"
        done = FIXTURES / "completed" / "projects" / "-src-app" / session.name
        journal = session / "subagents" / "workflows" / "wf_4e0e88a0-7e7" / "journal.jsonl"
        journal.write_bytes((done / "subagents" / "workflows" / "wf_4e0e88a0-7e7" / "journal.jsonl").read_bytes())
        await until(
            pilot, lambda: [row.split(" | ")[-1] for row in cells(board)] == ["completed"] * 3, "gamma's step done"
        )
        shutil.copy(done / "workflows" / "wf_4e0e88a0-7e7.json", session / "workflows" / "wf_4e0e88a0-7e7.json")
        await until(pilot, lambda: "workflow completed" in header(app), "the run completed")


async def test_the_room_lists_a_run_beside_a_session_team(tmp_path):
    root = copy_case(tmp_path, "completed")
    shutil.copytree(EXAMPLES / "tmux-running" / "teams", root / "teams")
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.fleet.overview.query_one(FleetTable)
        await until(pilot, lambda: len(cells(table)) == 2, "both in the room")
        rows = {r["Team"].split()[0]: r for r in named_cells(table)}
        assert set(rows) == {"session-421dba11", RUNNING}
        # a run's Lead cell is its status
        assert (rows[RUNNING]["Lead"], rows[RUNNING]["Tasks"], rows[RUNNING]["Where"]) == (
            "completed",
            "3/3",
            "/src/app",
        )
        assert rows["session-421dba11"]["Lead"] in ("alive", "ended", "unknown")
        table.move_cursor(row=[r.split(" | ")[0].split()[0] for r in cells(table)].index(RUNNING))
        await pilot.press("enter")
        await until(pilot, lambda: app.state is not None and app.state.name == RUNNING, "the run opened")
        await until(pilot, lambda: "workflow completed" in header(app), "its header")
