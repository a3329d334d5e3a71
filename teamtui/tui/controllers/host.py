"""What the dashboard's controllers use of the screen they serve: named here, so that a controller
depends on this and not on the screen's module (which imports the controllers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.app import App
from textual.message import Message

from teamtui.protocol.changes import Change
from teamtui.session.team import TeamSession
from teamtui.tui.palette import Palette


class DashboardHost(Protocol):
    session: TeamSession | None
    selected: str | None
    task_query: str
    panes_waiting: tuple[str, ...]
    palette: Palette
    cursor_blink: bool
    now: Callable[[], float]

    @property
    def app(self) -> App[Any]: ...
    def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...
    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def set_timer(self, delay: float, callback: Any = None, **kwargs: Any) -> Any: ...
    def toast(self, prefix: str, data: str, severity: str, suffix: str = "") -> None: ...
    def writable(self) -> bool: ...
    def apply_changes(self, changes: list[Change], full: bool = False) -> None: ...
    def in_background(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None: ...
