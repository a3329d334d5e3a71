"""The fleet overview's two panels: one row per team, and what needs the person across them."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, fields
from typing import Any

from rich.text import Text
from textual import events, on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from teamtui.protocol.cost import money
from teamtui.protocol.fleet.overview import FleetRow
from teamtui.session.alerts import Need, names_member
from teamtui.session.items import host_of
from teamtui.tui.format import compact_count, short_ago
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.cells import Fits, MiddleCut
from teamtui.tui.widgets.painted import Painted
from teamtui.tui.widgets.table import TeamTable, cut, wants

COLUMNS = ("Team", "Kind", "Lead", "Members", "Tasks", "Files", "Needs", "Tokens", "Cost", "Active", "Where")
_ROW_FIELDS = tuple(f.name for f in fields(FleetRow))  # what a row's cells are made from (with `now`)
_ACTIVE, _MEMBERS = COLUMNS.index("Active"), COLUMNS.index("Members")
_NEEDS, _BUDGET = _ROW_FIELDS.index("needs_you"), _ROW_FIELDS.index("budget")


class _Made:
    """A row's cells as made, and what from: the row (its fields then), the palette, the age shown."""

    __slots__ = ("ago", "cells", "fields", "palette", "row", "widths")

    def __init__(self, row: FleetRow, palette: Palette, cells: list[Any], ago: str):
        self.row, self.palette, self.cells, self.ago = row, palette, cells, ago
        self.fields = tuple(getattr(row, f) for f in _ROW_FIELDS)
        self.widths = [wants(c) for c in cells]

    def same(self, row: FleetRow, palette: Palette) -> bool:
        """The row says what it said (the same object, whose counts the room sets, or its equal)."""
        if palette is not self.palette:
            return False
        if row is self.row and row.needs_you == self.fields[_NEEDS] and row.budget == self.fields[_BUDGET]:
            return True
        if tuple(getattr(row, f) for f in _ROW_FIELDS) != self.fields:
            return False
        self.row = row  # made again alike by its source: the next look is the quick one
        return True


# The columns share the table's width by what they hold: where a team works gives way first, then
# who works in it, its kind and its name; the figures are never cut.
GIVE_WAY = ("Where", "Members", "Kind", "Team")
KEEP = ("Lead", "Tasks", "Files", "Needs", "Tokens", "Cost", "Active")
# What a team's name keeps while another column can give way: two `session-…` names stay tellable apart.
TEAM_LEAST = 16
# The terminal width from which a column is shown (at 80 columns the figures already fill the row):
# the files changed are in the team's own changes view and `teamtui changes`, the tokens beside the cost
# on its dashboard, where it works in its header.
SHOWN_FROM = {"Files": 100, "Where": 100, "Tokens": 120}
FILES_FROM = SHOWN_FROM["Files"]
_LEAD_ROLE = {"alive": "success", "ended": "error", "unknown": "secondary"}
_NEED_ICON = {
    "permission": "?",
    "plan": "?",
    "held": "⏸",
    "interrupted": "!",
    "failed": "✗",
    "silent": "…",
    "disappeared": "⚠",
    "lead_ended": "✗",
    "collision": "⇄",
}


def shown_columns(width: int) -> tuple[str, ...]:
    """The columns a table `width` wide shows."""
    return tuple(c for c in COLUMNS if width >= SHOWN_FROM.get(c, 0))


def row_key(key: tuple[str, str, str]) -> str:
    """A table row key for a team key (root and name may hold any character but NUL)."""
    return "\x00".join(key)


def _home_short(path: str) -> str:
    """A path under the home folder as ~/…: the part that tells teams apart fits the column."""
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home not in ("", "/") and (path == home or path.startswith(home + "/")) else path


