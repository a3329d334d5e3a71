"""What a key press costs the dashboard, without timing: "/" and escape move the focus, and a focus
change must neither render every task cell again, nor resize the board, nor leak key widgets."""

from __future__ import annotations

from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.tasks import TaskBoard

from .conftest import SIZE, until
from .test_live_view_guards import big_team, make


async def filled_board(app: TeamTUI, pilot, tasks: int) -> TaskBoard:
    board = app.dashboard.query_one(TaskBoard)
    await until(pilot, lambda: board.row_count == tasks, "the board filled")
    await pilot.pause()
    return board


def shown_keys(app: TeamTUI) -> list[str]:
    """The keys the footer shows as usable (the others are dimmed in place)."""
    return [k.key for k in app.dashboard.query_one(KeyFooter).slots if k.usable]


async def test_filter_focus_dims_the_letter_keys_and_escape_brings_them_back(tmp_path):
    big_team(tmp_path / "root", 2, 30)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the team opened")
        await pilot.pause()
        assert {"m", "b", "q", "slash"} <= set(shown_keys(app))
        await pilot.press("slash")
        await pilot.pause()
        assert "m" not in shown_keys(app) and "q" not in shown_keys(app), "typed letters go to the filter"
        await pilot.press("escape")
        await pilot.pause()
        assert {"m", "b", "q", "slash"} <= set(shown_keys(app))


async def test_focus_changes_build_no_widgets(tmp_path):
    """Textual's Footer built a widget per key on each focus change (and kept the old ones alive):
    the bar is one line, so moving the focus adds no widget to the screen."""
    big_team(tmp_path / "root", 2, 30)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the team opened")
        await pilot.pause()
        before = list(app.dashboard.walk_children())  # held: no id is reused by a new widget
        for _ in range(20):
            await pilot.press("slash", "escape")
        await pilot.pause()
        assert {id(w) for w in app.dashboard.walk_children()} == {id(w) for w in before}, "the same widgets"


async def test_moving_the_focus_renders_no_task_cell_again(tmp_path):
    big_team(tmp_path / "root", 2, 30)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = await filled_board(app, pilot, 30)
        size = board.size
        board.focus()
        await pilot.press("slash", "escape")  # both looks (focused and not) rendered once
        await pilot.pause()
        cache = board._cell_render_cache
        rendered = {key: cache.get(key) for key in cache.keys()}  # the rendered lines of each cell, by look
        for _ in range(3):
            await pilot.press("slash")
            await pilot.pause()
            assert board.size == size, "the filter line does not resize the board"
            await pilot.press("escape")
            await pilot.pause()
        kept = {key: cache.get(key) for key in cache.keys()}
        assert kept.keys() == rendered.keys() and all(kept[k] is rendered[k] for k in kept), "no cell rendered again"


async def test_a_new_theme_still_renders_the_cells_again(tmp_path):
    big_team(tmp_path / "root", 2, 5)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = await filled_board(app, pilot, 5)
        before = board.render_line(2)
        app.theme = "teamtui-light"
        await pilot.pause()
        after = board.render_line(2)
        assert after.text == before.text and [s.style for s in after] != [s.style for s in before]
