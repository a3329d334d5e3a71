"""The row under the mouse is drawn in DataTable's hover style by TeamTable's own drawing (the Line
API, teamtui/tui/widgets/table.py): only that row, only while the mouse is what moved last (a key
press puts the look back on the cursor alone), and it follows the mouse from row to row."""

from __future__ import annotations

from textual.app import App, ComposeResult

from teamtui.tui.widgets.table import TeamTable

ROWS = 6


class TableApp(App[None]):
    CSS = "TeamTable { height: 10; width: 60; }"

    def compose(self) -> ComposeResult:
        yield TeamTable()

    def on_mount(self) -> None:
        table = self.query_one(TeamTable)
        table.add_columns("Teammate", "Status")
        for i in range(ROWS):
            table.add_row(f"mate{i}", "working", key=f"mate{i}")


def hovered(table: TeamTable) -> list[int]:
    """The rows whose line has the hover style's background (the header is line 0)."""
    hover = table.get_component_rich_style("datatable--hover").bgcolor
    assert hover is not None
    return [
        row
        for row in range(ROWS)
        if any(s.style is not None and s.style.bgcolor == hover for s in table.render_line(row + 1))
    ]


async def test_the_row_under_the_mouse_is_drawn_hovered_until_a_key_is_pressed() -> None:
    app = TableApp()
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.query_one(TeamTable)
        table.focus()
        await pilot.pause()
        assert hovered(table) == []  # no mouse yet: the cursor's row is the only one drawn apart
        await pilot.hover(TeamTable, offset=(5, 4))  # line 4: the header, then mate0..: row 3
        await pilot.pause()
        assert table.hover_row == 3 and hovered(table) == [3]
        await pilot.hover(TeamTable, offset=(5, 6))  # it follows the mouse
        await pilot.pause()
        assert hovered(table) == [5]
        await pilot.press("down")  # a key: the look is the cursor's again
        await pilot.pause()
        assert hovered(table) == [] and table.cursor_row == 1
