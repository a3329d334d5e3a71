"""The control room with a host over a real OpenSSH server: its teams are rows (the host in Where),
a remote team opens the same dashboard, `m` there is a request whose result is a toast, and a
lost connection shows on the host's rows."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from textual.widgets import Static

from teamtui.session.fleet import Fleet
from teamtui.session.remote import RemoteHost
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.screens.request import RequestDetail
from teamtui.tui.widgets.fleet import FleetTable
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel
from tests.conftest import ask_permission
from tests.tui.conftest import cells, toasts, until

from .conftest import CLAUDE_TEAM, NATIVE_TEAM, Remote, empty_local_fleet

SIZE = (180, 40)


def room(remote: Remote, tmp_path: Path, **spec) -> tuple[TeamTUI, RemoteHost]:
    """The control room over the one host (`spec`: its settings), with no local team."""
    host = remote.host(**spec)
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), host]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    return app, host


async def test_remote_rows_a_remote_dashboard_and_m_over_ssh(remote: Remote, tmp_path: Path) -> None:
    app, host = room(remote, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, FleetScreen)
        table = app.screen.query_one(FleetTable)
        await until(pilot, lambda: sum("box:" in c for c in cells(table)) == 2, "the host's two teams", limit=20)
        row = next(i for i, c in enumerate(cells(table)) if c.startswith(NATIVE_TEAM))
        assert f"box:{remote.project}" in cells(table)[row]
        table.move_cursor(row=row)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the remote team's dashboard")
        screen = app.screen
        assert screen.session is host.sessions[remote.native_key]
        await pilot.press("m", *"over the tui", "enter")
        await until(
            pilot, lambda: any("box: message to" in t and "written to" in t for t in toasts(app)), "the result toast"
        )
        inboxes = (remote.project / ".teams" / NATIVE_TEAM).glob("*_inbox.jsonl")
        assert any(
            json.loads(line).get("content") == "over the tui" for p in inboxes for line in p.read_text().splitlines()
        )
        # The connection dies: the rows say so, and the dashboard refuses to write.
        assert host.proc is not None
        os.kill(host.proc.pid, signal.SIGKILL)
        await until(pilot, lambda: host.status.startswith("disconnected since"), "disconnected", limit=10)
        await pilot.press("m")
        await until(pilot, lambda: any("Unavailable: box is disconnected since" in t for t in toasts(app)), "refused")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "the overview")
        await until(pilot, lambda: sum("disconnected since" in c for c in cells(table)) == 2, "the rows say it")
        await until(pilot, lambda: host.connected, "connected again", limit=15)
        await until(pilot, lambda: not any("disconnected since" in c for c in cells(table)), "the rows recovered")


async def test_a_remote_claude_code_team_shows_what_its_transcripts_tell(remote: Remote, tmp_path: Path) -> None:
    """Its dashboard has the transcript columns (doing, tokens), the team's tokens in the header,
    the lead's row and the board of its assignments: what the other machine made of them."""
    app, host = room(remote, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(FleetTable)
        await until(
            pilot, lambda: any(c.startswith(CLAUDE_TEAM) for c in cells(table)), "the Claude Code team's row", limit=20
        )
        session = host.sessions[remote.claude_key]
        await until(
            pilot,
            lambda: session.state.transcripts is not None and session.state.transcripts.total_tokens(),
            "the figures",
            limit=20,
        )
        table.move_cursor(row=next(i for i, c in enumerate(cells(table)) if c.startswith(CLAUDE_TEAM)))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
        screen = app.screen
        panel = screen.query_one(TeamPanel)
        await until(
            pilot, lambda: [c.label.plain for c in panel.columns.values()][3:5] == ["Doing", "Tok"], "the columns"
        )
        assert any(c.split(" | ")[1].strip() == "team-lead" for c in cells(panel)), "the lead's row"
        assert "tokens" in screen.query_one(TeamHeader).render().plain
        assert screen.query_one(TaskBoard).border_title == "Tasks · assignments"
        assert len(screen.query_one(TaskBoard).rows) == len(session.state.assigned) > 0
        # A permission request there: in the team's strip; its detail says where it is answered,
        # and there is no pane here to go to.
        inbox = remote.claude / "teams" / CLAUDE_TEAM / "inboxes" / "team-lead.json"
        ask_permission(inbox, "perm-7", "make clean", "clean")
        strip = screen.query_one(NeedsYouStrip)
        await until(
            pilot, lambda: any(i.kind == "permission" for i in strip.items), "the request in the strip", limit=15
        )
        screen.go_to_need("alice", "permission")
        await until(
            pilot,
            lambda: isinstance(app.screen, RequestDetail) and app.screen.query(".dialog-hint"),
            "the request in full",
        )
        assert "make clean" in app.screen.render_request().plain
        hint = str(app.screen.query_one(".dialog-hint", Static).render())
        assert hint.startswith("it is answered in the team's panes on box")
        await pilot.press("p")  # nothing to go to here: the detail stays
        assert isinstance(app.screen, RequestDetail)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back")
        screen.pane_jumps.go_to("alice")
        await until(
            pilot, lambda: any("alice's pane is on box: select it there" in t for t in toasts(app)), "said where"
        )
        await pilot.press("t")
        await until(
            pilot, lambda: any("this team's panes are on box: none are opened here" in t for t in toasts(app)), "t"
        )


async def test_a_remote_teams_cost_is_priced_there_and_shown_here(remote: Remote, tmp_path: Path) -> None:
    """The transcripts stay on the other machine: it prices them (genai-prices there) and the
    figures cross in the stream; here the row, the header and each teammate's row show them, the
    same as genai-prices' own result for those messages."""
    from teamtui.protocol.claude.transcripts import TranscriptFinder
    from teamtui.protocol.cost import Cost, cost_text, money, short_money
    from tests.costgen import library_cost, priced_turns

    config = json.loads((remote.claude / "teams" / CLAUDE_TEAM / "config.json").read_text())
    paths = {m: s.path for m, s in TranscriptFinder(remote.claude, config).resolve().items()}
    with paths["alice"].open("ab") as fh:
        fh.write(priced_turns("alice", time.time() - 3600))
    want = library_cost(*paths.values())
    team = Cost(want.usd, tuple(sorted(want.unknown)), sum(want.unknown.values()), want.days)
    app, _host = room(remote, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(FleetTable)

        def cost() -> str:
            labels = [str(c.label) for c in table.ordered_columns]
            rows = [dict(zip(labels, c.split(" | "), strict=True)) for c in cells(table)]
            return next((r["Cost"] for r in rows if r["Team"].startswith(CLAUDE_TEAM)), "")

        await until(pilot, lambda: cost() == f"{money(team.usd)} + ?", "the remote team's cost on its row", limit=30)
        table.move_cursor(row=next(i for i, c in enumerate(cells(table)) if c.startswith(CLAUDE_TEAM)))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
        await until(pilot, lambda: cost_text(team) in app.screen.query_one(TeamHeader).render().plain, "the header")
        panel = app.screen.query_one(TeamPanel)
        columns = [c.label.plain for c in panel.columns.values()]
        alice = library_cost(paths["alice"])
        await until(
            pilot,
            lambda: str(panel.get_row("alice")[columns.index("Cost")].plain) == short_money(alice.usd) + "?",
            "alice's cost, priced over there",
        )
