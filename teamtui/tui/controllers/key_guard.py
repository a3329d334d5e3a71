"""The keys that write to a team, while it cannot take them: dimmed in the key bar (the screen's
check_action), and pressed anyway, said why. Nothing may be written to an ended team or a workflow
run; S and x on a team whose lead is gone still offer to close the panes that run its teammates."""

from __future__ import annotations

from textual import events
from textual.actions import SkipAction
from textual.widgets import Input

from teamtui.tui.controllers.team_screen import TeamScreen
from teamtui.tui.widgets.team import TeamPanel

SHUTDOWN_ACTIONS = ("shutdown_team", "shutdown_teammate")
WRITE_ACTIONS = ("message", "broadcast", *SHUTDOWN_ACTIONS)


class KeyGuard:
    def __init__(self, screen: TeamScreen):
        self.screen = screen

    def unavailable(self, action: str) -> str:
        """Why `action` cannot work on this team ("" when it can)."""
        session = self.screen.session
        if session is None or action not in WRITE_ACTIONS:
            return ""
        if action in SHUTDOWN_ACTIONS and session.live and session.lead_gone():
            return ""
        return session.read_only

    def typing_elsewhere(self) -> None:
        """A priority key is text while an input has focus or a dialog is open: let it through."""
        app = self.screen.app
        if isinstance(app.screen.focused, Input) or not self.screen.is_active:
            raise SkipAction()

    def selected_member(self) -> str | None:
        """The teammate a key acts on; None (said) when there is none."""
        name = self.screen.query_one(TeamPanel).selected if self.screen.session else None
        if name is None:
            self.screen.notify("No teammate selected.", severity="warning")
        return name

    def pressed(self, event: events.Key) -> None:
        """A dimmed key does nothing (Textual skips its binding): say why instead. S and x on an
        ended team say nobody can approve a shutdown, and offer to close any pane still running."""
        screen = self.screen
        active = screen.active_bindings.get(event.key)
        if active is None or active.enabled or not (why := self.unavailable(active.binding.action)):
            return
        event.stop()
        action = active.binding.action
        if action in SHUTDOWN_ACTIONS and screen.session is not None and screen.session.lead_gone():
            # It offers the panes still running.
            screen.action_shutdown_team() if action == "shutdown_team" else screen.action_shutdown_teammate()
            return
        screen.notify(f"Unavailable: {why}.", severity="warning", markup=False)


def writable(screen: TeamScreen) -> bool:
    """The team takes what a key would write; else said why (an ended team, a workflow run)."""
    why = screen.session.read_only if screen.session is not None else ""
    if why:
        screen.notify(f"Unavailable: {why}.", severity="warning", markup=False)
    return not why
