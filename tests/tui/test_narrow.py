"""A dashboard in a narrow tmux pane (beside its teammates' panes) stacks its columns and
keeps what matters whole: every column of the team table, every key, the task count."""

from __future__ import annotations

from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.footer import KeyFooter, Slot
from teamtui.tui.widgets.header import BAR_WIDTH, TeamHeader
from teamtui.tui.widgets.team import TeamPanel

from .conftest import SIZE


def header_text(app: TeamTUI) -> str:
    return str(app.dashboard.query_one(TeamHeader).render())


def drawn(app: TeamTUI) -> list[tuple[str, Slot]]:
    """Each key on the bar, as the line shows it."""
    bar = app.dashboard.query_one(KeyFooter)
    line = str(bar.render())
    return [(line[start:end], slot) for start, end, slot in bar.drawn]


def keys_drawn_whole(app: TeamTUI) -> bool:
    """Every key shows its key and its whole description (none cut at the bar's end)."""
    keys = [(text, k) for text, k in drawn(app) if k.action != "command_palette"]
    return bool(keys) and all(k.display in text and k.description in text for text, k in keys)


def side_by_side(app: TeamTUI) -> bool:
    left, right = app.dashboard.query_one("#left").region, app.dashboard.query_one("#right").region
    return right.x >= left.right and right.y == left.y


async def test_a_narrow_pane_stacks_the_columns_and_keeps_every_key(frozen_native, config_file):
    app = TeamTUI.watching(frozen_native, None, None, config_path=config_file, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert side_by_side(app) and app.screen.has_class("-wide") and keys_drawn_whole(app)
        assert "━" * BAR_WIDTH in header_text(app) and "3 members" in header_text(app)

        await pilot.resize_terminal(88, 44)
        await pilot.pause()
        assert app.screen.has_class("-narrow") and not side_by_side(app)
        left, right = app.dashboard.query_one("#left").region, app.dashboard.query_one("#right").region
        assert left.width == right.width == 88 and right.y >= left.bottom
        team = app.dashboard.query_one(TeamPanel)
        assert team.virtual_size.width <= team.scrollable_content_region.width  # no column cut off
        bar = app.dashboard.query_one(KeyFooter)
        assert {k.action for _s, _e, k in bar.drawn} >= {"message", "broadcast", "shutdown_team", "app.quit"}
        assert all(end <= 88 for _s, end, _k in bar.drawn)  # every key, and q Quit, on screen
        assert keys_drawn_whole(app)
        assert header_text(app).endswith("Tasks 1/5 done")
        await pilot.press("question_mark")  # the widest dialog (100 columns) fits, border and all
        assert type(app.screen).__name__ == "HelpScreen"
        assert app.screen.query_one(".dialog").region.right <= 88
        await pilot.press("escape")

        # A classic 80-column terminal: every key but the palette's whole, a space after each.
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        assert {k.action for _s, _e, k in bar.drawn} >= {"message", "broadcast", "shutdown_team", "app.quit"}
        assert all(end <= 80 for _s, end, _k in bar.drawn)
        assert keys_drawn_whole(app) and all(text.endswith(" ") for text, _k in drawn(app))

        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        text = header_text(app)
        assert text.endswith("Tasks 1/5 done") and len(text) <= 60
        assert "refactor-auth" in text and "active" in text

        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert side_by_side(app) and "━" * BAR_WIDTH in header_text(app)
        assert keys_drawn_whole(app)
