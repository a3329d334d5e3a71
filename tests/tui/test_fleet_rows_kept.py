"""A room of hundreds of teams makes again only the cells that changed (benchmark row 17: a thousand
teams through NATS); a kept cell must still move with the time (Active), with a count the room sets
on the row, and with a row made again that says something else."""

from __future__ import annotations

import time
from pathlib import Path

from textual.app import App, ComposeResult

from teamtui.protocol.fleet.discover import FleetTeam
from teamtui.protocol.fleet.overview import FleetRow
from teamtui.tui.palette import Palette
from teamtui.tui.widgets.fleet import FleetTable


class Room(App[None]):
    def compose(self) -> ComposeResult:
        yield FleetTable()


def a_row(**over) -> FleetRow:
    row = FleetRow(FleetTeam(Path("/srv/p"), "t", "native", "native"), "t", "native")
    row.tasks_done, row.tasks_total = 1, 4
    for k, v in over.items():
        setattr(row, k, v)
    return row


async def test_a_kept_cell_moves_with_time_and_counts() -> None:
    app = Room()
    async with app.run_test(size=(160, 10)) as pilot:
        table = app.query_one(FleetTable)
        table.palette = Palette()
        now = time.time()
        row = a_row(last_activity=now - 5)
        table.show([("k", row)], now)
        await pilot.pause()

        def cell(column: str) -> str:
            return table.get_cell("k", column).plain

        assert (cell("Active"), cell("Tasks"), cell("Needs")) == ("5s", "1/4", "")
        table.show([("k", row)], now + 7)  # the same row, later: its age alone moved
        assert cell("Active") == "12s" and cell("Tasks") == "1/4"
        row.needs_you = 3  # the room sets its count on the row it was given
        table.show([("k", row)], now + 7)
        assert cell("Needs") == "3"
        table.show([("k", a_row(last_activity=now - 5, needs_you=3, tasks_total=5))], now + 7)  # made again, changed
        assert cell("Tasks") == "1/5" and cell("Active") == "12s"
