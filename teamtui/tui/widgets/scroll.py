"""A scrolling widget whose size comes from the layout, never from its content."""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


class SizedByLayout:
    """Mix into a ScrollView (TeammateLog, DataTable) that CSS sizes (`1fr`, not `auto`).

    Textual relayouts the whole screen whenever a widget's content extent (`virtual_size`)
    changes, which also redraws every scrollbar on screen: for a log that grows by a line
    per event that is most of the cost of the live view. The extent of such a widget moves
    nothing else, so only its own scrollbars are updated.
    """

    virtual_size = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)  # type: ignore[attr-defined]  # Widget's own scrollbar update
