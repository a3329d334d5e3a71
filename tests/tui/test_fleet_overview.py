"""The control room: every team on one screen, live; a team's dashboard one key away and its state
kept while the person looks elsewhere; what needs the person across teams."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetNeeds, FleetTable
from teamtui.tui.widgets.footer import KeyFooter
from tests.conftest import ask_permission, native_team as native

from .conftest import cells, until

SIZE = (160, 40)
CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "tmux-running"


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project with two native teams (a root of its own each) and a Claude Code folder with one team."""
    api, web, claude = tmp_path / "api", tmp_path / "web", tmp_path / "claude"
    api.mkdir()
    web.mkdir()
    shutil.copytree(CLAUDE, claude)
    native(api, "api-team", ["ana", "bo"], ["build the api"])
    native(web, "web-team", ["cy"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    return {"api": api, "web": web, "claude": claude}


def app_on(machine: dict[str, Path], tmp_path: Path) -> TeamTUI:
    settings = load_settings(tmp_path / "none.toml")
    fleet = LocalSource(settings, roots=[machine["api"], machine["web"]], cwd=tmp_path, claude_root=machine["claude"])
    fleet.discover()
    return TeamTUI(Fleet([fleet]), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)


def names(app: TeamTUI) -> list[str]:
    """Each row's first cell (the team's name), top to bottom."""
    return [row.split(" | ")[0] for row in cells(app.screen.query_one(FleetTable))]


async def test_every_team_is_a_row_and_a_change_reaches_its_row(machine, tmp_path):
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, FleetScreen)
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        assert {"api-team", "web-team", "session-421dba11"} <= {n.split()[0] for n in names(app)}
        table = app.screen.query_one(FleetTable)
        assert any("0/1" in c for c in cells(table)), "the api team's tasks, done of total"
        # A task completed on disk: its row says so, from the file event.
        NativeTeam(machine["api"], "api-team").complete_task("1")
        await until(pilot, lambda: any("1/1" in c for c in cells(table)), "the row followed the file")


async def test_the_rows_are_on_the_first_frame(machine, tmp_path):
    """The overview draws its rows as it mounts, not on the next batch or tick."""
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE):
        assert len(names(app)) == 3  # no pause: what on_mount drew


async def test_a_change_while_the_room_is_taken_down_is_not_a_crash(machine, tmp_path):
    """A batch can reach the room after its parts are removed (the app closing): nothing is drawn."""
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        room = app.screen
        await room.query_one(FleetTable).remove()
        NativeTeam(machine["api"], "api-team").complete_task("1")
        room.show(room.rows, room.needs)
        room.show_muted(None)
        await until(pilot, lambda: any(r.tasks_done == 1 for _, r in room.rows), "the batch still taken in")
        assert app.is_running and app._exception is None


async def test_a_team_that_appears_becomes_a_row(machine, tmp_path):
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        native(machine["web"], "web-two", ["dee"])
        await until(pilot, lambda: any(n.startswith("web-two") for n in names(app)), "the new team's row")


async def test_enter_opens_the_dashboard_escape_returns_and_the_state_is_kept(machine, tmp_path):
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        row = next(i for i, n in enumerate(names(app)) if n.startswith("api-team"))
        app.screen.query_one(FleetTable).move_cursor(row=row)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team's dashboard")
        first = app.screen
        assert first.session is not None and first.session.name == "api-team"
        state = first.session.state
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "back to the overview")
        await pilot.pause()
        # The key bar is the overview's: no "Overview" key (not even dimmed) where it is the overview.
        assert "Overview" not in [k.description for k in app.screen.query_one(KeyFooter).slots]
        NativeTeam(machine["api"], "api-team").send("ana", "while you were away", "lead")
        await until(
            pilot, lambda: any(m.content == "while you were away" for m in state.messages), "followed meanwhile"
        )
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is first, "the same dashboard again")
        assert first.session.state is state  # not read again from scratch
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.screen is not first, "the next team")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: app.screen is first, "and back")


async def opened_at_the_request(pilot) -> None:
    """Until the need chosen in the room opens: its team's dashboard, or the request itself."""
    app = pilot.app
    await until(
        pilot,
        lambda: isinstance(app.screen, DashboardScreen) or app.screen.__class__.__name__ == "RequestDetail",
        "its team opened at the request",
    )


def alice_asks(machine: dict[str, Path]) -> None:
    """A permission request of alice's in the Claude Code team's lead inbox."""
    inbox = machine["claude"] / "teams" / "session-421dba11" / "inboxes" / "team-lead.json"
    ask_permission(inbox, "perm-1", "rm -rf build", "clean the build")


