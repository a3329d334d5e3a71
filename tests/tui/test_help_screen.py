"""The help (`?`) on a team's dashboard and on the control room: every key the screen offers, as
typed, reachable by scrolling at 80x24 (End, PageDown, the mouse wheel) and whole at 160x45; a
long description wraps in its own column; the keys the key bar leaves out are said first."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Static

from teamtui.tui.app import TeamTUI

from .conftest import help_rows, make, on_screen, until

BINDING_NAMES = ("question_mark", "slash", "right_square_bracket", "left_square_bracket")


async def open_help(app: TeamTUI, pilot, room: bool = False) -> None:
    await pilot.pause()
    if room:  # the control room, from the team's screen
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ == "FleetScreen", "the control room")
    await pilot.press("question_mark")
    await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
    await pilot.pause()


def key_cell(app: TeamTUI, key: str) -> Static:
    """The key column's cell that shows `key`."""
    return next(w for w in app.screen.query(".help-key").results(Static) if str(w.content) == key)


def shown_text(app: TeamTUI) -> str:
    return "\n".join(str(w.content) for w in app.screen.query("#help Static").results(Static))


async def test_the_dashboards_help_scrolls_to_its_last_key_at_80x24(frozen_native: Path, config_file: Path) -> None:
    app = make(frozen_native, config_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_help(app, pilot)
        scroll = app.screen.query_one("#help")
        last, palette, notes = key_cell(app, "z"), key_cell(app, "ctrl+p"), app.screen.query_one("#help-notes")
        assert on_screen(app, key_cell(app, "m")) and not on_screen(app, palette)
        await pilot.press("end")
        await pilot.pause()
        assert on_screen(app, last) and on_screen(app, palette) and on_screen(app, notes)
        await pilot.press("home")
        await pilot.pause()
        assert on_screen(app, app.screen.query_one("#help-unlisted")) and not on_screen(app, palette)
        for _ in range(3):
            await pilot.press("pagedown")
        await pilot.pause()
        assert on_screen(app, last) and on_screen(app, palette)
        await pilot.press("home")
        await pilot.pause()
        x, y = scroll.region.center
        for _ in range(10):  # the mouse wheel, over the dialog
            app.post_message(events.MouseScrollDown(None, x, y, 0, 1, 0, False, False, False, screen_x=x, screen_y=y))
        await until(pilot, lambda: on_screen(app, palette), "the ctrl+p row, by the wheel")
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "DashboardScreen"


async def test_the_dashboards_help_is_whole_at_160x45(frozen_native: Path, config_file: Path) -> None:
    app = make(frozen_native, config_file)
    async with app.run_test(size=(160, 45)) as pilot:
        await open_help(app, pilot)
        rows = help_rows(app.screen)
        assert all(on_screen(app, w) for w in app.screen.query("#help Static"))
        # One long description wraps in its own column: the others keep one line each.
        cells = list(app.screen.query(".help-action").results(Static))
        assert all(w.region.height == 1 for w in cells if len(str(w.content)) <= w.region.width)
        assert max(w.region.height for w in cells) > 1  # the answer's
        text = shown_text(app)
        unlisted = str(app.screen.query_one("#help-unlisted", Static).content)
    # Every key the screen offers, as typed: the dashboard's and the control room's on it.
    assert rows["In [keymap]"] == ["Key", "Action", "In [keymap]"]
    assert {k: rows[k][0] for k in ("filter_tasks", "help", "next_team", "previous_team", "overview", "mute")} == {
        "filter_tasks": "/",
        "help": "?",
        "next_team": "]",
        "previous_team": "[",
        "overview": "escape",
        "mute": "z",
    }
    assert rows["ctrl+p"][:2] == ["ctrl+p", "Command palette: every action by name, themes"]
    assert not any(name in text for name in BINDING_NAMES), text
    # The keys the key bar leaves out, said first.
    for said in ("n Needs you", "a Answer", "c Changes", "h Timeline", "] Next team", "[ Previous team"):
        assert said in unlisted, unlisted


async def test_the_control_rooms_help_scrolls_and_says_its_keys_as_typed(
    frozen_native: Path, config_file: Path
) -> None:
    app = make(frozen_native, config_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_help(app, pilot, room=True)
        rows = help_rows(app.screen)
        palette = key_cell(app, "ctrl+p")
        await pilot.press("end")
        await pilot.pause()
        assert on_screen(app, key_cell(app, "q")) and on_screen(app, palette)
        unlisted = str(app.screen.query_one("#help-unlisted", Static).content)
        text = shown_text(app)
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        hidden = [str(w.content) for w in app.screen.query("#help Static").results(Static) if not on_screen(app, w)]
        assert not hidden, (hidden, app.screen.query_one("#help").scroll_y)
    assert rows["search"][0] == "/" and rows["answer"][0] == "a" and rows["next_team"][0] == "]"
    assert not any(name in text for name in BINDING_NAMES), text
    assert "a Answer" in unlisted and "/ Search" in unlisted and "d Dismiss" in unlisted
