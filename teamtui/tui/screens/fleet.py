"""The fleet overview: every team on one screen, what needs the person first.

A row per team (its layout, lead, members, tasks, needs-you count, tokens, last activity, where
it works) and, below, every team's "needs you" items. `enter` on a row opens that team's
dashboard (escape comes back; `]`/`[` step through the teams); `enter` on an item opens its team
at the item. The app feeds it: nothing here reads a file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from teamtui.protocol.fleet.overview import FleetRow
from teamtui.session.alerts import Need
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert
from teamtui.tui.widgets.fleet import FleetNeeds, FleetTable, row_key
from teamtui.tui.widgets.footer import KeyFooter

# Relative times ("12s ago") move this often; no file is read for it.
TICK = 5.0


class FleetScreen(Screen[None]):
    DEFAULT_CSS = """
    FleetScreen #fleet-header { height: 1; background: $surface; }
    FleetScreen #fleet-teams { height: auto; max-height: 70%; }
    FleetScreen #fleet-needs { height: 1fr; min-height: 4; border: round $panel; background: $background;
                               border-title-color: $secondary; border-title-style: bold; border-subtitle-color: $secondary; }
    FleetScreen #fleet-needs:focus { border: round $primary; }
    """
    palette: reactive[Palette] = reactive(Palette, init=False)
    BINDINGS = [
        Binding("enter", "open_team", "Open", id="open_team", show=True),
        Binding("z", "mute", "Mute", id="mute"),
        Binding("slash", "search", "Search", id="search", show=False),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, id="interrupt"),
        # Escape means "back to the overview" on a team's screen; here it is taken, so the key bar
        # never lists the app's escape (it did, dimmed, after coming back from a team).
        Binding("escape", "nothing", show=False, id="overview_here"),
    ]

    def __init__(self, clock: Callable[[], float] | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.now = clock or time.time
        self.rows: list[tuple[str, FleetRow]] = []
        self.needs: list[Need] = []
        self.muted_until: float | None = None
        self.problems: list[str] = []
        # Held, not queried: a batch or a tick can come while the app closes and the parts are gone.
        self._header_line = Static(id="fleet-header")
        self._table = FleetTable(id="fleet-teams")
        self._needs = FleetNeeds(id="fleet-needs")

    def compose(self) -> ComposeResult:
        self.set_reactive(FleetScreen.palette, self._palette())
        yield self._header_line
        self._table.set_reactive(FleetTable.palette, self.palette)
        yield self._table
        self._needs.set_reactive(FleetNeeds.palette, self.palette)
        yield self._needs
        yield KeyFooter()

    @property
    def drawable(self) -> bool:
        """Its parts are there: composed (on_mount draws first) and not being removed (a removed
        part is no longer attached). Not `is_mounted`: that turns true only after on_mount."""
        return all(w.is_attached for w in (self._header_line, self._table, self._needs))

    def _palette(self) -> Palette:
        return Palette.of(self.app.current_theme, self.app.get_css_variables(), {})

    def on_mount(self) -> None:
        self.query_one(FleetTable).border_title = "Teams"
        self.query_one(FleetNeeds).border_title = "Needs you"
        self.watch(self.app, "theme", lambda _t: self._repaint(), init=False)
        self.set_interval(TICK, self._draw)
        self._draw()
        self.query_one(FleetTable).focus()

    def _repaint(self) -> None:
        self.palette = self._palette()
        self.query_one(FleetTable).palette = self.palette
        self.query_one(FleetNeeds).palette = self.palette
        self._draw()

    def show(self, rows: list[tuple[str, FleetRow]], needs: list[Need], problems: list[str] | None = None) -> None:
        """The rows (as (row key, row), in order) and the needs, as the app has them now."""
        self.rows, self.needs = rows, needs
        if problems is not None:
            self.problems = problems
        if self.drawable:
            self._draw()

    def show_muted(self, until: float | None) -> None:
        self.muted_until = until
        if self.drawable:
            self._header()

    def _draw(self) -> None:
        if not self.drawable:
            return
        now = self.now()
        self._table.show(self.rows, now)
        self._needs.show(self.needs, now)
        self._header()

    def _header(self) -> None:
        p = self.palette
        live = sum(1 for _, r in self.rows if not r.ended)
        t = Text()
        t.append(" teamtui ", style=f"bold {p.theme_color('background')} on {p.theme_color('primary')}")
        t.append(f"  {len(self.rows)} team{'s' if len(self.rows) != 1 else ''}", style="bold")
        t.append(f" · {live} live · {len(self.rows) - live} ended", style=p.theme_color("secondary"))
        if self.needs:
            t.append(
                f" · {len(self.needs)} need{'s' if len(self.needs) == 1 else ''} you",
                style=f"bold {p.theme_color('warning')}",
            )
        if self.muted_until is not None and self.muted_until > self.now():
            t.append(
                f" · muted until {time.strftime('%H:%M', time.localtime(self.muted_until))}",
                style=p.theme_color("secondary"),
            )
        if self.problems:
            t.append(f" · {inert(self.problems[0])}", style=p.theme_color("warning"))
        self._header_line.update(t)

    # ------------------------------------------------------------------ keys
    @on(FleetTable.Chosen)
    def _team_chosen(self, message: FleetTable.Chosen) -> None:
        self.app.open_team(message.key)  # type: ignore[attr-defined]

    @on(FleetNeeds.Chosen)
    def _need_chosen(self, message: FleetNeeds.Chosen) -> None:
        self.app.open_team(row_key(message.need.team), message.need)  # type: ignore[attr-defined]

    def action_open_team(self) -> None:
        if self.focused is self.query_one(FleetNeeds):
            needs = self.query_one(FleetNeeds)
            if needs.highlighted is not None and needs.highlighted < len(needs.needs):
                self.app.open_team(row_key(needs.needs[needs.highlighted].team), needs.needs[needs.highlighted])  # type: ignore[attr-defined]
            return
        key = self.query_one(FleetTable).selected
        if key is not None:
            self.app.open_team(key)  # type: ignore[attr-defined]

    def action_nothing(self) -> None:
        pass

    def action_mute(self) -> None:
        self.app.toggle_mute()  # type: ignore[attr-defined]

    def action_search(self) -> None:
        from teamtui.tui.screens.search import SearchScreen

        def chosen(hit: Any) -> None:
            # The team's dashboard when the room lists it (at the item: the room's to wire, SearchScreen.Chosen).
            if hit is not None and row_key(hit.key) in {key for key, _ in self.rows}:
                self.app.open_team(row_key(hit.key))  # type: ignore[attr-defined]

        self.app.push_screen(SearchScreen(self.palette), chosen)

    def action_help(self) -> None:
        from teamtui.tui.screens.help import HelpScreen

        keys = [
            ("enter", "Open the team (or the item that needs you)", "open_team"),
            ("escape", "Back to the overview", "overview"),
            ("] / [", "Next / previous team", "next_team"),
            ("z", "Mute notifications for a while (again: unmute)", "mute"),
            ("/", "Search every team's history (enter: open the team)", "search"),
            ("tab", "Teams / Needs you", "focus"),
            ("q", "Quit", "quit"),
        ]
        self.app.push_screen(HelpScreen(keys, getattr(self.app, "config_path", None), self.palette))

    async def action_quit(self) -> None:
        await self.app.action_quit()
