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
from teamtui.session.fleet import Fleet
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetTable
from tests.remote.conftest import empty_local_fleet
from tests.tui.conftest import cells, toasts, until

from .conftest import NATIVE_TEAM, Host, Server, room

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
