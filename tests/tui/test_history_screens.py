"""The history in the UI: the dashboard's `h` opens the team's timeline (zoom and move with keys),
the room's `/` searches every team (enter opens the team); a snapshot of each."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from teamtui.protocol.history import db_path
from teamtui.protocol.history.db import connect
from teamtui.protocol.history.ops import TeamIdent, Txn
from teamtui.protocol.history.timeline import HistoryMember, TeamHistory
from teamtui.protocol.history.writer import shared_writer
from teamtui.tui.palette import Palette
from teamtui.tui.screens.search import SearchScreen
from teamtui.tui.screens.timeline import TimelineScreen
from teamtui.tui.screenshots import fleet_shown, make_app, make_fleet_app

from .conftest import SIZE, until

T0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC


def a_day() -> TeamHistory:
    """Three teammates over eight hours: ada works mornings, waits on a person at noon; bob joins late."""
    activity = [(T0 + s, "ada") for s in range(0, 4 * 3600, 45)] + [
        (T0 + 5 * 3600 + s, "ada") for s in range(0, 3600, 45)
    ]
    activity += [(T0 + 3 * 3600 + s, "bob") for s in range(0, 4 * 3600, 90)]
    activity += [(T0 + s, "cy") for s in range(0, 8 * 3600, 1800)]
    return TeamHistory(
        name="payments-rewrite",
        layout="native",
        start=T0,
        end=T0 + 8 * 3600,
        members=[
            HistoryMember("ada", joined_at=T0),
            HistoryMember("bob", joined_at=T0 + 3 * 3600),
            HistoryMember("cy", joined_at=T0),
        ],
        member_events=[(T0 + 3 * 3600, "bob", "joined", ""), (T0 + 7 * 3600, "cy", "left", "")],
        activity=sorted(activity),
        needs=[(T0 + 4 * 3600, T0 + 5 * 3600, "ada", "permission", "ada asks to run the migration", "answered")],
        task_events=[
            (T0 + 60, "task", "1", "in_progress", "ada", "Schema for ledgers"),
            (T0 + 3 * 3600, "task", "1", "completed", "ada", ""),
            (T0 + 3 * 3600, "task", "2", "pending", "", "Port the refund flow"),
            (T0 + 3.5 * 3600, "task", "2", "in_progress", "bob", ""),
        ],
        messages=[(T0 + i * 1200, "lead", "ada" if i % 2 else "bob", "message") for i in range(24)],
    )


class OneScreen(App[None]):
    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def on_mount(self) -> None:
        self.push_screen(self.make(self))


def timeline_app(history: TeamHistory) -> OneScreen:
    def make(app: App) -> TimelineScreen:
        palette = Palette.of(app.current_theme, app.get_css_variables(), {})

        async def load() -> TeamHistory:
            return history

        return TimelineScreen(history.name, load, palette)

    return OneScreen(make)


async def timeline_shown(pilot) -> None:
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, TimelineScreen) and pilot.app.screen.history is not None,
        "the timeline read",
    )
    await pilot.pause()


async def test_zoom_and_move_along_the_timeline() -> None:
    app = timeline_app(a_day())
    async with app.run_test(size=SIZE) as pilot:
        await timeline_shown(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert screen.window == (T0, T0 + 8 * 3600)
        body = str(screen._body.render())
        lanes = {line.split()[0]: line for line in body.splitlines()[1:4]}
        assert set(lanes) == {"ada", "bob", "cy"} and "█" in lanes["ada"] and "▲" in lanes["ada"]
        assert "▒" in lanes["ada"], "ada waited on a person at noon"
        assert "#1 Schema for" in body and "━" in body
        await pilot.press("plus")
        assert screen.window == (T0 + 2 * 3600, T0 + 6 * 3600)
        await pilot.press(*["plus"] * 9)
        start, end = screen.window
        assert end - start == 60.0, "as far in as a minute"
        assert "(1 min, as far in as it goes)" in str(screen._header.render())
        await pilot.press("0")
        assert screen.window == (T0, T0 + 8 * 3600)
        await pilot.press("plus", "left")
        assert screen.window == (T0 + 3600, T0 + 5 * 3600)
        await pilot.press("left", "left", "left", "left", "left")
        assert screen.window == (T0, T0 + 4 * 3600), "not before the run"
        await pilot.press("end")
        assert screen.window == (T0 + 4 * 3600, T0 + 8 * 3600)
        await pilot.press("minus", "minus")
        assert screen.window == (T0, T0 + 8 * 3600), "not beyond the whole run"
        await pilot.press("escape")
        assert not isinstance(app.screen, TimelineScreen)


async def test_the_dashboard_opens_its_teams_timeline(frozen_native: Path) -> None:
    app = make_app(frozen_native)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team read")
        assert shared_writer(db_path()).flush(), "the session recorded the team"
        await pilot.press("h")
        await timeline_shown(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen) and screen.history.name == "refactor-auth"
        body = str(screen._body.render())
        assert {"hunter", "scout", "tracer"} <= {line.split()[0] for line in body.splitlines()[1:] if line.strip()}
        await pilot.press("escape")
        assert type(app.screen).__name__ == "DashboardScreen"


def test_timeline_snapshot(snap_compare) -> None:
    assert snap_compare(timeline_app(a_day()), run_before=timeline_shown, terminal_size=SIZE)


# ------------------------------------------------------------------ search


def fill(path: Path) -> None:
    con = connect(path)
    con.execute("BEGIN")
    txn = Txn(con)
    pay, web = (
        TeamIdent("", "native", "/src/pay", "payments-rewrite"),
        TeamIdent("gpu-box", "claude", "/home/me/.claude", "web-redesign"),
    )
    txn.apply(("header", pay, T0, ("lead", "", None, [("ada", "", "", "", "", T0)], {}, True)))
    txn.apply(
        (
            "message",
            pay,
            T0 + 60,
            ("lead", "ada", "message", "the [bold]build[/bold] broke on main \x1b[31m", "", T0 + 60, None, False),
        )
    )
    txn.apply(
        ("entries", web, T0 + 120, ("transcript", [("bob", T0 + 120, "info", "Bash: npm run build && npm test", 4)]))
    )
    txn.apply(("change", pay, T0 + 180, ("ada", "src/build/ledger.py", "modified", "1", 4, 1, None)))
    txn.finish()
    con.execute("COMMIT")
    con.close()


def search_app(path: Path, query: str = "") -> OneScreen:
    def make(app: App) -> SearchScreen:
        palette = Palette.of(app.current_theme, app.get_css_variables(), {})
        return SearchScreen(palette, path=path, clock=lambda: T0 + 3600, query=query)

    return OneScreen(make)


async def results_shown(pilot) -> None:
    await until(
        pilot, lambda: isinstance(pilot.app.screen, SearchScreen) and pilot.app.screen.searched != "", "the search done"
    )
    await pilot.pause()


async def test_typing_searches_and_a_bad_query_says_why(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    fill(path)
    app = search_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"build")
        await until(pilot, lambda: app.screen.searched == "build", "the search for 'build'")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        assert [(h.team, h.kind) for h in screen.hits] == [
            ("payments-rewrite", "change"),
            ("web-redesign", "transcript"),
            ("payments-rewrite", "message"),
        ]
        from teamtui.tui.screens.search import OptionList

        shown = [str(o.prompt) for o in screen.query_one(OptionList).options]
        assert "web-redesign@gpu-box" in shown[1] and "npm run build" in shown[1]
        assert "lead → ada" in shown[2] and "[bold]build[/bold]" in shown[2] and "\\x1b[31m" in shown[2]
        await pilot.press("space", "quotation_mark")
        await until(pilot, lambda: app.screen.searched == 'build "', "the unclosed quote")
        status = str(screen.query_one("#search-status").render())
        assert "a quote is not closed" in status and screen.hits == []


async def test_the_room_searches_every_team_and_enter_opens_the_team(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    app = make_fleet_app(tmp_path / "fleet")
    chosen: list[SearchScreen.Chosen] = []
    async with app.run_test(size=SIZE) as pilot:
        post = app.post_message

        def posted(message) -> bool:
            if isinstance(message, SearchScreen.Chosen):
                chosen.append(message)
            return post(message)

        app.post_message = posted  # type: ignore[method-assign]
        await fleet_shown(pilot)
        assert shared_writer(db_path()).flush()
        await pilot.press("slash")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"middleware")
        await until(pilot, lambda: app.screen.searched == "middleware", "the search")
        hits = app.screen.hits
        assert hits and hits[0].team == "refactor-auth" and hits[0].kind == "task"
        await pilot.press("enter", "enter")  # to the results, then choose the first
        await until(pilot, lambda: type(app.screen).__name__ == "TaskDetail", "the team opened at the task")
        assert app.session is not None and app.session.name == "refactor-auth"
        await pilot.pause()
    assert [(c.key[2], c.at) for c in chosen] == [("refactor-auth", hits[0].at)]


def test_search_snapshot(snap_compare, tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    fill(path)
    assert snap_compare(search_app(path, "build"), run_before=results_shown, terminal_size=SIZE)


async def test_results_fit_one_line_each_the_text_taking_the_width(tmp_path: Path) -> None:
    """At 160 columns: each result one line; the columns as wide as what they hold, the text the
    rest; a long text cut with its match in view; a task's description after a space, not `\\n`."""
    path = tmp_path / "h.sqlite3"
    con = connect(path)
    con.execute("BEGIN")
    txn = Txn(con)
    pay = TeamIdent("", "native", "/src/pay", "pay")
    txn.apply(("header", pay, T0, ("lead", "", None, [("ada", "", "", "", "", T0)], {}, True)))
    long = " ".join(f"word{i}" for i in range(60)) + " the build broke " + " ".join(f"tail{i}" for i in range(30))
    txn.apply(("entries", pay, T0 + 60, ("log", [("ada", T0 + 60, "info", long, 1)])))
    txn.apply(("task", pay, T0 + 120, ("task", "2", "Fix the build", "on main\nthen tag", "pending", "ada", [])))
    txn.finish()
    con.execute("COMMIT")
    con.close()
    app = search_app(path, "build")
    async with app.run_test(size=(160, 30)) as pilot:
        await results_shown(pilot)
        from textual.geometry import Region
        from textual.widgets import OptionList

        results = app.screen.query_one(OptionList)
        lines = [
            s.text for s in results.render_lines(Region(0, 0, results.outer_size.width, results.outer_size.height))
        ]
        shown = [line.strip("│╭╮╰╯─ ") for line in lines[1:3]]
        assert shown[0].split() == "08:02:00 pay ada task #2 Fix the build on main then tag".split(), lines
        assert shown[0].startswith("08:02:00  pay  ada  task  #2 Fix"), "each column as wide as what it holds"
        assert "build" in shown[1] and shown[1].startswith("08:01:00  pay  ada  log   …"), shown[1]
        assert shown[1].endswith("…") and len(shown[1]) > 140, "the text takes the rest of the line"
        assert not lines[3].strip("│ "), "one line each"