class FleetTable(TeamTable):
    """One row per team, in the overview's order; ended ones dimmed."""

    @dataclass
    class Chosen(Message):
        key: str  # row_key of the team

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        # Each row's cells and their widths as last made, with what they were made from: a row that
        # says the same is not made again, nor compared cell by cell (hundreds of rows, one of which
        # changed); one whose age alone moved gets its Active cell alone.
        self._made: dict[str, _Made] = {}

    def on_mount(self) -> None:
        self.shown: tuple[str, ...] = COLUMNS
        self._last: tuple[list[tuple[str, FleetRow]], float] = ([], 0.0)
        self._add_columns()

    def _add_columns(self) -> None:
        for column in self.shown:
            self.add_column(column, key=column)

    def on_resize(self, event: events.Resize) -> None:
        """Across SHOWN_FROM a column comes or goes: the columns and rows are laid out again
        (TeamTable's own on_resize then shares the width: Textual calls each class's handler)."""
        shown = shown_columns(self.outer_size.width)
        if shown != self.shown:
            self.shown = shown
            self.clear(columns=True)
            self._wants = {}
            self._add_columns()
            self.show(*self._last)

    def show(self, rows: list[tuple[str, FleetRow]], now: float) -> None:
        """Rows as (row key, row); only changed cells are redrawn while the order holds."""
        self._last = (rows, now)
        keys = [k for k, _ in rows]
        current = [str(r.value) for r in self.rows]
        picked = [i for i, c in enumerate(COLUMNS) if c in self.shown]
        cells: dict[str, list[object]] = {}
        widths: list[list[int]] = []
        fresh: list[str] = []
        for key, row in rows:
            made = self._made.get(key)
            ago = self._ago(row, now)
            if made is None or not made.same(row, self.palette):
                made = self._made[key] = _Made(row, self.palette, self._cells(row, now), ago)
                fresh.append(key)
            elif made.ago != ago:
                made.cells = [*made.cells]  # a new list: the table keeps the one it was given
                made.cells[_ACTIVE] = Text(ago, style=made.cells[_ACTIVE].style)
                made.widths[_ACTIVE], made.ago = wants(made.cells[_ACTIVE]), ago
                fresh.append(key)
            cells[key] = [made.cells[i] for i in picked]
            widths.append(made.widths)
        if len(self._made) > len(cells):
            for key in [k for k in self._made if k not in cells]:
                del self._made[key]
        wanted = {c: max((w[i] for w in widths), default=0) for i, c in enumerate(COLUMNS) if c in self.shown}
        short = max((wants(made.cells[_MEMBERS].forms[-1]) for made in self._made.values()), default=0)
        self.share_width(wanted, GIVE_WAY, KEEP, least={"Team": min(wanted["Team"], TEAM_LEAST), "Members": short})
        if keys != current:
            keep = self.selected
            self.clear()
            for key in keys:
                self.add_row(*cells[key], key=key)
            if keep in keys:
                self.move_cursor(row=keys.index(keep))
            return
        for key in fresh:
            for column, cell in zip(self.shown, cells[key], strict=True):
                if self.get_cell(key, column) != cell:
                    # The cost fills in after the first frame (genai-prices loads then): its column widens.
                    self.update_cell(key, column, cell, update_width=column == "Cost")

    def _cells(self, row: FleetRow, now: float) -> list[object]:
        """Every cell through safe_text (what a file or a peer said is never markup, escape or bidi
        control), each cut to its column's width."""
        p = self.palette
        dim = "dim" if row.ended else ""
        name = safe_text(row.name, f"bold {dim}")
        problem = Text("  ").append_text(safe_text(row.problem, p.theme_color("error"))) if row.problem else None
        # A workflow run has no lead of its own to show: its status says more (running, failed, ...).
        said = row.run_status or row.lead
        role = (
            _LEAD_ROLE.get(row.lead, "secondary")
            if not row.run_status
            else "error"
            if said in ("failed", "killed", "cut off")
            else "secondary"
        )
        lead = safe_text(said, f"{p.theme_color(role)} {dim}")
        gone = (f" · {row.gone} gone", f" {row.gone}g") if row.gone else ("", "")
        members = Fits(  # in a narrow column: "2w 1i" (working, idle), never "0 working…"
            Text(f"{row.working} working · {row.idle} idle{gone[0]}", style=dim),
            Text(f"{row.working}w {row.idle}i{gone[1]}", style=dim),
        )
        tasks = Text(f"{row.tasks_done}/{row.tasks_total}" if row.tasks_total else "—", style=dim)
        files = Text(str(row.files) if row.files else "—" if row.files == 0 else "", style=dim)
        needs = Text(str(row.needs_you) if row.needs_you else "", style=f"bold {p.theme_color('warning')}")
        tokens = Text(compact_count(row.tokens) if row.tokens is not None else "", style=dim)
        active = Text(self._ago(row, now), style=dim)
        where = safe_text(_home_short(row.cwd), f"{p.theme_color('secondary')} {dim}")
        if row.no_team:  # a host's own row: no members, tasks or lead to count
            members, tasks = Fits(Text("")), Text("")
        return [
            MiddleCut(name, problem),
            cut(safe_text(row.label, dim)),
            lead,
            members,
            tasks,
            files,
            needs,
            tokens,
            self._cost(row),
            active,
            MiddleCut(where, head_share=0.25),  # a path's end tells two apart: more of it kept
        ]

    @staticmethod
    def _ago(row: FleetRow, now: float) -> str:
        return short_ago(row.last_activity, now) if row.last_activity else "—"

    def _cost(self, row: FleetRow) -> Text:
        """$12.34, "+ ?" when some model has no price, and the budget it crossed (80%: warning, 100%: error)."""
        p = self.palette
        dim = "dim" if row.ended else ""
        cost = row.cost
        if cost is None:
            return Text("")
        said = money(cost.usd) if not cost.unknown else f"{money(cost.usd)} + ?" if cost.usd else "price unknown"
        t = Text(said, style=f"{p.theme_color('warning') if cost.unknown else ''} {dim}".strip())
        if row.budget:
            role = "error" if row.budget.endswith("100%") else "warning"
            t.append(f" · {row.budget}", style=f"bold {p.theme_color(role)}")
        return t

    def on_data_table_row_selected(self, event: TeamTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(str(event.row_key.value)))


