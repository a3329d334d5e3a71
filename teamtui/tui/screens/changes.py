"""What each teammate changed: the team's files by teammate (or by file), the collisions, and the
selected file's diff — that teammate's edits to it in order, each with its time and tool —
highlighted and paged (widgets/diff.py). A team on another machine keeps its edits there: the
selected file's are asked of it (TeamActions.diffs: a `diff` request over its stream) and drawn
when they come.

The rows come from session/changes.py TeamChanges. The dashboard tells this screen of each batch
(`team_changed`): only the rows whose figures moved are drawn again, and an edit that adds lines
to the page shown renders only those lines. A team whose teammates work in git worktrees is read
from git in a thread, again only when a file in a worktree changes (its own watcher, while this
screen is open). Every name, path and line is data (safe_text, inert).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey, RowKey

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.edits import DECLARED, GIT, Collision, Edit
from teamtui.session.changes import Row, TeamChanges, changes_of
from teamtui.session.team import TeamSession
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.diff import PAGE_LINES, DiffLines, Line, flatten, pages, render_lines
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.table import TeamTable

K = ChangeKind
# The batches that can move a row: a member's edits, its tasks (declared files), who is in the team.
KINDS = {K.FILES, K.TASK, K.TASK_COMPLETED, K.TASK_REMOVED, K.CONFIG, K.MEMBER_JOINED, K.MEMBER_LEFT, K.MEMBER_STATUS}
FETCHED_KEPT = 50  # files whose fetched diff a team elsewhere's view keeps
SEP = "\0"  # in row keys: never in a member's name, and a path holding it is cut there by the OS
COLUMNS = ("name", "lines", "edits", "last")


def measure(value: object) -> int:
    """Cells a table cell's value takes."""
    return value.cell_len if isinstance(value, Text) else len(str(value))


def _ago(ts: float | None, now: float) -> str:
    if ts is None:
        return ""
    s = max(0.0, now - ts)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if s >= size:
            return f"{int(s // size)}{unit}"
    return f"{int(s)}s"


class ChangesTable(TeamTable):
    """The rows: a heading per teammate (or file), its files (or teammates), the collisions first.

    A row redrawn in place (`update_row`) is drawn again alone (TeamTable keeps each row's drawn
    lines apart): one new edit draws its own row, not every row on screen."""

    def update_row(self, row_key: str, cells: list[object]) -> None:
        rk = RowKey(row_key)
        columns = [ColumnKey(c) for c in COLUMNS]
        grows = rk not in self.rows or any(
            (col := self.columns.get(ck)) is None or measure(v) > col.content_width
            for ck, v in zip(columns, cells, strict=True)
        )
        for ck, v in zip(columns, cells, strict=True):  # wider than its column: measured again, as DataTable does
            self.update_cell(rk, ck, v, update_width=grows)


class ChangesScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "close", "Back", id="changes.close"),
        Binding("v", "toggle_view", "By file / mate", id="changes.view"),
        Binding("n", "next_page", "Next page", id="changes.next_page"),
        Binding("p", "previous_page", "Prev page", id="changes.previous_page"),
        Binding("d", "dismiss_collision", "Dismiss", id="changes.dismiss"),
    ]
    DEFAULT_CSS = """
    ChangesScreen #changes-body { height: 1fr; }
    ChangesScreen #changes-left { width: 2fr; min-width: 36; }
    ChangesScreen #changes-right { width: 3fr; }
    ChangesScreen ChangesTable { height: 1fr; border: round $secondary; }
    ChangesScreen ChangesTable:focus { border: round $accent; }
    ChangesScreen #changes-title { height: 1; padding: 0 1; background: $panel; }
    ChangesScreen #diff-title { height: 1; padding: 0 1; }
    ChangesScreen DiffLines { border: round $secondary; }
    ChangesScreen DiffLines:focus { border: round $accent; }
    """

    def __init__(
        self,
        session: TeamSession,
        palette: Palette,
        *,
        clock: Callable[[], float] = time.time,
        by_file: bool = False,
        focus: str | None = None,
        dark: bool = True,
    ):
        super().__init__()
        self.session = session
        self.changes: TeamChanges = changes_of(session)
        self.palette = palette
        self.clock = clock
        self.by_file = by_file
        self.dark = dark
        self._focus_key = focus  # a row to start on (a collision's key: its file)
        self.rows: dict[str, Row] = {}  # file rows by row key
        self.collisions: dict[str, Collision] = {}
        # Worked out once per gather: the rows of each member and file, and who collides where.
        self._of_member: dict[str, list[str]] = {}
        self._of_file: dict[str, list[str]] = {}
        self._colliding: set[tuple[str, str]] = set()  # (where, member)
        self._sig: dict[str, tuple] = {}  # what each row shows, to redraw only those that moved
        self._order: list[str] = []
        self._diff_key: str | None = None  # the file row whose diff is shown
        self._diff_lines: list[Line] = []
        self._diff_title_base = Text()
        self._page_shown: tuple[str, int, list[Line]] | None = None  # (row key, page, its lines) as drawn
        self._diff_sig: tuple | None = None
        self.page = 0
        self._stop = asyncio.Event()
        self._watching = False
        # A team elsewhere: the diffs fetched from its machine, by row key (as of the counts they were asked at).
        self._fetched: dict[str, tuple[tuple, list[Edit], int]] = {}
        self._table = ChangesTable(id="changes-table", sized_by_layout=True)
        self._title = Static(id="changes-title")
        self._diff_title = Static(id="diff-title")
        self._diff = DiffLines(id="diff")
        self._colors: dict[str, str] = {}  # member -> its colour in this palette

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self._title
        with Horizontal(id="changes-body"):
            with Vertical(id="changes-left"):
                yield self._table
            with Vertical(id="changes-right"):
                yield self._diff_title
                yield self._diff
        yield KeyFooter()

    def on_mount(self) -> None:
        self._table.palette = self.palette
        self._columns()
        self.fill()
        if self._focus_key is not None:
            self.select(self._focus_key)
        self._table.focus()
        if self.changes.may_have_worktrees:
            self._read_git()

    def _columns(self) -> None:
        table = self._table
        table.add_column("File" if not self.by_file else "File · teammate", key="name")
        table.add_column("Lines", key="lines")
        table.add_column("Edits", key="edits")
        table.add_column("Last", key="last")

    # ------------------------------------------------------------------ the rows
    def _gather(self) -> None:
        rows = self.changes.rows()
        self.rows = {f"f{SEP}{r.member}{SEP}{r.change.path}{SEP}{r.source}": r for r in rows}
        found = self.changes.collisions(rows)
        self.collisions = {f"c{SEP}{c.key}": c for c in found}
        self._colliding = {(c.where, p.member) for c in found for p in (c.a, c.b)}
        self._of_member, self._of_file = {}, {}
        for key, r in self.rows.items():
            self._of_member.setdefault(r.member, []).append(key)
            self._of_file.setdefault(r.where, []).append(key)

    def _keys(self) -> list[str]:
        """Every row key, in the order shown."""
        keys = list(self.collisions)
        rows = self.rows
        if self.by_file:
            for where in sorted(self._of_file, key=str.lower):
                keys.append(f"w{SEP}{where}")
                keys += sorted(self._of_file[where], key=lambda k: rows[k].member)
        else:
            for member in sorted(self._of_member):
                keys.append(f"m{SEP}{member}")
                keys += sorted(self._of_member[member], key=lambda k: rows[k].shown.lower())
        return keys

    def _color(self, member: str) -> str:
        color = self._colors.get(member)
        if color is None:
            color = self._colors[member] = self.palette.member_color(member)
        return color

    def _member_sums(self, member: str) -> tuple[int, int, int]:
        files = [self.rows[k] for k in self._of_member.get(member, ())]
        seen = [r.change for r in files if r.source != DECLARED]
        return len(files), sum(fc.added for fc in seen), sum(fc.removed for fc in seen)

    def _sig_of(self, key: str, now: float) -> tuple:
        """What a row shows, cheaply: its cells are built again only when this moved."""
        kind, _, rest = key.partition(SEP)
        if kind == "c":
            c = self.collisions[key]
            return (c.path, c.a.member, c.b.member)
        if kind == "m":
            return self._member_sums(rest)
        if kind == "w":
            files = self._of_file.get(rest, [])
            return (len(files), any((rest, self.rows[k].member) in self._colliding for k in files))
        row = self.rows[key]
        fc = row.change
        colliding = (row.where, row.member) in self._colliding
        return (fc.added, fc.removed, fc.unknown, fc.edits, fc.created, row.outside, colliding, _ago(fc.last_at, now))

    def _cells(self, key: str, now: float) -> list[object]:
        """The cells of one row key."""
        palette = self.palette
        warn = palette.theme_color("warning")
        kind, _, rest = key.partition(SEP)
        if kind == "c":  # short here (the whole sentence is the diff pane's title when selected)
            c = self.collisions[key]
            cell = Text("⇄ ", style=f"bold {warn}")
            cell.append_text(safe_text(f"{c.path}: {c.a.member}, {c.b.member}", f"bold {warn}"))
            return [cell, "", "", ""]
        if kind == "m":
            n, added, removed = self._member_sums(rest)
            name = safe_text(rest, f"bold {self._color(rest)}")
            name.append(f"  {n} file{'s' if n != 1 else ''}", style="dim")
            return [name, Text(f"+{added} -{removed}", style="dim"), "", ""]
        if kind == "w":
            files = self._of_file.get(rest, [])
            cell = safe_text(self.rows[files[0]].shown if files else rest, "bold")
            if any((rest, self.rows[k].member) in self._colliding for k in files):
                cell.append("  ⇄", style=f"bold {warn}")
            return [cell, "", "", ""]
        row = self.rows[key]
        fc = row.change
        colliding = (row.where, row.member) in self._colliding
        name = Text("  ")
        if self.by_file:
            name.append_text(safe_text(row.member, self._color(row.member)))
        else:
            name.append_text(safe_text(row.shown))
        flags = [
            *(["new"] if fc.created else []),
            *([fc.source] if fc.source in (GIT, DECLARED) else []),
            *(["outside"] if row.outside else []),
            *(["⇄"] if colliding else []),
        ]
        if flags:
            name.append("  " + " ".join(flags), style=warn if colliding or row.outside else "dim")
        lines = Text(fc.counts, style="dim" if fc.source == DECLARED else "")
        edits = str(fc.edits) if fc.source != DECLARED else ""
        return [name, lines, edits, _ago(fc.last_at, now)]

    def fill(self) -> None:
        """Every row drawn again (the first fill, a new view, rows that came or went)."""
        self._gather()
        now = self.clock()
        table = self._table
        keep = table.selected
        table.clear()
        self._sig = {}
        self._order = self._keys()
        for key in self._order:
            self._sig[key] = self._sig_of(key, now)
            table.add_row(*self._cells(key, now), key=key)
        if keep is not None and keep in self._sig:
            table.move_cursor(row=table.get_row_index(keep))
        self._title_line()
        self.show_selected()

    def refresh_rows(self) -> None:
        """The rows after a change: the moved ones drawn again in place; all of them when rows came or went."""
        self._gather()
        keys = self._keys()
        if keys != self._order:
            self.fill()
            return
        now = self.clock()
        table = self._table
        for key in keys:
            sig = self._sig_of(key, now)
            if sig == self._sig.get(key):
                continue
            self._sig[key] = sig
            table.update_row(key, self._cells(key, now))
        self._title_line()
        self.show_selected()

    def _title_line(self) -> None:
        palette = self.palette
        files = {r.where for r in self.rows.values() if r.source != DECLARED}
        t = Text("Changes · ", style="bold")
        t.append_text(safe_text(self.session.name, "bold"))
        t.append(f" · {len(files)} file{'s' if len(files) != 1 else ''} changed by {len(self._of_member)}", style="dim")
        if self.collisions:
            n = len(self.collisions)
            t.append(f" · {n} collision{'s' if n != 1 else ''}", style=f"bold {palette.theme_color('warning')}")
        log = self.changes.seen_log
        if log is not None and log.files_left_out:
            t.append(f" · {log.files_left_out} more files not listed", style=palette.theme_color("warning"))
        t.append(" · by file" if self.by_file else " · by teammate", style="dim")
        self._title.update(t, layout=False)  # one line, always: no layout of the screen for it

    def team_changed(self, kinds: set[ChangeKind], full: bool = False) -> None:
        """A batch of the team's changes: the rows it can move, drawn again."""
        if (full or kinds & KINDS) and self.is_attached and self._table.is_attached:
            self.refresh_rows()

    # ------------------------------------------------------------------ the diff
    @on(DataTable.RowHighlighted, "#changes-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.page = 0
        self.show_selected()

    def _say(self, title: Text, text: Text) -> None:
        """A line of words in the diff pane (no diff)."""
        self._diff_title.update(title, layout=False)
        self._page_shown = None
        self._diff.show(text)

    def show_selected(self) -> None:
        key = self._table.selected
        if key is None:
            self._diff_key, self._diff_sig = None, None
            self._say(Text("Nothing changed yet.", style="dim"), Text())
            return
        kind = key.partition(SEP)[0]
        if kind == "f":
            self._show_file(key)
            return
        if kind == "w":
            self._file_heading(key)
            return
        if key == self._diff_key:
            return
        self._diff_key, self._diff_sig = key, None
        if kind == "c":
            c = self.collisions[key]
            self._say(
                safe_text(c.text, f"bold {self.palette.theme_color('warning')}"),
                Text("d dismisses it: it is not called again while both stay on the file.", style="dim"),
            )
        else:
            self._say(safe_text(key.partition(SEP)[2], "bold"), Text("Select a file to see its diff.", style="dim"))

    @staticmethod
    def _declared_text(row: Row) -> str:
        return f"Declared by {row.member} ({row.change.why}), no change seen yet: no diff to show."

    def _file_heading(self, key: str) -> None:
        """A file's heading (by file): who is on it; a diff is a teammate's, on that teammate's row."""
        where = key.partition(SEP)[2]
        rows = sorted((self.rows[k] for k in self._of_file.get(where, ())), key=lambda r: r.member)
        lines = [
            self._declared_text(r) if r.source == DECLARED else f"Changed by {r.member}: {r.change.counts}."
            for r in rows
        ]
        if any(r.source != DECLARED for r in rows):
            lines.append("Select a teammate's row below to see their diff.")
        sig = tuple(lines)
        if (key, sig) == (self._diff_key, self._diff_sig):
            return
        self._diff_key, self._diff_sig = key, sig
        text = Text("\n", style="dim").join(safe_text(line, "dim") for line in lines)  # each line inert on its own
        self._say(safe_text(rows[0].shown if rows else where, "bold"), text)

    def _head(self, row: Row, *extra: str) -> Text:
        head = safe_text(row.member, f"bold {self._color(row.member)}")
        head.append(" · ")
        head.append_text(safe_text(row.shown, "bold"))
        head.append(f" · {row.change.counts}")
        for part in extra:
            head.append(f" · {part}")
        if row.outside:
            head.append(" · outside the team's folder", style=self.palette.theme_color("warning"))
        return head

    def _show_file(self, key: str) -> None:
        row = self.rows[key]
        fc = row.change
        if fc.source == DECLARED:
            if key != self._diff_key:
                self._diff_key, self._diff_sig = key, None
                self._say(self._head(row), safe_text(self._declared_text(row), "dim"))
            return
        if fc.source == GIT:
            sig = ("git", fc.added, fc.removed, self.changes.git_generation)
            if (key, sig) == (self._diff_key, self._diff_sig):
                return
            self._diff_key, self._diff_sig = key, sig
            self._say(self._head(row, "git"), Text("Asking git…", style="dim"))
            self._git_diff(key, row.member, fc.path)
            return
        edits = self.changes.edits(row.member, fc.path)
        if not edits and self.session.here is None:
            self._fetch(key, row)
            return
        sig = ("seen", fc.edits, edits[-1].seq if edits else 0, sum(e.dropped for e in edits))
        if (key, sig) == (self._diff_key, self._diff_sig):
            return
        self._diff_key, self._diff_sig = key, sig
        self._diff_title_base = self._head(row)
        self._diff_lines = flatten(edits, max(0, fc.edits - len(edits)))
        self.page = min(self.page, pages(self._diff_lines) - 1)
        self._draw_page()

    def _draw_page(self) -> None:
        key = self._diff_key
        if key is None or key not in self.rows:
            return
        row = self.rows[key]
        n = pages(self._diff_lines)
        head = self._diff_title_base.copy()
        if n > 1:
            head.append(f" · page {self.page + 1}/{n} (n next, p previous)", style="dim")
        self._diff_title.update(head, layout=False)
        start = self.page * PAGE_LINES
        lines = self._diff_lines[start : start + PAGE_LINES]
        before = self._page_shown
        self._page_shown = (key, self.page, lines)
        if before is not None and before[:2] == (key, self.page):
            drawn = before[2]
            if lines == drawn:
                return  # an edit added past this page leaves it as drawn
            if lines[: len(drawn)] == drawn:  # an edit added to this page: only its lines are rendered
                self._diff.append(render_lines(lines[len(drawn) :], row.where, self.palette, dark=self.dark))
                return
        self._diff.show(render_lines(lines, row.where, self.palette, dark=self.dark))

    def _fetch(self, key: str, row: Row) -> None:
        """A team elsewhere: its edits stay on its machine; the file's are asked for (once per
        change of its counts) and drawn when they come."""
        fc = row.change
        sig = ("there", fc.edits, fc.added, fc.removed)
        if (key, sig) == (self._diff_key, self._diff_sig):
            return
        self._diff_key, self._diff_sig = key, sig
        kept = self._fetched.get(key)
        if kept is not None and kept[0] == sig:
            self._fetched_done(key, sig, kept[1], kept[2], "")
            return
        diffs = self.session.actions.diffs
        if diffs is None:
            self._say(self._head(row), Text("The diff stays on the team's machine.", style="dim"))
            return
        self._say(self._head(row), Text(f"Asking {self.session.panes_on or 'its machine'} for the diff…", style="dim"))
        diffs.fetch(
            row.member, fc.path, lambda edits, left_out, error: self._fetched_done(key, sig, edits, left_out, error)
        )

    def _fetched_done(self, key: str, sig: tuple, edits: list[Edit], left_out: int, error: str) -> None:
        if not error:
            self._fetched[key] = (sig, edits, left_out)
            if len(self._fetched) > FETCHED_KEPT:
                self._fetched.pop(next(iter(self._fetched)))
        if (key, sig) != (self._diff_key, self._diff_sig) or key not in self.rows or not self.is_attached:
            return  # the person moved on meanwhile
        row = self.rows[key]
        if error:
            self._say(self._head(row), safe_text(f"No diff: {error}", self.palette.theme_color("warning")))
            return
        self._diff_title_base = self._head(row)
        self._diff_lines = flatten(edits, left_out)
        self.page = min(self.page, pages(self._diff_lines) - 1)
        self._page_shown = None
        self._draw_page()

    @work(thread=True, group="git-diff", exclusive=True, exit_on_error=False)
    def _git_diff(self, key: str, member: str, path: str) -> None:
        edit = self.changes.git_diff(member, path)
        self.app.call_from_thread(self._git_diff_done, key, edit)

    def _git_diff_done(self, key: str, edit: Edit | None) -> None:
        if key != self._diff_key or key not in self.rows or not self.is_attached:
            return
        self._diff_title_base = self._head(self.rows[key], "git")
        self._diff_lines = flatten([edit] if edit is not None else [])
        self.page = min(self.page, pages(self._diff_lines) - 1)
        self._page_shown = None
        self._draw_page()

    # ------------------------------------------------------------------ git worktrees
    @work(thread=True, group="git-read", exclusive=True, exit_on_error=False)
    def _read_git(self) -> None:
        got = self.changes.read_git()
        self.app.call_from_thread(self._git_read, got)

    def _git_read(self, got: Any) -> None:
        if not self.is_attached:
            return
        if self.changes.take_git(got):
            self.refresh_rows()
        if not self._watching and self.changes.watch_dirs():
            self._watching = True
            self._watch_worktrees()

    @work(group="git-watch", exclusive=True, exit_on_error=False)
    async def _watch_worktrees(self) -> None:
        """A file changed in a worktree (or a worktree came): git is asked again, in a thread."""
        from teamtui.protocol.watch import watch_dirs

        async for batch in watch_dirs(self.changes.watch_dirs(), self._stop):
            if batch.rescan or any(self.changes.concerns(p) for p in batch.paths):
                self._read_git()

    # ------------------------------------------------------------------ keys
    def select(self, key: str) -> None:
        """Put the cursor on a row: a row key, or a collision's key (its row)."""
        table = self._table
        for k in (key, f"c{SEP}{key}"):
            if k in self._sig:
                table.move_cursor(row=table.get_row_index(k))
                return

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_view(self) -> None:
        self.by_file = not self.by_file
        self._table.clear(columns=True)
        self._columns()
        self.fill()

    def _turn(self, step: int) -> None:
        if self._diff_key is not None and 0 <= self.page + step < pages(self._diff_lines):
            self.page += step
            self._draw_page()

    def action_next_page(self) -> None:
        self._turn(+1)

    def action_previous_page(self) -> None:
        self._turn(-1)

    def action_dismiss_collision(self) -> None:
        key = self._table.selected
        c = self.collisions.get(key) if key is not None else None
        if c is None:
            self.notify("Select a collision (⇄) to dismiss it.", severity="warning")
            return
        self.changes.dismiss(c.key)
        self.refresh_rows()

    def on_unmount(self) -> None:
        self._stop.set()


__all__ = ["KINDS", "SEP", "ChangesScreen"]
