"""Scrollbars that follow a view's extent without a layout of the screen."""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def _crosses(old: int, new: int, limits: tuple[int, ...]) -> bool:
    return any((old > limit) != (new > limit) for limit in limits)


def follow_extent(view: Widget, old: Size, new: Size) -> None:
    """Call from `watch_virtual_size` of a view whose `virtual_size` is a `Reactive(layout=False)`
    (sized by CSS, not by what it holds): Textual would relayout the whole screen on each change
    of its extent, and redraw every scrollbar on screen. Here its own scrollbars' thumbs follow;
    only an extent that shows or hides a scrollbar (`overflow: auto`) asks for a layout."""
    styles = view.styles
    width, height = view.container_size
    shown_or_hidden = (
        styles.overflow_y == "auto"
        and _crosses(old.height, new.height, (height, height - styles.scrollbar_size_horizontal))
    ) or (
        styles.overflow_x == "auto" and _crosses(old.width, new.width, (width, width - styles.scrollbar_size_vertical))
    )
    if shown_or_hidden:
        view.refresh(layout=True)
        return
    if view.show_vertical_scrollbar:
        view.vertical_scrollbar.window_virtual_size = new.height
    if view.show_horizontal_scrollbar:
        view.horizontal_scrollbar.window_virtual_size = new.width
    view.scroll_x, view.scroll_y = view.scroll_x, view.scroll_y  # kept within the new extent
