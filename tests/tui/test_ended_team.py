"""A Claude Code team whose lead exits looks ended on its dashboard, not only in its header: nothing
waits for the person any more (the request went with the team), its members are gone, and the keys
that cannot work (m, b, x, S) are dimmed in the footer and say why when pressed."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

from teamtui.tui.app import TeamTUI
from teamtui.tui.screenshots import CLAUDE_CODE_NOW, freeze_claude_code, transcripts_shown
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from teamtui.tui.widgets.team import TeamPanel

from .conftest import SIZE, cells, until

TEAM = "session-421dba11"
WRITES = ("message", "broadcast", "shutdown_teammate", "shutdown_team")


def end_team(root: Path) -> None:
    """What Claude Code does when the lead exits: rename the team folder aside, then delete it."""
    team = root / "teams" / TEAM
    aside = team.with_name(f"{TEAM}.deleted-{uuid.uuid4()}")
    team.rename(aside)
    shutil.rmtree(aside)


def dimmed(app: TeamTUI) -> set[str]:
    return {k.action for k in app.screen.query_one(KeyFooter).slots if not k.usable}


def notes(app: TeamTUI) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_team_whose_lead_exited_looks_ended(tmp_path: Path) -> None:
    root = freeze_claude_code(tmp_path)
    app = TeamTUI.watching(root, None, None, config_path=tmp_path / "config.toml", clock=lambda: CLAUDE_CODE_NOW)
    async with app.run_test(size=SIZE) as pilot:
        await transcripts_shown(pilot)
        strip = app.dashboard.query_one(NeedsYouStrip)
        assert strip.display and strip.items, "alice's request waits, before"
        assert dimmed(app).isdisjoint(WRITES)
        end_team(root)
        await until(pilot, lambda: app.session is not None and not app.session.live, "the end seen")
        await pilot.pause()
        assert not strip.display and strip.items == []  # nobody is left to answer alice's request
        rows = cells(app.dashboard.query_one(TeamPanel))
        assert rows and all("gone" in row for row in rows), rows
        assert set(WRITES) <= dimmed(app)
        await pilot.press("m")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert "Unavailable: the team has ended (its lead exited): it is shown as it was." in notes(app)
        await pilot.press("S")  # nobody can approve a shutdown now; it looks for panes still running teammates
        await until(
            pilot, lambda: any(n.startswith("team-lead has ended: nobody can approve") for n in notes(app)), "S"
        )
        assert type(app.screen).__name__ == "DashboardScreen"
