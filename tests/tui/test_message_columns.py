"""The Messages panel's columns share its whole width, however its rows came to be: a redraw that
adds no row (a message marked read, a palette drawn again) must not forget what the columns hold."""

from __future__ import annotations

from teamtui.tui.screenshots import CLAUDE_CODE_NOW, freeze_claude_code, make_app, transcripts_shown
from teamtui.tui.widgets.messages import MessageTraffic


def used(table: MessageTraffic) -> int:
    return sum(c.width for c in table.columns.values()) + 2 * table.cell_padding * len(table.columns)


async def test_a_redraw_that_adds_no_row_keeps_the_columns_filling_the_width(tmp_path):
    app = make_app(freeze_claude_code(tmp_path), "teamtui-dark", now=CLAUDE_CODE_NOW)
    async with app.run_test(size=(80, 24)) as pilot:
        await transcripts_shown(pilot)
        table = app.screen.query_one(MessageTraffic)
        assert app.state is not None and len(list(app.state.messages)) == 3
        table.show(list(app.state.messages))  # the same messages: nothing added
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        room = table.content_region.width - table.styles.scrollbar_size_vertical
        assert used(table) == room, "the columns share the panel's new width"
