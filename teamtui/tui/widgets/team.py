"""The team panel: one row per member, like Autohand's `/team status`.

For a team whose transcripts were read (Claude Code), the columns say what each one is doing
now and how long ago, its tokens, what it cost and its context share instead of status and
"Active"; a figure the transcript does not give stays blank (a cost of a model with no price: "?")."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable

from teamtui.protocol.claude import member_backend
from teamtui.protocol.cost import ZERO, short_money
from teamtui.protocol.models import MemberStatus
from teamtui.tui.format import STATUS_ICON, ago, compact_count, short_ago
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.table import EndMark, TeamTable, cut, wants
from teamtui.tui.widgets.tasks import same_text

COLUMNS = ("icon", "name", "status", "task", "active", "unread")
# Short enough to fit beside the status: where a Claude Code teammate runs.
_BACKEND = {"tmux": "tmux", "in-process": "proc", "iterm2": "iterm"}
# With transcripts there is no room for that word: one mark at the end of the name cell, and its
# meaning in the panel's title.
BACKEND_MARK = {"tmux": "▣", "in-process": "↳", "iterm2": "▢"}
_BACKEND_LEGEND = {"tmux": "tmux pane", "in-process": "in-process", "iterm2": "iTerm2 pane"}
# With transcripts: (key, label, width). The widths are where the columns start: they then share the
# panel's width by what they hold (TeamTable.share_width), the current task and "Doing" giving way first.
TRANSCRIPT_COLUMNS = (
    ("icon", "", 1),
    ("name", "Teammate", 11),
    ("task", "Task", 7),
    ("doing", "Doing", 20),
    ("tokens", "Tok", 4),
    ("cost", "Cost", 6),
    ("context", "Ctx", 4),
    ("unread", "✉", 2),
)
_STATUS_ROLE = {MemberStatus.WORKING: "warning", MemberStatus.IDLE: "success", MemberStatus.SHUTDOWN: "error"}
GIVE_WAY = ("task", "name")
GIVE_WAY_WITH_TRANSCRIPTS = ("task", "doing", "name")
# Figures and states: cut, they would mislead ("workin"); the names and the task give way instead.
KEEP = ("icon", "status", "active", "unread", "tokens", "cost", "context")


class TeamPanel(TeamTable):
    """Rows keyed by member name; the cursor row is the selected teammate."""

    @dataclass
    class TeammateHighlighted(Message):
        """The cursor moved to a teammate (None: the table is empty)."""

        name: str | None

    @dataclass
    class TeammateChosen(Message):
        """Enter on a teammate's row."""

        name: str

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.TeammateHighlighted(str(event.row_key.value) if event.row_key else None))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.TeammateChosen(str(event.row_key.value)))

    def __init__(self, **kw):
        super().__init__(**kw)
        self._names: list[str] | None = None  # the rows shown, in order
        self._shown_rows: dict[str, tuple] = {}  # what each row shows, cheap to compare
        self._usage = False  # the transcript columns are shown
        self._ended = False  # the team has ended: every member is gone with it
        self._measured: dict[str, dict[str, int]] = {}  # each row's cells' widths, as last drawn

    def on_mount(self) -> None:
        self._add_columns()

    def _add_columns(self) -> None:
        if self._usage:
            for key, label, width in TRANSCRIPT_COLUMNS:
                self.add_column(label, key=key, width=width)
            return
        self.add_column("", key="icon", width=1)
        self.add_column("Teammate", key="name", width=16)
        self.add_column("Status", key="status", width=13)
        self.add_column("Current task", key="task", width=16)
        self.add_column("Active", key="active", width=7)
        self.add_column("✉", key="unread", width=3)

    def _marked_name_cell(self, v, color: str) -> Text | EndMark:
        """The name, and at the cell's end the mark of where the teammate runs (Claude Code)."""
        name = safe_text(v.name, f"bold {color}")
        mark = BACKEND_MARK.get(_backend(v))
        if mark is None:
            return cut(name)
        return EndMark(name, Text(mark, style=self.palette.theme_color("secondary")))

    def _task_cell(self, v) -> Text:
        secondary = self.palette.theme_color("secondary")
        if v.current_task is None:
            return Text("—", style=secondary)
        task = Text(f"#{v.current_task.id} ", style=secondary)
        task.append_text(safe_text(v.current_task.subject))
        return cut(task)

    def _usage_row(self, v, stats, now: float) -> tuple[Text | EndMark, ...]:
        """The transcript columns: icon, name, task, doing, tokens, context, unread."""
        palette = self.palette
        color = palette.teammate_color(v.color, v.name)
        secondary = palette.theme_color("secondary")
        activity = stats.activity if stats is not None else None
        if v.departed:  # its transcript's last words are not what it does now
            doing = Text("left the team", style=secondary)
        elif self._ended:
            doing = Text("gone with the team", style=secondary)
        elif v.disappeared:
            doing = Text(f"{short_ago(v.last_activity, now):>3} ⚠ silent", style=f"bold {palette.theme_color('error')}")
        elif activity is None:
            doing = Text("—", style=secondary)
        else:
            doing = Text(f"{short_ago(activity.ts, now):>3} ", style=secondary)
            role = "success" if activity.kind == "idle" else "warning"
            doing.append_text(safe_text(_doing(activity), palette.theme_color(role)))
            cut(doing)
        total = stats.tokens.total if stats is not None else None
        tokens = Text(compact_count(total) if total is not None else "", style=secondary, justify="right")
        cost = self._cost_cell(stats.cost if stats is not None else None)
        share = stats.context_share if stats is not None else None
        context = Text(f"{round(share * 100)}%" if share is not None else "", style=secondary, justify="right")
        unread = (
            Text(str(v.unread), style=f"bold {palette.theme_color('accent')}", justify="right")
            if v.unread
            else Text("")
        )
        return (
            Text(STATUS_ICON[MemberStatus.SHUTDOWN] if self._ended else STATUS_ICON.get(v.status, "?"), style=color),
            self._marked_name_cell(v, color),
            self._task_cell(v),
            doing,
            tokens,
            cost,
            context,
            unread,
        )

    def _cost_cell(self, cost) -> Text:
        """$1.23; with messages of a model that has no price, a "?" after it (or alone)."""
        palette = self.palette
        if cost is None:
            return Text("")
        if not cost.unknown:
            return Text(short_money(cost.usd), style=palette.theme_color("secondary"), justify="right")
        said = f"{short_money(cost.usd)}?" if cost.usd != ZERO else "?"
        return Text(said, style=palette.theme_color("warning"), justify="right")

    def _row(self, v, now: float) -> tuple[Text, ...]:
        palette = self.palette
        color = palette.teammate_color(v.color, v.name)
        icon = STATUS_ICON[MemberStatus.SHUTDOWN] if self._ended else STATUS_ICON.get(v.status, "?")
        name = Text()
        name.append_text(safe_text(v.name, f"bold {color}"))
        if v.agent_type:
            name.append(" (")
            name.append_text(safe_text(v.agent_type, palette.theme_color("secondary")))
            name.append(")")
        cut(name)
        if self._ended:  # whatever its files last said, it went with its team
            status = Text("gone", style=palette.theme_color("error"))
        elif v.disappeared:
            status = Text("⚠ disappeared", style=f"bold {palette.theme_color('error')}")
        else:
            status = Text(v.status.value, style=palette.theme_color(_STATUS_ROLE.get(v.status, "secondary")))
            backend = _BACKEND.get(_backend(v))
            if backend:  # Claude Code: where the teammate runs (a tmux pane, or inside the lead)
                status.append("·" + backend, style=palette.theme_color("secondary"))
        cut(status)
        task = self._task_cell(v)
        unread = (
            Text(str(v.unread), style=f"bold {palette.theme_color('accent')}", justify="right")
            if v.unread
            else Text("")
        )
        active = Text(ago(v.last_activity, now), style=palette.theme_color("secondary"))
        return (Text(icon, style=color), name, status, task, active, unread)

    def show(self, views, now: float, usage=None, ended: bool = False) -> None:
        """Rebuild when the members (or their order) changed, else redraw only changed cells.
        `usage` (member → TranscriptStats, or None) switches to the transcript columns; `ended`:
        the team has ended, and every member is shown gone with it."""
        self._ended = ended
        keep = self.selected
        if (usage is not None) != self._usage:
            self._usage = usage is not None
            self.clear(columns=True)
            self._names = None
            self._add_columns()
        names = [v.name for v in views]
        theme = self.palette.theme
        columns = [c[0] for c in TRANSCRIPT_COLUMNS] if usage is not None else COLUMNS

        def row(v):
            return self._usage_row(v, usage.get(v.name), now) if usage is not None else self._row(v, now)

        # What a row shows, cheap to compare: rows whose signature is unchanged are not rebuilt.
        sigs = {
            v.name: (
                theme,
                ended,
                v.status,
                v.disappeared,
                v.agent_type,
                v.color,
                v.unread,
                ago(v.last_activity, now),
                v.current_task and (v.current_task.id, v.current_task.subject),
                _usage_sig(usage, v.name, now),
                _backend(v),
            )
            for v in views
        }
        title = self._title(views, usage is not None)
        if self.border_title != title:  # setting it, even unchanged, redraws the panel
            self.border_title = title
        give_way = GIVE_WAY_WITH_TRANSCRIPTS if usage is not None else GIVE_WAY
        if names == self._names:
            for v in views:
                if sigs[v.name] != self._shown_rows.get(v.name):
                    cells = row(v)
                    self._measure(v.name, columns, cells)
                    for column, cell in zip(columns, cells, strict=True):
                        if not same_text(self.get_cell(v.name, column), cell):
                            self.update_cell(v.name, column, cell)
            self._shown_rows = sigs
            self._share_columns(names, columns, give_way)
            return
        self.clear()
        self._names, self._shown_rows, self._measured = names, sigs, {}
        for v in views:
            cells = row(v)
            self._measure(v.name, columns, cells)
            self.add_row(*cells, key=v.name)
        self._share_columns(names, columns, give_way)
        if keep is not None:
            try:
                self.move_cursor(row=self.get_row_index(keep))
            except Exception:  # noqa: BLE001 - the member left: the cursor stays where it falls
                pass

    def _measure(self, name: str, columns, cells) -> None:
        self._measured[name] = {column: wants(cell) for column, cell in zip(columns, cells, strict=True)}

    def _share_columns(self, names: list[str], columns, give_way: tuple[str, ...]) -> None:
        """The columns share the panel's width by what the rows hold (the current task gives way first)."""
        measured = [self._measured[n] for n in names if n in self._measured]
        self.share_width({c: max((m.get(c, 0) for m in measured), default=0) for c in columns}, give_way, KEEP)

    @staticmethod
    def _title(views, marked: bool) -> str:
        """The panel's title: with the transcript columns, it says what each backend mark shown means."""
        if not marked:
            return "Team"
        shown = {_backend(v) for v in views}
        legend = [f"{BACKEND_MARK[b]} {_BACKEND_LEGEND[b]}" for b in BACKEND_MARK if b in shown]
        return " · ".join(["Team", *legend])


def _backend(v) -> str:
    """Where a Claude Code teammate runs (`tmux`, `in-process`, …), "" when the files do not say."""
    return member_backend(v.member) if v.member is not None else ""


def _usage_sig(usage, name: str, now: float) -> tuple | None:
    stats = usage.get(name) if usage is not None else None
    if stats is None:
        return None
    a = stats.activity
    return (
        a and (a.kind, a.ts, a.label(), short_ago(a.ts, now)),
        stats.tokens.total,
        stats.cost,
        stats.context_share,
    )


def _doing(activity) -> str:
    """What the teammate does, to the minute when idle (the column has no room for seconds)."""
    if activity.kind == "idle" and activity.ts:
        return f"idle since {time.strftime('%H:%M', time.localtime(activity.ts))}"
    return activity.label()
