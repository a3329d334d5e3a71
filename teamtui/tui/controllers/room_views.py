"""What the room's controller (fleet_control.py) uses of the screens the app shows, as Protocols:
the app makes and switches the screens (FleetScreen, DashboardScreen); the controller only feeds
them, so it imports neither."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from teamtui.protocol.changes import Change
    from teamtui.protocol.fleet.overview import FleetRow
    from teamtui.protocol.history.search import SearchHit
    from teamtui.session.alerts import Need
    from teamtui.session.team import TeamSession


class RoomView(Protocol):
    """The overview (tui/screens/fleet.py FleetScreen)."""

    looking_for: str | None
    looked_at: list[Path]
    left_out: list[str]
    rows: list[tuple[str, FleetRow]]
    spent_today: tuple[Decimal, float | None]

    @property
    def palette(self) -> Any: ...
    @property
    def is_active(self) -> bool: ...
    def show(self, rows: list[tuple[str, FleetRow]], needs: list[Need], problems: list[str] | None = None) -> None: ...
    def show_muted(self, until: float | None) -> None: ...


class TeamView(Protocol):
    """One team's screen (tui/screens/dashboard.py DashboardScreen)."""

    session: TeamSession | None

    @property
    def drawable(self) -> bool: ...
    @property
    def is_active(self) -> bool: ...
    def open_session(self, session: TeamSession) -> None: ...
    def apply_changes(self, changes: list[Change], full: bool = False) -> None: ...
    def show_room_needs(self, needs: list[Need]) -> None: ...
    def show_muted(self, until: float | None) -> None: ...
    def go_to_need(self, member: str, kind: str) -> None: ...
    def go_to_hit(self, hit: SearchHit) -> None: ...
    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...
