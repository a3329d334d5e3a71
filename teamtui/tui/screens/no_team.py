"""No team yet: say where teamtui looked and how to start one, and pick a team up when it appears."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from teamtui.protocol.discovery import find_teams, looked_at
from teamtui.protocol.watch import watch_dirs
from teamtui.tui.safe import safe_text


class NoTeamScreen(Screen[tuple[Path, str] | None]):
    BINDINGS = [Binding("q,escape", "cancel", "Quit", id="noteam.quit")]

    def __init__(self, roots: list[Path], layout: str | None, team: str | None):
        super().__init__()
        self.roots = roots
        self.team_layout = layout
        self.team = team
        self._stop = asyncio.Event()

    def compose(self) -> ComposeResult:
        t = Text("No team found\n\n", style="bold")
        if self.team:
            t.append("Looking for team ")
            t.append_text(safe_text(self.team, "bold"))
            t.append(" in:\n")
        else:
            t.append("teamtui looked for <team>/config.json in:\n")
        for p in looked_at(self.roots):
            t.append("  ")
            t.append_text(safe_text(p))
            t.append("\n")
        t.append("\nStart one:\n", style="bold")
        t.append("  teamtui demo", style="bold")
        t.append("            a live demo team, no LLM needed\n")
        t.append("  teamtui run TEAMFILE", style="bold")
        t.append("    run a team described in a TOML file\n")
        t.append("  teamtui watch ROOT", style="bold")
        t.append("      watch a team somewhere else\n\n")
        t.append("Waiting: this screen opens the team as soon as it appears.  q quits.", style="dim")
        with Vertical(classes="dialog wide", id="no-team"):
            yield Static(t)

    def on_mount(self) -> None:
        self.run_worker(self._wait_for_team(), group="no-team", exclusive=True)

    async def _wait_for_team(self) -> None:
        # Watch the folders a team would appear in (watch_dirs also awaits ones not created yet).
        async for _batch in watch_dirs(looked_at(self.roots), self._stop):
            found = find_teams(self.roots, self.team_layout, self.team)
            if found:
                self._stop.set()
                self.dismiss(found[0])
                return

    def on_unmount(self) -> None:
        self._stop.set()

    def action_cancel(self) -> None:
        self._stop.set()
        self.dismiss(None)
