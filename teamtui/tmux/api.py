"""The seam between the dashboard and the panes: the dashboard only knows this interface.

In-process mode uses NullPanes (no panes at all); tmux mode supplies an implementation
from teamtui.tmux that opens, titles, lays out and closes one pane per teammate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class PaneSpec:
    """What a teammate's pane should show."""

    name: str
    color: str = ""
    # The shell command the pane runs: the teammate itself (run/demo) or `teamtui follow NAME`.
    command: str = ""
    # A pane the teammate already has (Claude Code's tmuxPaneId): selected instead of opening a duplicate.
    pane_id: str = ""


@dataclass(frozen=True, slots=True)
class PaneNews:
    """What the panes report to the dashboard, from their worker thread."""

    # Teammates with no pane until selected (more teammates than the pane budget), in team order.
    waiting: tuple[str, ...] = ()
    # The pane budget: at most this many `follow` panes at once.
    limit: int = 0
    # A tmux failure worth telling the user (the panes keep working for the rest).
    problem: str = ""


class TeammatePanes(Protocol):
    """What the dashboard asks of the panes. Every method must be safe to call repeatedly,
    and must return without waiting for tmux: the work may happen later, on another thread,
    which reports through the listener given to `listen`."""

    active: bool
    # The team the panes' marks name; the dashboard fills it in once a team is picked.
    team: str

    def sync(self, specs: list[PaneSpec]) -> None:
        """Make the panes match `specs`: open missing ones, close those of teammates that left."""

    def close(self, name: str) -> None:
        """Close one teammate's pane (it shut down)."""

    def toggle(self) -> bool:
        """Hide or show all panes; returns True when they are now shown."""

    def select(self, name: str) -> bool:
        """Focus the teammate's pane, opening it first when it is waiting; False when it has none to give."""

    def close_all(self) -> None:
        """Close every pane this teamtui opened (on exit, whatever the reason); this one waits."""

    def listen(self, listener: Callable[[PaneNews], object] | None) -> None:
        """Call `listener` (from any thread) with news: who waits for a pane, or a problem."""

    def waiting(self) -> tuple[str, ...]:
        """The teammates with no pane until selected, as last planned."""


class NullPanes:
    """In-process mode: no panes."""

    active = False
    team = ""

    def sync(self, specs: list[PaneSpec]) -> None:
        return None

    def close(self, name: str) -> None:
        return None

    def toggle(self) -> bool:
        return False

    def select(self, name: str) -> bool:
        return False

    def close_all(self) -> None:
        return None

    def listen(self, listener: Callable[[PaneNews], object] | None) -> None:
        return None

    def waiting(self) -> tuple[str, ...]:
        return ()
