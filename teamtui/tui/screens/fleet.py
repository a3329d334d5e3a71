"""The fleet overview: every team on one screen, what needs the person first.

A row per team (its layout, lead, members, tasks, files changed, needs-you count, tokens, cost,
last activity, where it works) and, below, every team's "needs you" items. `enter` on a row opens
that team's dashboard (escape comes back; `]`/`[` step through the teams); `enter` on an item
opens its team at the item. The app feeds it: nothing here reads a file.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from teamtui.protocol.budgets import level
from teamtui.protocol.cost import cost_text, money
from teamtui.protocol.fleet.overview import FleetRow
from teamtui.session.alerts import Need
from teamtui.tui.keys import config_of, described, unlisted_keys, user_keymap
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert, safe_text
from teamtui.tui.widgets.fleet import FleetNeeds, FleetTable, row_key
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.problems import ProblemList, said_line

# Relative times ("12s ago") move this often; no file is read for it.
TICK = 5.0
COST_TEAMS = 8  # the palette's Cost names this many teams, the dearest first


class FleetScreen(Screen[None]):
    DEFAULT_CSS = """
    FleetScreen #fleet-header { height: 1; background: $surface; }
    FleetScreen #fleet-problems { display: none; height: auto; max-height: 4; padding: 0 1;
                                  background: $surface; color: $warning; }
    FleetScreen #fleet-teams { height: auto; max-height: 70%; scrollbar-size-horizontal: 0; }
    FleetScreen #fleet-empty { height: auto; padding: 1 2; display: none; }
    FleetScreen #fleet-needs { height: 1fr; min-height: 3; border: round $panel; background: $background;
                               border-title-color: $secondary; border-title-style: bold; border-subtitle-color: $secondary; }
    FleetScreen #fleet-needs:focus { border: round $primary; }
    """
    palette: reactive[Palette] = reactive(Palette, init=False)
    BINDINGS = [
        Binding("enter", "open_team", "Open", id="open_team", show=True),
        Binding("a", "answer", "Answer", id="answer", show=False),
        Binding("z", "mute", "Mute", id="mute"),
        Binding("d", "dismiss_need", "Dismiss", id="dismiss_need", show=False),
        Binding("slash", "search", "Search", id="search", show=False),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, id="interrupt"),
        # Escape means "back to the overview" on a team's screen; here it is taken, so the key bar
        # never lists the app's escape (it did, dimmed, after coming back from a team).
        Binding("escape", "nothing", show=False, id="overview_here"),
    ]

    @dataclass
    class OpenTeam(Message):
        """Open this team's dashboard (at `need`, when one was chosen): the app does."""

        key: str
        need: Need | None = None

    @dataclass
    class DismissNeed(Message):
        """The person dismissed this collision: the app does (it is not called again)."""

        need: Need

    def __init__(self, clock: Callable[[], float] | None = None, looking_for: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.now = clock or time.time
        self.looking_for = looking_for  # the team asked for by name, until it is opened
        self.looked_at: list[Path] = []  # where teams would appear: said while there is none
        self.left_out: list[str] = []  # teams there but not asked for: said while the one asked for is not
        self.rows: list[tuple[str, FleetRow]] = []
        self.needs: list[Need] = []
        self.muted_until: float | None = None
        self.problems: list[str] = []
        self.spent_today: tuple[Decimal, float | None] = (Decimal(0), None)  # every team's today, and the day budget
        self.search_hosts: Any = None  # the room's hosts asked to search theirs too (FleetControl); None: none
        # Held, not queried: a batch or a tick can come while the app closes and the parts are gone.
        self._header_line = Static(id="fleet-header")
        self._problems = ProblemList(id="fleet-problems")
        self._table = FleetTable(id="fleet-teams")
        self._needs = FleetNeeds(id="fleet-needs")
        self._empty = Static(id="fleet-empty")

    def compose(self) -> ComposeResult:
        self.set_reactive(FleetScreen.palette, self._palette())
        yield self._header_line
        yield self._problems
        self._table.set_reactive(FleetTable.palette, self.palette)
        yield self._table
        yield self._empty
        self._needs.set_reactive(FleetNeeds.palette, self.palette)
        yield self._needs
        yield KeyFooter()

    @property
    def drawable(self) -> bool:
        """Its parts are there: composed (on_mount draws first) and not being removed (a removed
        part is no longer attached). Not `is_mounted`: that turns true only after on_mount."""
        return all(w.is_attached for w in (self._header_line, self._table, self._needs, self._empty))

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
        self._empty.display = not self.rows or self.looking_for is not None
        if self._empty.display:
            self._empty.update(self._empty_text())

    def _empty_text(self) -> Text:
        """No team (or not the one asked for) yet: where teamtui looked, what is there, how to start one."""
        t = Text()
        if self.looking_for is not None:
            t.append("No team ", style="bold")
            t.append_text(safe_text(self.looking_for, "bold"))
            t.append(" here yet", style="bold")
            t.append(": it opens as soon as it appears.\n")
            if self.left_out:
                t.append("\nThe teams there are:\n")
                for name in self.left_out[:12]:
                    t.append("  ")
                    t.append_text(safe_text(name))
                    t.append("\n")
                if len(self.left_out) > 12:
                    t.append(f"  … and {len(self.left_out) - 12} more\n")
        else:
            t.append("No team found yet", style="bold")
            t.append(": a row appears as soon as one does.\n")
        if self.looked_at:
            t.append("\nteamtui looks for <team>/config.json in:\n")
            for p in self.looked_at:
                t.append("  ")
                t.append_text(safe_text(str(p)))
                t.append("\n")
        t.append("\nStart one:\n", style="bold")
        t.append("  teamtui demo", style="bold")
        t.append("            a live demo team, no LLM needed\n")
        t.append("  teamtui run TEAMFILE", style="bold")
        t.append("    run a team described in a TOML file\n")
        t.append("  teamtui watch ROOT", style="bold")
        t.append("      watch the teams somewhere else\n")
        return t

    def _header(self) -> None:
        p = self.palette
        teams = [r for _, r in self.rows if not r.no_team]  # a host's own row (no team there yet) is not one
        live = sum(1 for r in teams if not r.ended)
        t = Text()
        t.append(" teamtui ", style=f"bold {p.theme_color('background')} on {p.theme_color('primary')}")
        t.append(f"  {len(teams)} team{'s' if len(teams) != 1 else ''}", style="bold")
        t.append(f" · {live} live · {len(teams) - live} ended", style=p.theme_color("secondary"))
        if self.needs:
            t.append(
                f" · {len(self.needs)} need{'s' if len(self.needs) == 1 else ''} you",
                style=f"bold {p.theme_color('warning')}",
            )
        spent, budget = self.spent_today
        if spent or budget:
            share = level(spent, budget)
            role = "error" if share >= 100 else "warning" if share else "secondary"
            said = f" · today {money(spent)}" + (f" of {money(Decimal(str(budget)))}" if budget else "")
            t.append(said, style=p.theme_color(role))
        if self.muted_until is not None and self.muted_until > self.now():
            t.append(
                f" · muted until {time.strftime('%H:%M', time.localtime(self.muted_until))}",
                style=p.theme_color("secondary"),
            )
        if self.problems:
            n = len(self.problems)
            t.append(f" · {n} problem{'s' if n != 1 else ''}", style=f"bold {p.theme_color('warning')}")
        self._header_line.update(t)
        # Every problem is said: the first few under the header, the rest counted (doctor lists them all).
        self._problems.show_lines([said_line(x) for x in self.problems], "teamtui doctor")

    # ------------------------------------------------------------------ keys
    @on(FleetTable.Chosen)
    def _team_chosen(self, message: FleetTable.Chosen) -> None:
        self.post_message(self.OpenTeam(message.key))

    @on(FleetNeeds.Chosen)
    def _need_chosen(self, message: FleetNeeds.Chosen) -> None:
        self.post_message(self.OpenTeam(row_key(message.need.team), message.need))

    def action_open_team(self) -> None:
        if self.focused is self.query_one(FleetNeeds):
            needs = self.query_one(FleetNeeds)
            if needs.highlighted is not None and needs.highlighted < len(needs.needs):
                need = needs.needs[needs.highlighted]
                self.post_message(self.OpenTeam(row_key(need.team), need))
            return
        key = self.query_one(FleetTable).selected
        if key is not None:
            self.post_message(self.OpenTeam(key))

    def action_answer(self) -> None:
        """`a`: answer the need highlighted (on a team's row: its first need), without opening its team."""
        from teamtui.tui.messages import AnswerRequested

        needs = self.query_one(FleetNeeds)
        if self.focused is needs:
            at = needs.highlighted if needs.highlighted is not None else 0
            need = needs.needs[at] if at < len(needs.needs) else None
        else:
            key = self.query_one(FleetTable).selected
            need = next((n for n in self.needs if row_key(n.team) == key), None)
        if need is None:
            self.notify(
                "Nothing here needs you: tab to the needs list to choose one." if self.needs else "Nothing needs you."
            )
            return
        self.post_message(AnswerRequested(need))

    def action_nothing(self) -> None:
        pass

    def action_dismiss_need(self) -> None:
        needs = self._needs
        at = needs.highlighted
        if self.focused is needs and at is not None and at < len(needs.needs) and needs.needs[at].kind == "collision":
            self.post_message(self.DismissNeed(needs.needs[at]))
            return
        self.notify("Select a collision (⇄, two on one file) under Needs you to dismiss it.", severity="warning")

    async def action_mute(self) -> None:
        await self.app.run_action("mute")

    def action_search(self) -> None:
        from teamtui.tui.screens.search import SearchScreen

        # A result chosen: the app opens its team (SearchScreen.Chosen).
        self.app.push_screen(SearchScreen(self.palette, hosts=self.search_hosts))

    def say_cost(self) -> None:
        """The palette's Cost: today's spend (of the day budget) and each team's, as the rows have them."""
        spent, budget = self.spent_today
        lines = [f"Today {money(spent)}" + (f" of {money(Decimal(str(budget)))}" if budget else "") + ", every team"]
        known = sorted(
            ((r.cost.usd, r.name, cost_text(r.cost)) for _k, r in self.rows if r.cost is not None), reverse=True
        )
        lines += [f"{inert(name)}: {said}" for _usd, name, said in known[:COST_TEAMS]]
        if len(known) > COST_TEAMS:
            lines.append(f"… and {len(known) - COST_TEAMS} more (the Cost column)")
        if not known:
            lines.append("No team's cost is known yet: a Claude Code team's transcripts tell it.")
        self.notify("\n".join(lines), title="cost", markup=False)

    def action_help(self) -> None:
        from teamtui.tui.screens.help import HelpScreen

        keymap = user_keymap(self.app)
        keys = [
            (keymap.get(bid, key), desc, bid)
            for key, desc, bid in (
                ("enter", "Open the team (or the item that needs you)", "open_team"),
                ("a", "Answer what needs you, without opening its team (allow, deny, retry …)", "answer"),
                ("escape", "Back to the overview", "overview"),
                ("right_square_bracket", "Next team", "next_team"),
                ("left_square_bracket", "Previous team", "previous_team"),
                ("z", "Mute notifications for a while (again: unmute)", "mute"),
                ("d", "Dismiss the collision selected under Needs you", "dismiss_need"),
                ("slash", "Search every team's history (enter: open the team)", "search"),
                ("tab", "Teams / Needs you", ""),  # focus moves: not a binding [keymap] knows
                ("q", described(self.app, "quit", "Quit", how="help"), "quit"),
            )
        ]
        bindings = [b for b in [*self.BINDINGS, *self.app.BINDINGS] if isinstance(b, Binding)]
        # escape is the overview's own on a team's screen; here it does nothing.
        unlisted = unlisted_keys(bindings, keymap, leave_out={"interrupt", "overview_here"})
        self.app.push_screen(HelpScreen(keys, config_of(self.app), self.palette, unlisted))

    async def action_quit(self) -> None:
        await self.app.action_quit()
