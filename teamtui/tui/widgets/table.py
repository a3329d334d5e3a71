"""A DataTable that keeps its rendered cells across focus changes."""

from __future__ import annotations

from textual.widget import Widget


class KeepsCellsOnFocus:
    """Mix into a DataTable. DataTable empties all of its render caches on every style update, and
    moving the focus is one: each "/" and escape rendered every visible cell of the task board again
    through Rich (~25 ms, most of a key press). Its cache keys already hold the table's focus, hover
    and base style, so the rendered cells of both looks stay valid: only a new theme (colours the keys
    do not hold) has to empty them."""

    _cells_theme: str | None = None

    def notify_style_update(self) -> None:
        theme = self.app.theme  # type: ignore[attr-defined]
        if theme != self._cells_theme:
            self._cells_theme = theme
            super().notify_style_update()  # type: ignore[misc]
            return
        Widget.notify_style_update(self)  # type: ignore[arg-type]  # the widget's own style caches, not the cells
        self._styles_cache.clear()  # type: ignore[attr-defined]  # border and background (the focus border)
        self._get_styles_to_render_cell.cache_clear()  # type: ignore[attr-defined]  # cursor/hover looks
        self.refresh()  # type: ignore[attr-defined]