class FleetNeeds(OptionList, Painted):
    """Every team's "needs you" items, oldest first; enter opens the team at the item."""

    @dataclass
    class Chosen(Message):
        need: Need

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.needs: list[Need] = []
        self._shown: tuple | None = None

    def show(self, needs: list[Need], now: float | None = None) -> None:
        now = time.time() if now is None else now
        # The ages shown belong to what is drawn: the screen's tick moves "12s ago" on.
        sig = (
            self.palette.theme,
            tuple((n.team, n.key, n.text, short_ago(n.since, now) if n.since else "") for n in needs),
        )
        if sig == self._shown:
            return
        self._shown = sig
        keep, at = (self.highlighted_option.id if self.highlighted_option is not None else None), self.highlighted
        self.needs = list(needs)
        self.clear_options()
        ids = [f"{row_key(n.team)}\x01{n.key}" for n in needs]
        self.add_options([Option(self._line(n, now), id=i) for n, i in zip(needs, ids, strict=True)])
        # The item highlighted stays so across redraws (an age moved); one answered leaves its place to the next.
        if keep in ids:
            self.highlighted = ids.index(keep)
        elif needs and (at is not None or self.has_focus):
            self.highlighted = min(at or 0, len(needs) - 1)
        self.border_subtitle = "" if needs else "nothing needs you"
        # As tall as its items (one line each, and the border), where the screen has the rows: no empty rows.
        self.styles.max_height = max(len(needs), 1) + 2

    def on_focus(self) -> None:
        """Tabbed to: the first item highlighted, so enter and `a` act on what is seen."""
        if self.highlighted is None and self.needs:
            self.highlighted = 0

    def _line(self, need: Need, now: float) -> Text:
        p = self.palette
        role = "error" if need.kind in ("failed", "silent", "lead_ended", "disappeared") else "warning"
        t = Text(f"{_NEED_ICON.get(need.kind, '!')} ", style=f"bold {p.theme_color(role)}")
        t.append_text(safe_text(need.team_name, "bold"))
        host = host_of(need.team)  # another machine's team: which one (a row of each may share a name)
        if host:
            t.append(" on ")
            t.append_text(safe_text(host))
        t.append(" · ")
        text = need.text
        if need.member:  # the member's name once, in its colour: "alice asks permission …", "bob: no activity …"
            t.append_text(safe_text(need.member, p.member_color(need.member)))
            if names_member(need.member, text):
                text = text[len(need.member) :]
            else:
                t.append(": ")
        t.append_text(safe_text(text))
        if need.since:
            t.append(f" · {short_ago(need.since, now)} ago", style=p.theme_color("secondary"))
        t.no_wrap = True
        t.overflow = "ellipsis"
        return t

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.needs):
            self.post_message(self.Chosen(self.needs[index]))
