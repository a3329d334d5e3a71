"""What the dashboard's controllers use of the screen they serve, as a Protocol: a controller
depends on this module, not on the screen's (which imports the controllers). Only the Screen API
the controllers call is named here; DashboardScreen satisfies it (mypy checks where it hands
itself to them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.notifications import SeverityLevel

from teamtui.protocol.text import inert

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import ActiveBinding
    from textual.message import Message
    from textual.timer import Timer, TimerCallback
    from textual.widget import Widget

    from teamtui.protocol.changes import Change
    from teamtui.session.alerts import Need
    from teamtui.session.team import TeamSession
    from teamtui.tui.palette import Palette
    from teamtui.tui.widgets.logs import TeammateLog

W = TypeVar("W", bound="Widget")
# How long a routine toast stays (Textual's default, 5 s, is kept for warnings and errors).
ROUTINE_TOAST_SECONDS = 3.0


class TeamScreen(Protocol):
    """The screen one team session is shown on (DashboardScreen is the one there is)."""

    session: TeamSession | None
    selected: str | None
    task_query: str
    panes_waiting: tuple[str, ...]
    palette: Palette
    cursor_blink: bool
    now: Callable[[], float]
    log_main: TeammateLog  # the selected teammate's log (the strip below it holds more TeammateLogs)
    room_needs: list[Need]  # what the room found this team needs (its hooks' requests, held tasks ...)

    # The team's side.
    def apply_changes(self, changes: list[Change], full: bool = False) -> None: ...
    def in_background(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None: ...
    def action_changes(self, focus: str | None = None) -> None: ...
    def action_shutdown_team(self) -> None: ...
    def action_shutdown_teammate(self) -> None: ...

    @property
    def drawable(self) -> bool: ...

    # Textual's Screen, as far as the controllers use it.
    @property
    def app(self) -> App[object]: ...
    @property
    def is_current(self) -> bool: ...
    @property
    def is_active(self) -> bool: ...
    @property
    def active_bindings(self) -> dict[str, ActiveBinding]: ...
    def query_one(self, selector: type[W]) -> W: ...
    def set_focus(self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def set_timer(
        self, delay: float, callback: TimerCallback | None = None, *, name: str | None = None, pause: bool = False
    ) -> Timer: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


def toast(screen: TeamScreen, prefix: str, data: str, severity: SeverityLevel, suffix: str = "") -> None:
    """`data` (a name, a file's words) said literally between `prefix` and `suffix`."""
    # Routine news (a task done, a teammate joined) goes sooner: a busy team would stack it over the logs.
    timeout = ROUTINE_TOAST_SECONDS if severity == "information" else None
    screen.notify(prefix + inert(data) + suffix, severity=severity, markup=False, timeout=timeout)
