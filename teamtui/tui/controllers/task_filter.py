"""The task board's filter (`/`): the rows whose words match, the letter keys typed into it until
escape or enter (tui/widgets/filter.py FilterInput)."""

from __future__ import annotations

from teamtui.tui.controllers.panels import Panels
from teamtui.tui.controllers.team_screen import TeamScreen
from teamtui.tui.widgets.filter import FilterInput
from teamtui.tui.widgets.tasks import TaskBoard


class TaskFilter:
    def __init__(self, screen: TeamScreen, panels: Panels):
        self.screen = screen
        self.panels = panels

    def open(self) -> None:
        # Focus now, not after the keys already read (Widget.focus waits): "/auth" typed fast, or
        # pasted, goes into the filter instead of to the dashboard's keys ("t" toggles the panes).
        self.screen.set_focus(self.screen.query_one(FilterInput))

    def changed(self, value: str) -> None:
        query = value.strip()
        if query != self.screen.task_query:  # "/" then escape changes no row: rebuild none
            self.screen.task_query = query
            if self.screen.session is not None:
                self.panels.board()

    def close(self, clear: bool) -> None:
        f = self.screen.query_one(FilterInput)
        if clear:
            f.value = ""
            if self.screen.task_query:
                self.screen.task_query = ""
                if self.screen.session is not None:
                    self.panels.board()
        self.screen.query_one(TaskBoard).focus()
