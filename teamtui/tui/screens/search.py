"""Search every team's history from the room (`/`): type, and the newest matches are listed with
their team, who, when and the matching text, the match marked.

Each keystroke (after a short pause) searches in a thread (the history database, SQLite's FTS5:
protocol/history/search.py); a query it cannot read says why under the input. The room's hosts are
asked too (`hosts`: a `search` over each one's stream, answered from its own database): their hits
join as they come, labelled team@host, and a host that cannot answer says why on the status line. `enter` on a result
posts `SearchScreen.Chosen` to the app (the team's key and the item's time: opening the team at
that item is the room's) and closes the screen with the hit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from teamtui.protocol.history.search import SearchHit
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert
from teamtui.tui.widgets.footer import KeyFooter

# Typing pauses this long before the search runs.
DEBOUNCE = 0.15
LIMIT = 100


def _when(ts: float, now: float) -> str:
    try:
        same_day = time.localtime(ts)[:3] == time.localtime(now)[:3]
        return time.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "-"


# The widest a team or a who column grows; the text takes the rest of the line.
WIDEST = 28
GAP = "  "


@dataclass(frozen=True)
class Columns:
    """Each column as wide as its widest entry among the results shown (team and who at most WIDEST)."""

    when: int
    team: int
    who: int
    kind: int

    @classmethod
    def of(cls, hits: list[SearchHit], now: float) -> Columns:
        return cls(
            when=max((cell_len(_when(h.at, now)) for h in hits), default=0),
            team=min(WIDEST, max((cell_len(_team(h)) for h in hits), default=0)),
            who=min(WIDEST, max((cell_len(_who(h)) for h in hits), default=0)),
            kind=max((cell_len(h.kind) for h in hits), default=0),
        )

    @property
    def before_text(self) -> int:
        return self.when + self.team + self.who + self.kind + 4 * len(GAP)


def _team(hit: SearchHit) -> str:
    return inert(hit.team) + (f"@{inert(hit.host)}" if hit.host else "")


def _who(hit: SearchHit) -> str:
    who = inert(hit.who) or "-"
    return f"{who} → {inert(hit.ref)}" if hit.kind == "message" and hit.ref else who


def _cell(text: str, width: int) -> str:
    return set_cell_size(text, width) if cell_len(text) <= width else set_cell_size(text, width - 1) + "…"


def hit_line(hit: SearchHit, palette: Palette, now: float, cols: Columns | None = None, width: int = 0) -> Text:
    """One result on one line: when, team, who (→ to), kind, and the text with the match marked.
    Within `width` (0: no limit) the text is cut to fit, its first match kept in view."""
    cols = cols or Columns.of([hit], now)
    secondary = palette.theme_color("secondary")
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(_when(hit.at, now).rjust(cols.when) + GAP, style=secondary)
    t.append(_cell(_team(hit), cols.team), style="bold")
    t.append(GAP)
    t.append(_cell(_who(hit), cols.who), style=palette.member_color(hit.who) if hit.who else "")
    t.append(GAP + hit.kind.ljust(cols.kind) + GAP, style=secondary)
    body = Text()
    for text, marked in hit.one_line():
        body.append(
            inert(text).replace("\t", " "), style=f"bold reverse {palette.theme_color('accent')}" if marked else ""
        )
    room = width - cols.before_text
    if width and body.cell_len > room > 0:
        body = _around_first_match(body, hit, room)
    t.append_text(body)
    if width:
        t.truncate(width, overflow="ellipsis")
    return t


def _around_first_match(body: Text, hit: SearchHit, room: int) -> Text:
    """`body` cut to `room` cells with its first match in view (a third of the way in, when it is far)."""
    start = 0
    for text, marked in hit.one_line():
        if marked:
            break
        start += len(inert(text))
    if start > room // 2:
        body = Text("…") + body[start - room // 3 :]
    body.truncate(room, overflow="ellipsis")
    return body


class SearchScreen(Screen[SearchHit | None]):
    DEFAULT_CSS = """
    SearchScreen #search-input { margin: 0 1; }
    SearchScreen #search-status { height: 1; padding: 0 2; color: $text-muted; }
    SearchScreen #search-results { height: 1fr; border: round $panel; }
    SearchScreen #search-results:focus { border: round $primary; }
    """
    BINDINGS = [
        Binding("escape", "close", "Back", id="search.close"),
        Binding("down", "results", "Results", id="search.results", show=False),
    ]

    class Chosen(Message):
        """A result was chosen: open team `key` at the item seen at `at`."""

        def __init__(self, key: tuple[str, str, str], at: float, hit: SearchHit) -> None:
            super().__init__()
            self.key, self.at, self.hit = key, at, hit

    def __init__(
        self,
        palette: Palette,
        *,
        path: Path | None = None,
        clock: Callable[[], float] = time.time,
        query: str = "",
        hosts: Callable[[str, int, Callable[[str, list[SearchHit], str], None]], list[str]] | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.palette = palette
        self.path = path  # the history database (None: the user's)
        self.clock = clock
        self.hosts = hosts  # asks the room's hosts to search theirs (session/ops/search.py); None: none
        self.hits: list[SearchHit] = []
        self.searched = ""  # the query the results are of
        self.local: list[SearchHit] = []  # this machine's hits for `searched`
        self.remote: dict[str, list[SearchHit]] = {}  # each host's, as they answer
        self.host_said: dict[str, str] = {}  # a host's word instead of hits ("" : answered; "asking…")
        self._problem = ""
        self._first = query
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Input(
            value=self._first,
            placeholder='Search every team: words, "a phrase", deploy*, OR, NOT',
            id="search-input",
        )
        yield Static("", id="search-status")
        yield OptionList(id="search-results")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(OptionList).border_title = "Results"
        self.query_one(Input).focus()
        if self._first:
            self._search(self._first)

    @on(Input.Changed, "#search-input")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        query = event.value
        self._timer = self.set_timer(DEBOUNCE, lambda: self._search(query))

    @on(Input.Submitted, "#search-input")
    def _submitted(self) -> None:
        if self.hits:
            results = self.query_one(OptionList)
            results.focus()
            results.highlighted = 0

    def _search(self, query: str) -> None:
        if not query.strip():
            self._show(query, [], "")
            return
        self._run(query)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _run(self, query: str) -> None:
        from teamtui.protocol.history.db import Trouble
        from teamtui.protocol.history.query import open_history
        from teamtui.protocol.history.search import QueryError, search

        try:
            con = open_history(self.path, import_journals=False)
        except Trouble as exc:
            self.app.call_from_thread(self._show, query, [], f"the history cannot be read: {exc}")
            return
        try:
            hits = search(con, query, limit=LIMIT)
        except QueryError as exc:
            self.app.call_from_thread(self._show, query, [], str(exc), True)
            return
        finally:
            con.close()
        self.app.call_from_thread(self._show, query, hits, "")

    def _show(self, query: str, hits: list[SearchHit], problem: str, bad_query: bool = False) -> None:
        if query != self.query_one(Input).value:
            return  # the person typed on: a newer search is coming
        self.searched, self.local, self._problem = query, hits, problem
        self.remote, self.host_said = {}, {}
        if self.hosts is not None and query.strip() and not bad_query:  # the hosts have histories of their own
            for name in self.hosts(query, LIMIT, lambda host, found, why: self._from_host(query, host, found, why)):
                self.host_said.setdefault(name, "asking…")
        self._draw()

    def _from_host(self, query: str, host: str, hits: list[SearchHit], why: str) -> None:
        """A host's answer (on the loop): its hits among this machine's, newest first."""
        if query != self.searched or not self.is_attached:
            return  # an answer to an older query
        self.remote[host], self.host_said[host] = hits, why
        self._draw()

    def _draw(self) -> None:
        query, problem = self.searched, self._problem
        hits = sorted([*self.local, *(h for found in self.remote.values() for h in found)], key=lambda h: -h.at)
        self.hits = hits
        status = self.query_one("#search-status", Static)
        warn = self.palette.theme_color("warning")
        if not query.strip():
            status.update("")
        else:
            more = "+" if len(hits) >= LIMIT else ""
            said = Text(problem, style=warn) if problem else Text()
            if not problem or self.host_said:
                said.append(
                    f"{' · ' if problem else ''}{len(hits)}{more} match{'es' if len(hits) != 1 else ''}, "
                    "newest first · enter opens the team there"
                )
            for host, why in sorted(self.host_said.items()):
                words = why or f"{len(self.remote.get(host, []))} there"
                said.append(f" · {inert(host)}: {inert(words)}", style=warn if why and why != "asking…" else "")
            status.update(said)
        self._list(keep=False)

    def _list(self, keep: bool = True) -> None:
        now = self.clock()
        results = self.query_one(OptionList)
        cols, width = Columns.of(self.hits, now), results.scrollable_content_region.width
        highlighted = results.highlighted if keep else None
        results.clear_options()
        results.add_options(
            [Option(hit_line(h, self.palette, now, cols, width), id=str(i)) for i, h in enumerate(self.hits)]
        )
        if highlighted is not None and highlighted < len(self.hits):
            results.highlighted = highlighted

    def on_resize(self) -> None:
        if self.hits:
            self.call_after_refresh(self._list)  # once the list has its new width

    @on(OptionList.OptionSelected, "#search-results")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        hit = self.hits[event.option_index]
        self.app.post_message(SearchScreen.Chosen(hit.key, hit.at, hit))
        self.dismiss(hit)

    def action_results(self) -> None:
        if self.hits:
            results = self.query_one(OptionList)
            results.focus()
            if results.highlighted is None:
                results.highlighted = 0

    def action_close(self) -> None:
        self.dismiss(None)
