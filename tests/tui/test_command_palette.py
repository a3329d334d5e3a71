"""The command palette (ctrl+p) runs the control room's actions by name: the cost, the search,
next / previous team and back to the overview; on the control room before any team was opened too."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette

from teamtui.protocol.cost import cost_text
from teamtui.tui.screenshots import fleet_shown, make_fleet_app

from .conftest import SIZE, record_toasts, until


async def run_from_palette(pilot, typed: str, name: str) -> None:
    """ctrl+p, `typed`, and enter once the palette's first hit is `name`."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
    await pilot.press(*typed)

    def first() -> str:
        hits = app.screen.query_one(CommandList)
        return str(hits.get_option_at_index(0).prompt).split("\n")[0] if hits.option_count else ""

    await until(pilot, lambda: first() == name, f"{name!r} first for {typed!r}")
    await pilot.press("enter")
    await until(pilot, lambda: not isinstance(app.screen, CommandPalette), "the palette closed")


async def test_the_palette_runs_the_control_rooms_actions(tmp_path: Path) -> None:
    app = make_fleet_app(tmp_path / "room")
    async with app.run_test(size=SIZE) as pilot:
        await fleet_shown(pilot)
        said = record_toasts(app)
        assert app.dashboard is None  # the room only: the palette has no team's actions, and still works
        await run_from_palette(pilot, "cost", "Cost: today's spend and each team's")
        await until(pilot, lambda: any(s.startswith("Today ") for s in said), "the cost said")
        (cost,) = [s for s in said if s.startswith("Today ")]
        priced = [r for _k, r in app.screen.rows if r.cost is not None]
        assert priced and all(f"{r.name}: {cost_text(r.cost)}" in cost for r in priced), cost

        await run_from_palette(pilot, "search", "Search every team's history")
        await until(pilot, lambda: type(app.screen).__name__ == "SearchScreen", "the search")
        await pilot.press("escape")

        order = list(app.fleet.order)
        await run_from_palette(pilot, "next team", "Next team")
        await until(pilot, lambda: app.screen is app.fleet.dashboards.get(order[0]), "the first team")
        await run_from_palette(pilot, "next team", "Next team")
        await until(pilot, lambda: app.screen is app.fleet.dashboards.get(order[1]), "the second team")
        await run_from_palette(pilot, "previous", "Previous team")
        await until(pilot, lambda: app.screen is app.fleet.dashboards.get(order[0]), "the first team again")
        await run_from_palette(pilot, "overview", "Overview: the control room, every team")
        await until(pilot, lambda: app.screen is app.fleet.overview, "the control room")
