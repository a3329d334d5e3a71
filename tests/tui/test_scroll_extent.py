"""A view sized by CSS whose lines grow without a layout of the screen (DiffLines, TeammateLog):
its scrollbars still follow what it holds (teamtui/tui/widgets/scrolling.py follow_extent)."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from teamtui.tui.widgets.diff import DiffLines


class DiffApp(App[None]):
    CSS = "DiffLines { height: 10; width: 40; }"

    def compose(self) -> ComposeResult:
        yield DiffLines()


async def test_a_scrollbar_appears_and_follows_as_lines_are_added() -> None:
    app = DiffApp()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(DiffLines)
        pane.show(Text("\n".join(f"line {i}" for i in range(5))))
        await pilot.pause()
        assert not pane.show_vertical_scrollbar  # 5 lines fit in 10
        for i in range(5, 30):
            pane.append(Text(f"line {i}"))
        await pilot.pause()
        assert pane.show_vertical_scrollbar  # 30 do not: it appears
        assert pane.vertical_scrollbar.window_virtual_size == 30
        pane.append(Text("line 30"))
        await pilot.pause()
        assert pane.vertical_scrollbar.window_virtual_size == 31  # and its thumb follows each line
        pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert pane.scroll_y == pane.max_scroll_y == 31 - pane.scrollable_content_region.height
        pane.show(Text("short"))
        await pilot.pause()
        assert not pane.show_vertical_scrollbar and pane.scroll_y == 0  # and goes with them
