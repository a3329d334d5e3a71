"""The room asked to show other machines, with the real ssh harness: it stays the room whatever
arrives first, a remote team's dashboard names its host, and a host that cannot be reached is one
of the room's problems (its row says so in a few words) rather than a team."""

from __future__ import annotations

from pathlib import Path

from teamtui.session.fleet import Fleet
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetTable
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.problems import ProblemList

from tests.tui.conftest import cells, named_cells, until

from .conftest import NATIVE_TEAM, Remote, empty_local_fleet, free_port

SIZE = (180, 40)


async def test_a_room_of_hosts_stays_the_room_and_an_unreachable_host_is_a_problem_not_a_team(
    remote: Remote, tmp_path: Path
) -> None:
    box = remote.host()
    down = [o if o != str(remote.sshd.port) else str(free_port()) for o in remote.sshd.options()]
    gone = remote.host(name="gone", ssh_options=down)  # a port nothing listens on
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), box, gone]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        room = app.screen
        assert isinstance(room, FleetScreen)
        table = room.query_one(FleetTable)
        await until(pilot, lambda: sum("box:" in c for c in cells(table)) == 2 and gone.reason != "", "both hosts")
        await pilot.pause(0.3)  # time enough for a dashboard to have been pushed
        assert app.screen is room, "a room asked to show hosts stays the room"
        # The unreachable host: its row says so in a few words, its error is among the problems.
        await until(pilot, lambda: any(r["Team"].startswith("gone") for r in named_cells(table)), "its row")
        row = next(r for r in named_cells(table) if r["Team"].startswith("gone"))
        assert row["Team"] == "gone  ⚠ not connected" and row["Members"] == "" and row["Tasks"] == ""
        assert table.columns["Team"].get_render_width(table) < 40, "the Team column is not the error's"
        problems = [t.plain for t in room.query_one(ProblemList).problems]
        assert any(p.startswith("⚠ gone: cannot reach it") and "refused" in p for p in problems), problems
        # It is not a team: the header counts the host's two.
        header = room.query_one("#fleet-header").render().plain
        assert "2 teams · 2 live · 0 ended" in header, header
        # A remote team's dashboard says which machine it is on.
        table.move_cursor(row=next(i for i, c in enumerate(cells(table)) if c.startswith(NATIVE_TEAM)))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
        line = app.screen.query_one(TeamHeader)
        await until(pilot, lambda: line.shown.startswith(f" teamtui   {NATIVE_TEAM} on box  ●"), "the host named")
