"""The real control room (Pilot) with a NatsSource beside this machine's: a published team is a row
(the host in Where), a change there moves its row, `enter` opens the same dashboard, `m` there is
carried out by the publishing host and its result is a toast, and a host that stops publishing
shows on its rows and comes back."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetTable
from teamtui.tui.widgets.header import TeamHeader
from tests.remote.conftest import empty_local_fleet
from tests.tui.conftest import cells, toasts, until

from .conftest import EXAMPLES, NATIVE_TEAM, Host, Server, copy_tree, room

SIZE = (180, 40)


def inbox(host: Host, member: str) -> list[dict]:
    path = host.project / ".teams" / NATIVE_TEAM / f"{member}_inbox.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_published_rows_a_dashboard_and_m_through_nats(server: Server, hosts, tmp_path: Path) -> None:
    box = hosts("box1")
    box.publish(server.url)
    source = room(server.url, stall=3.0)
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), source]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    where = f"box1:{os.path.realpath(box.project)}"
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, FleetScreen)
        table = app.screen.query_one(FleetTable)
        await until(pilot, lambda: any(where in c for c in cells(table)), "the published team's row")
        row = next(i for i, c in enumerate(cells(table)) if where in c)
        assert cells(table)[row].startswith(NATIVE_TEAM)
        # A change on the publishing host moves its row.
        team = NativeTeam(box.project, NATIVE_TEAM)
        before = cells(table)[row]
        team.create_task("from the publishing host")
        await until(pilot, lambda: cells(table)[row] != before, "the row moved")
        table.move_cursor(row=row)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
        key = ("nats:box1", os.path.realpath(box.project), NATIVE_TEAM)
        assert app.screen.session is source.sessions[key]
        await pilot.press("m", *"through the room", "enter")
        await until(pilot, lambda: any("box1: message to" in t and "written to" in t for t in toasts(app)), "the toast")
        assert any(e["content"] == "through the room" for name in ("hunter", "scout") for e in _safe_inbox(box, name))
        # The host stops publishing: its rows and its dashboard say so; `m` is refused here.
        box.stop(signal.SIGKILL)
        await until(pilot, lambda: source.hosts["box1"].status.startswith("disconnected since"), "disconnected")
        await pilot.press("m")
        await until(pilot, lambda: any("box1 is disconnected since" in t for t in toasts(app)), "refused")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "the overview")
        await until(pilot, lambda: any("disconnected since" in c for c in cells(table)), "the row says it")
        box.publish(server.url)
        await until(pilot, lambda: not any("disconnected since" in c for c in cells(table)), "back", limit=30)


def _safe_inbox(host: Host, name: str) -> list[dict]:
    try:
        return inbox(host, name)
    except FileNotFoundError:
        return []


async def test_a_room_of_nats_hosts_stays_the_room_and_a_dashboard_names_the_host(
    server: Server, hosts, tmp_path: Path
) -> None:
    """No team on this machine: the first published team to arrive is a row, not the screen (the
    one-team rule is a lone machine's); its dashboard's header says which machine it is on."""
    box = hosts("box1")
    box.publish(server.url)
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), room(server.url)]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(FleetTable)
        await until(pilot, lambda: any(c.startswith(NATIVE_TEAM) for c in cells(table)), "the published team's row")
        await pilot.pause(0.3)  # time enough for a dashboard to have been pushed
        assert isinstance(app.screen, FleetScreen)
        table.move_cursor(row=next(i for i, c in enumerate(cells(table)) if c.startswith(NATIVE_TEAM)))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
        header = app.screen.query_one(TeamHeader)
        await until(pilot, lambda: header.shown.startswith(f" teamtui   {NATIVE_TEAM} on box1  ●"), "the host named")


async def test_a_lone_team_of_this_machine_beside_a_nats_server_opens_on_the_room(
    server: Server, tmp_path: Path
) -> None:
    """One team here and a server asked for: the room, not that team's dashboard."""
    here = tmp_path / "here"
    copy_tree(EXAMPLES / "native", here)
    local = LocalSource(
        load_settings(tmp_path / "none.toml"), roots=[here], cwd=here, claude_root=here, registry=here / "runs"
    )
    local.discover()
    app = TeamTUI(
        Fleet([local, room(server.url)]), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False
    )
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(FleetTable)
        await until(pilot, lambda: any(c.startswith(NATIVE_TEAM) for c in cells(table)), "this machine's team")
        await pilot.pause(0.3)
        assert isinstance(app.screen, FleetScreen)
