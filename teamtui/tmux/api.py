"""The seam between the dashboard and the panes: the dashboard only knows this interface.

In-process mode uses NullPanes (no panes at all); tmux mode supplies an implementation
from teamtui.tmux that opens, titles, lays out and closes one pane per teammate.
"""

from __future__ import annotations

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


class TeammatePanes(Protocol):
    """What the dashboard asks of the panes. Every method must be safe to call repeatedly."""

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
        """Focus the teammate's pane; False when it has none."""

    def close_all(self) -> None:
        """Close every pane this teamtui opened (on exit, whatever the reason)."""


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
