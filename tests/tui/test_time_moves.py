"""Ages move on screen while nothing changes on disk: a request's "10s ago" in the dashboard's strip
and in the room's list, and the room's "Active". Each screen has one clock (a timer), shortened
here; the app's clock is moved by hand, so what is drawn follows it and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamtui.protocol.settings import load_settings
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens import dashboard, fleet
from teamtui.tui.screenshots import CLAUDE_CODE_NOW, fleet_shown, freeze_claude_code, freeze_team, transcripts_shown
from teamtui.tui.widgets.fleet import FleetNeeds, FleetTable
from teamtui.tui.widgets.needs_you import NeedsYouStrip

from .conftest import SIZE, cells, until


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def quick_clocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dashboard, "RELATIVE_TIME_REFRESH", 0.05)
    monkeypatch.setattr(fleet, "TICK", 0.05)


def lines(options) -> list[str]:
    return [options.get_option_at_index(i).prompt.plain for i in range(options.option_count)]


async def test_the_dashboards_needs_strip_ages(tmp_path: Path) -> None:
    clock = Clock(CLAUDE_CODE_NOW)
    app = TeamTUI.watching(freeze_claude_code(tmp_path), None, None, config_path=tmp_path / "config.toml", clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_shown(pilot)
        strip = app.dashboard.query_one(NeedsYouStrip)
        assert "alice asks permission" in lines(strip)[0] and "· 10s ago" in lines(strip)[0], lines(strip)
        clock.now += 120
        await until(pilot, lambda: "· 2m ago" in lines(strip)[0], "the request's age to move on")


async def test_the_rooms_needs_and_rows_age(tmp_path: Path) -> None:
    clock = Clock(CLAUDE_CODE_NOW)
    claude = freeze_claude_code(tmp_path / "cc")
    native = freeze_team(tmp_path / "proj", "native", CLAUDE_CODE_NOW - 30)
    config = tmp_path / "config.toml"
    config.write_text("")
    room = LocalSource(
        load_settings(config),
        roots=[native],
        cwd=tmp_path,
        claude_root=claude,
        clock=clock,
        registry=tmp_path / "registry",
        journal=tmp_path / "journal",
    )
    room.discover()
    app = TeamTUI(fleet=room, config_path=config, clock=clock, cursor_blink=False, sync_panes=False)
    async with app.run_test(size=SIZE) as pilot:
        await fleet_shown(pilot)
        needs = app.screen.query_one(FleetNeeds)
        asks = next(line for line in lines(needs) if "alice asks permission" in line)
        assert asks.endswith("· 10s ago"), asks

        def native_row() -> str:
            return next(r for r in cells(app.screen.query_one(FleetTable)) if r.startswith("refactor-auth"))

        assert "| 1m |" in native_row()
        clock.now += 3 * 3600
        await until(
            pilot, lambda: any("alice asks permission" in n and n.endswith("· 3h ago") for n in lines(needs)), "needs"
        )
        await until(pilot, lambda: "| 3h |" in native_row(), "the row's Active to move on")
