"""What each teammate changed: the team's files by teammate (or by file), the collisions, and the
selected file's diff — that teammate's edits to it in order, each with its time and tool —
highlighted and paged (widgets/diff.py).

The rows come from session/changes.py TeamChanges. The dashboard tells this screen of each batch
(`team_changed`): only the rows whose figures moved are drawn again. A team whose teammates work
in git worktrees is read from git in a thread, again only when a file in a worktree changes (its
own watcher, while this screen is open). Every name, path and line is data (safe_text, inert).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.edits import DECLARED, GIT, Collision, Edit
from teamtui.session.changes import Row, TeamChanges, changes_of
from teamtui.session.team import TeamSession
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.diff import Line, flatten, pages, render_page
from teamtui.tui.widgets.table import TeamTable

K = ChangeKind
# The batches that can move a row: a member's edits, its tasks (declared files), who is in the team.
KINDS = {K.FILES, K.TASK, K.TASK_COMPLETED, K.TASK_REMOVED, K.CONFIG, K.MEMBER_JOINED, K.MEMBER_LEFT, K.MEMBER_STATUS}
SEP = "\0"  # in row keys: never in a member's name, and a path holding it is cut there by the OS


def _ago(ts: float | None, now: float) -> str:
    if ts is None:
        return ""
    s = max(0.0, now - ts)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if s >= size:
            return f"{int(s // size)}{unit}"
    return f"{int(s)}s"


class ChangesTable(TeamTable):
    """The rows: a heading per teammate (or file), its files (or teammates), the collisions first."""


class ChangesScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "close", "Back", id="changes.close"),
        Binding("v", "toggle_view", "By file", id="changes.view"),
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
    ChangesScreen #diff-scroll { height: 1fr; border: round $secondary; }
    ChangesScreen #diff-scroll:focus { border: round $accent; }
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
        self._sig: dict[str, tuple] = {}  # what each row shows, to redraw only those that moved
        self._order: list[str] = []
        self._diff_key: str | None = None  # the file row whose diff is shown
        self._diff_lines: list[Line] = []
        self._diff_title_base = Text()
        self._diff_sig: tuple | None = None
        self.page = 0
        self._stop = asyncio.Event()
        self._table = ChangesTable(id="changes-table", sized_by_layout=True)
        self._title = Static(id="changes-title")
        self._diff_title = Static(id="diff-title")
        self._diff = Static(id="diff")
        self.drawn = 0  # times rows were drawn (full fills, updates): the benchmarks read it

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self._title
        with Horizontal(id="changes-body"):
            with Vertical(id="changes-left"):
                yield self._table
            with Vertical(id="changes-right"):
                yield self._diff_title
                with VerticalScroll(id="diff-scroll"):
                    yield self._diff
        yield Footer()

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
    def _row_cells(self, key: str, now: float) -> tuple[tuple, list[Any]]:
        """(signature, cells) of one row key."""
        palette = self.palette
        kind, _, rest = key.partition(SEP)
        warn = palette.theme_color("warning")
        if kind == "c":  # short here (the whole sentence is the diff pane's title when selected)
            c = self.collisions[key]
            cell = Text("⇄ ", style=f"bold {warn}")
            cell.append_text(safe_text(f"{c.path}: {c.a.member}, {c.b.member}", f"bold {warn}"))
            return (c.path, c.a.member, c.b.member), [cell, "", "", ""]
        if kind == "m":
            files = [r for r in self.rows.values() if r.member == rest]
            added = sum(r.change.added for r in files if r.source != DECLARED)
            removed = sum(r.change.removed for r in files if r.source != DECLARED)
            n = len(files)
            name = safe_text(rest, f"bold {palette.member_color(rest)}")
            name.append(f"  {n} file{'s' if n != 1 else ''}", style="dim")
            return (n, added, removed), [name, Text(f"+{added} -{removed}", style="dim"), "", ""]
        if kind == "w":
            files = [r for r in self.rows.values() if r.where == rest]
            shown = files[0].shown if files else rest
            colliding = any(c.where == rest for c in self.collisions.values())
            cell = safe_text(shown, "bold")
            if colliding:
                cell.append("  ⇄", style=f"bold {warn}")
            return (shown, colliding, len(files)), [cell, "", "", ""]
        row = self.rows[key]
        fc = row.change
        colliding = any(
            c.where == row.where and fc.member in (c.a.member, c.b.member) for c in self.collisions.values()
        )
        label = row.member if self.by_file else row.shown
        style = palette.member_color(row.member) if self.by_file else ""
        name = Text("  ")
        name.append_text(safe_text(label, style))
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
        last = _ago(fc.last_at, now)
        sig = (label, fc.counts, edits, last, tuple(flags))
        return sig, [name, lines, edits, last]

    def _keys(self) -> list[str]:
        """Every row key, in the order shown."""
        keys = list(self.collisions)
        if self.by_file:
            for where in sorted({r.where for r in self.rows.values()}, key=lambda w: w.lower()):
                keys.append(f"w{SEP}{where}")
                keys += sorted((k for k, r in self.rows.items() if r.where == where), key=lambda k: self.rows[k].member)
        else:
            for member in sorted({r.member for r in self.rows.values()}):
                keys.append(f"m{SEP}{member}")
                keys += sorted(
                    (k for k, r in self.rows.items() if r.member == member), key=lambda k: self.rows[k].shown.lower()
                )
        return keys

    def _gather(self) -> None:
        rows = self.changes.rows()
        self.rows = {f"f{SEP}{r.member}{SEP}{r.change.path}{SEP}{r.source}": r for r in rows}
        self.collisions = {f"c{SEP}{c.key}": c for c in self.changes.collisions(rows)}

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
            sig, cells = self._row_cells(key, now)
            self._sig[key] = sig
            table.add_row(*cells, key=key)
        if keep is not None and keep in self._sig:
            table.move_cursor(row=table.get_row_index(keep))
        self._title_line()
        self.drawn += 1
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
            sig, cells = self._row_cells(key, now)
            if sig == self._sig.get(key):
                continue
            self._sig[key] = sig
            for column, value in zip(("name", "lines", "edits", "last"), cells, strict=True):
                table.update_cell(key, column, value)
        self._title_line()
        self.drawn += 1
        self.show_selected()

    def _title_line(self) -> None:
        palette = self.palette
        files = {r.where for r in self.rows.values() if r.source != DECLARED}
        members = {r.member for r in self.rows.values()}
        t = Text("Changes · ", style="bold")
        t.append_text(safe_text(self.session.name, "bold"))
        t.append(f" · {len(files)} file{'s' if len(files) != 1 else ''} changed by {len(members)}", style="dim")
        if self.collisions:
            n = len(self.collisions)
            t.append(f" · {n} collision{'s' if n != 1 else ''}", style=f"bold {palette.theme_color('warning')}")
        log = self.changes.seen_log
        if log is not None and log.files_left_out:
            t.append(f" · {log.files_left_out} more files not listed", style=palette.theme_color("warning"))
        t.append(" · by file" if self.by_file else " · by teammate", style="dim")
        self._title.update(t)

    def team_changed(self, kinds: set[str], full: bool = False) -> None:
        """A batch of the team's changes: the rows it can move, drawn again."""
        if (full or kinds & KINDS) and self.is_attached and self._table.is_attached:
            self.refresh_rows()

    # ------------------------------------------------------------------ the diff
    @on(DataTable.RowHighlighted, "#changes-table")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self.page = 0
        self.show_selected()

    def show_selected(self) -> None:
        key = self._table.selected
        if key is None:
            self._diff_title.update(Text("Nothing changed yet.", style="dim"))
            self._diff.update("")
            self._diff_key, self._diff_sig = None, None
            return
        kind = key.partition(SEP)[0]
        if kind == "f":
            self._show_file(key)
            return
        self._diff_key, self._diff_sig = None, None
        if kind == "c":
            c = self.collisions[key]
            self._diff_title.update(safe_text(c.text, f"bold {self.palette.theme_color('warning')}"))
            self._diff.update(Text("d dismisses it: it is not called again while both stay on the file.", style="dim"))
        else:
            what = key.partition(SEP)[2]
            self._diff_title.update(safe_text(what, "bold"))
            self._diff.update(Text("Select a file to see its diff.", style="dim"))

    def _show_file(self, key: str) -> None:
        row = self.rows[key]
        fc = row.change
        head = safe_text(row.member, f"bold {self.palette.member_color(row.member)}")
        head.append(" · ")
        head.append_text(safe_text(row.shown, "bold"))
        head.append(f" · {fc.counts}")
        if row.outside:
            head.append(" · outside the team's folder", style=self.palette.theme_color("warning"))
        if fc.source == DECLARED:
            self._diff_key, self._diff_sig = key, None
            self._diff_title.update(head)
            self._diff.update(
                safe_text(f"Declared by {row.member} ({fc.why}), not seen changed: no diff to show.", "dim")
            )
            return
        if fc.source == GIT:
            sig = ("git", fc.added, fc.removed, self.changes.git_generation)
            if (key, sig) == (self._diff_key, self._diff_sig):
                return
            self._diff_key, self._diff_sig = key, sig
            self._diff_title.update(head)
            self._diff.update(Text("Asking git…", style="dim"))
            self._git_diff(key, row.member, fc.path)
            return
        edits = self.changes.edits(row.member, fc.path)
        sig = ("seen", fc.edits, edits[-1].seq if edits else 0, sum(e.dropped for e in edits))
        if (key, sig) == (self._diff_key, self._diff_sig):
            return
        self._diff_key, self._diff_sig = key, sig
        self._diff_title_base = head
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
        self._diff_title.update(head)
        self._diff.update(render_page(self._diff_lines, self.page, row.where, self.palette, dark=self.dark))

    @work(thread=True, group="git-diff", exclusive=True, exit_on_error=False)
    def _git_diff(self, key: str, member: str, path: str) -> None:
        edit = self.changes.git_diff(member, path)
        self.app.call_from_thread(self._git_diff_done, key, edit)

    def _git_diff_done(self, key: str, edit: Edit | None) -> None:
        if key != self._diff_key or key not in self.rows or not self.is_attached:
            return
        row = self.rows[key]
        head = safe_text(row.member, f"bold {self.palette.member_color(row.member)}")
        head.append(" · ")
        head.append_text(safe_text(row.shown, "bold"))
        head.append(f" · {row.change.counts} · git")
        self._diff_title_base = head
        self._diff_lines = flatten([edit] if edit is not None else [])
        self.page = min(self.page, pages(self._diff_lines) - 1)
        self._draw_page()

    # ------------------------------------------------------------------ git worktrees
    @work(thread=True, group="git-read", exclusive=True, exit_on_error=False)
    def _read_git(self) -> None:
        got = self.changes.read_git()
        self.app.call_from_thread(self._git_read, got)

    def _git_read(self, got: Any) -> None:
        if not self.is_attached:
            return
        first = not self._watching
        if self.changes.take_git(got):
            self.refresh_rows()
        if first and self.changes.watch_dirs():
            self._watching = True
            self._watch_worktrees()

    _watching = False

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

    def action_next_page(self) -> None:
        if self._diff_key is not None and self.page + 1 < pages(self._diff_lines):
            self.page += 1
            self._draw_page()
            self.query_one("#diff-scroll", VerticalScroll).scroll_home(animate=False)

    def action_previous_page(self) -> None:
        if self._diff_key is not None and self.page > 0:
            self.page -= 1
            self._draw_page()
            self.query_one("#diff-scroll", VerticalScroll).scroll_home(animate=False)

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


def diff_text(lines: Iterable[Line]) -> str:
    """The flattened diff as plain text (what a test or a copy sees)."""
    return "\n".join(("" if ln.kind in ("edit", "note", "hunk") else ln.kind) + ln.text for ln in lines)


__all__ = ["KINDS", "ChangesScreen", "diff_text"]
