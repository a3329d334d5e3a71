"""TeamTable: the one DataTable base of the dashboard's tables."""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive, reactive
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from teamtui.tui.palette import Palette


class TeamTable(DataTable):
    """Rows keyed by what they show (`selected` is the cursor row's key), drawn in `palette`.

    Two costs of DataTable are avoided. It empties all of its render caches on every style
    update, and moving the focus is one: each "/" and escape rendered every visible cell of
    the task board again through Rich (~25 ms, most of a key press). Its cache keys already
    hold the table's focus, hover and base style, so only a new theme empties them. And a
    table that CSS sizes (`1fr`, `sized_by_layout`) does not relayout the whole screen when
    its rows change (which also redraws every scrollbar on screen): only its own scrollbars.
    """

    palette: reactive[Palette] = reactive(Palette, init=False)
    virtual_size = Reactive(Size(0, 0), layout=False)

    def __init__(self, *, sized_by_layout: bool = False, **kw):
        super().__init__(cursor_type="row", **kw)
        self.sized_by_layout = sized_by_layout
        self._cells_theme: str | None = None  # the theme the cached cells were rendered in

    @property
    def selected(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        except Exception:  # noqa: BLE001 - an empty or shrinking table has no selection
            return None

    def add_row(self, *cells: Any, **kw: Any) -> RowKey:
        key = super().add_row(*cells, **kw)
        self.check_idle()  # DataTable sizes new rows' columns when idle: it may get no message to be idle after
        return key

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str, value: Any, **kw: Any) -> None:
        super().update_cell(row_key, column_key, value, **kw)
        self.check_idle()

    def watch_virtual_size(self, old: Size, size: Size) -> None:
        self._scroll_update(size)  # Widget's own scrollbar update
        if size.width != old.width:
            # The columns were measured again (DataTable does it when idle). Its render caches are keyed
            # by its update count, which a relayout's Resize bumps; with layout=False none comes, and a
            # cell drawn before the measure would be shown at its old width for good.
            self._update_count += 1
            self.refresh()
        if not self.sized_by_layout:
            self.refresh(layout=True)  # sized by its rows (`auto`): the layout follows them

    def notify_style_update(self) -> None:
        theme = self.app.theme  # a new theme restyles every cell; any other style update keeps them
        if theme != self._cells_theme:
            self._cells_theme = theme
            super().notify_style_update()
            return
        Widget.notify_style_update(self)  # the widget's own style caches, not the cells
        self._styles_cache.clear()  # border and background (the focus border)
        self._get_styles_to_render_cell.cache_clear()  # cursor/hover looks
        self.refresh()
