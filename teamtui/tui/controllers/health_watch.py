"""The health rule on the dashboard: a toast when a teammate disappears (silent past the timeout
while holding a task) or comes back, and one timer that wakes exactly when the next teammate
could cross it. Log lines move "Active": the team table follows at most once a second."""

from __future__ import annotations

from typing import Any

from teamtui.tui.controllers.panels import Panels
from teamtui.tui.controllers.team_screen import TeamScreen, toast

# Log lines move a teammate's "Active" time and health; the team table follows at most this often.
ACTIVITY_REFRESH = 1.0


class HealthWatch:
    def __init__(self, screen: TeamScreen, panels: Panels):
        self.screen = screen
        self.panels = panels
        self.timer: Any = None  # the next health check
        self.activity_timer: object = None  # armed by a log-only batch, fires once

    def times_moved(self) -> None:
        """Redraw what says how long ago ("Active", "12s ago" in the needs strip); no file is read. A
        teammate the redraw would show as disappeared is told of first."""
        session = self.screen.session
        if not self.screen.drawable or session is None:
            return
        if session.live:
            self.check()
        self.panels.team(tick=True)
        self.panels.needs_you()  # redraws only when an age shown changed

    def activity(self) -> None:
        """Log lines arrived: redraw "Active" (and maybe clear a health flag) within a second."""
        if self.activity_timer is None:
            self.activity_timer = self.screen.set_timer(ACTIVITY_REFRESH, self._tick)

    def _tick(self) -> None:
        self.activity_timer = None
        self.check()
        self.panels.team()
        if self.screen.session is not None and self.screen.session.state.transcripts is not None:
            self.panels.header()  # the team's tokens
            self.panels.needs_you()

    def check(self, say: bool = True) -> None:
        screen, session = self.screen, self.screen.session
        if session is None:
            return
        health = session.check_health()
        if say:
            timeout = session.state.health_timeout
            for name in health.disappeared:
                toast(
                    screen,
                    "⚠ ",
                    name,
                    "warning",
                    suffix=f" disappeared: no activity for {timeout:g}s while holding a task",
                )
            for name in health.back:
                toast(screen, "", name, "information", suffix=" is active again")
        if health.moved:
            self.panels.team()
        if session.state.transcripts is not None:
            self.panels.needs_you()  # a task owner gone silent, or writing again
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        if health.next_check_at is not None:
            self.timer = screen.set_timer(max(0.05, health.next_check_at - screen.now() + 0.05), self.check)
