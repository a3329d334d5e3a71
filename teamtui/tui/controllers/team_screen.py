"""What the dashboard's controllers use of the screen they serve, as the screen's base class: a
controller depends on this module, not on the screen's (which imports the controllers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.notifications import SeverityLevel
from textual.screen import Screen

from teamtui.protocol.changes import Change
from teamtui.protocol.claude.transcripts import NeedsYou
from teamtui.session.alerts import Need
from teamtui.session.team import TeamSession
from teamtui.tui.palette import Palette


class TeamScreen(Screen[None]):
    """The screen one team session is shown on (DashboardScreen is the one there is)."""

    session: TeamSession | None
    selected: str | None
    task_query: str
    panes_waiting: tuple[str, ...]
    palette: Palette
    cursor_blink: bool
    now: Callable[[], float]
    room_needs: list[Need]  # what the room found this team needs (its hooks' requests, held tasks ...)

    def toast(self, prefix: str, data: str, severity: SeverityLevel, suffix: str = "") -> None:
        raise NotImplementedError

    def writable(self) -> bool:
        raise NotImplementedError

    def apply_changes(self, changes: list[Change], full: bool = False) -> None:
        raise NotImplementedError

    def in_background(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        raise NotImplementedError

    def select(self, name: str) -> None:
        raise NotImplementedError

    def open_changes(self, focus: str | None = None) -> None:
        raise NotImplementedError

    def open_request(self, item: NeedsYou) -> None:
        """A request in full, then its pane (controllers/pane_jumps.py)."""
        raise NotImplementedError

    def confirm_shutdown(self, whole: bool) -> None:
        """S (`whole`) or x: the shutdown's dialog, whether or not its key is usable now."""
        raise NotImplementedError

    def redraw_needs(self) -> None:
        """The needs-you strip again, when the screen shows a team."""
        raise NotImplementedError