async def test_what_needs_you_across_teams_is_listed_and_opens_its_team(machine, tmp_path):
    """A permission request in the Claude Code team's lead inbox is listed with its team; enter opens it."""
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        alice_asks(machine)
        needs = app.screen.query_one(FleetNeeds)
        await until(pilot, lambda: any(n.kind == "permission" for n in needs.needs), "the request listed", limit=15)
        assert app.screen.query_one("#fleet-header").render().plain.count("need") == 1
        at = next(i for i, n in enumerate(needs.needs) if n.kind == "permission")
        line = needs.get_option_at_index(at).prompt.plain
        assert "session-421dba11 · alice asks permission for Bash" in line and "alice: alice" not in line
        needs.focus()
        needs.highlighted = at
        await pilot.press("enter")
        await opened_at_the_request(pilot)


async def test_tab_to_needs_you_highlights_its_first_item_and_enter_opens_it(machine, tmp_path):
    """Tab from the teams lands on an item (not on nothing): enter acts on it at once, and it stays
    highlighted while the ages around it move on."""
    now = [time.time()]
    app = app_on(machine, tmp_path)
    app.fleet.overview.now = lambda: now[0]
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        alice_asks(machine)
        needs = app.screen.query_one(FleetNeeds)
        await until(pilot, lambda: any(n.kind == "permission" for n in needs.needs), "the request listed", limit=15)
        assert needs.highlighted is None  # nothing chosen while the teams have the focus
        await pilot.press("tab")
        assert app.screen.focused is needs and needs.highlighted == 0
        now[0] += 600  # the screen's tick: every "… ago" is drawn again
        app.screen._draw()
        await pilot.pause()
        assert needs.highlighted == 0
        await pilot.press("enter")
        await opened_at_the_request(pilot)


async def test_a_half_written_or_hostile_team_folder_is_a_row_with_its_problem(machine, tmp_path):
    teams = machine["web"] / ".teams"
    (teams / "half").mkdir()
    (teams / "half" / "config.json").write_text('{"name": "half", "members": [', encoding="utf-8")
    hostile = teams / "\x1b[31mred[b]"
    hostile.mkdir()
    (hostile / "config.json").write_text("[]", encoding="utf-8")
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any(n.startswith("half") for n in names(app)), "the half-written team's row")
        row = next(r for r in cells(app.screen.query_one(FleetTable)) if r.startswith("half"))
        assert "config.json" in row or "cannot be read" in row  # its problem, said on its row
        assert not any("\x1b" in r for r in cells(app.screen.query_one(FleetTable)))  # escapes never reach the screen
        assert {"api-team", "web-team"} <= {n.split()[0] for n in names(app)}  # the others are unaffected
        (teams / "half" / "config.json").write_text('{"name": "half", "members": []}', encoding="utf-8")
        await until(
            pilot,
            lambda: any(
                r.startswith("half") and "config.json" not in r for r in cells(app.screen.query_one(FleetTable))
            ),
            "the row heals once the file is whole",
        )


async def test_the_teammate_panes_follow_the_team_on_screen_and_the_overview_has_none(machine, tmp_path):
    from .conftest import RecordingPanes

    panes = RecordingPanes()
    settings = load_settings(tmp_path / "none.toml")
    fleet = LocalSource(settings, roots=[machine["api"], machine["web"]], cwd=tmp_path, claude_root=machine["claude"])
    fleet.discover()
    app = TeamTUI(Fleet([fleet]), panes=panes, config_path=tmp_path / "none.toml", cursor_blink=False)
    synced = lambda: [names for call, names in panes.calls if call == "sync"]  # noqa: E731
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(names(app)) == 3, "three rows")
        await pilot.pause(0.2)
        assert synced() == []  # the overview opens no pane
        table = app.screen.query_one(FleetTable)
        table.move_cursor(row=next(i for i, n in enumerate(names(app)) if n.startswith("api-team")))
        await pilot.press("enter")
        await until(pilot, lambda: synced() and synced()[-1] == ["ana", "bo"], "the api team's panes")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "back to the overview")
        assert synced()[-1] == []  # back on the overview: the team's panes close, the room gets its width back
        table = app.screen.query_one(FleetTable)
        table.move_cursor(row=next(i for i, n in enumerate(names(app)) if n.startswith("web-team")))
        await pilot.press("enter")
        await until(pilot, lambda: synced()[-1] == ["cy"], "the web team's panes, in their place")


async def test_z_mutes_the_calls_and_both_headers_say_until_when(machine, tmp_path):
    app = app_on(machine, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.fleet is not None and app.fleet.notifier is not None, "the notifier built")
        await pilot.press("z")
        await until(
            pilot, lambda: "muted until" in app.screen.query_one("#fleet-header").render().plain, "the overview says it"
        )
        assert app.fleet.notifier.muted_until is not None
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "a team's dashboard")
        from teamtui.tui.widgets.header import TeamHeader

        await until(
            pilot, lambda: "muted until" in app.screen.query_one(TeamHeader).render().plain, "its header says it too"
        )
        await pilot.press("z")
        await until(pilot, lambda: "muted until" not in app.screen.query_one(TeamHeader).render().plain, "and unmuted")
        assert app.fleet.notifier.muted_until is None
