"""The task board: pending / in progress / completed, owner on each, blocked and failed tasks say why."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable

from teamtui.protocol.board import TaskState, TaskView
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.table import TeamTable, cut, wants

ICON = {
    TaskState.COMPLETED: ("✓", "success"),
    TaskState.IN_PROGRESS: ("●", "primary"),
    TaskState.READY: ("○", "foreground"),
    TaskState.ASSIGNED: ("○", "foreground"),
    TaskState.BLOCKED: ("◌", "warning"),
    TaskState.WITHHELD: ("◌", "warning"),
    TaskState.FAILED: ("✗", "error"),
}
COLUMNS = ("icon", "id", "subject", "owner", "state")
# The columns share the board's width by what they hold; the subject (and why a task waits) gives way
# first, then the owner; the state is never cut.
GIVE_WAY = ("subject", "owner")
KEEP = ("icon", "id", "state")
# A rebuild adds this many rows at once (more than a screen), then the rest in chunks after each
# frame: a board of 10,000 tasks shows its first screen without waiting for rows nobody sees yet.
FIRST_ROWS = 100
ROWS_PER_FRAME = 250
LABEL = {
    TaskState.COMPLETED: "completed",
    TaskState.IN_PROGRESS: "in progress",
    TaskState.READY: "ready",
    TaskState.ASSIGNED: "assigned",
    TaskState.FAILED: "failed",
}


def same_text(a: object, b: Text) -> bool:
    # Text's == ignores its base style; a cell whose color changed must be redrawn too.
    return isinstance(a, Text) and a == b and a.style == b.style


def matches(view: TaskView, query: str) -> bool:
    if not query:
        return True
    q = query.lower()
    t = view.task
    return any(q in s.lower() for s in (t.id, "#" + t.id, t.subject, t.owner, t.description, view.state.value))


class TaskBoard(TeamTable):
    @dataclass
    class TaskChosen(Message):
        """Enter on a task's row: show it in full."""

        task_id: str

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.TaskChosen(str(event.row_key.value)))

    def __init__(self, **kw):
        super().__init__(sized_by_layout=True, **kw)
        # Height of each row shown (by task id) and the board size at the last rebuild.
        self._heights: dict[str, int] | None = None
        self._total = 0
        # Rows of the last rebuild not added yet (in order), where each task is among them, how many were added.
        self._later: list[TaskView] = []
        self._later_at: dict[str, int] = {}
        self._added_later = 0
        self._generation = 0

    def on_mount(self) -> None:
        self.add_column("", key="icon", width=1)
        self.add_column("#", key="id", width=3)
        self.add_column("Task", key="subject", width=36)
        self.add_column("Owner", key="owner", width=8)
        self.add_column("State", key="state", width=11)

    def _row(self, v: TaskView) -> tuple[tuple[Text, ...], int]:
        """The cells of one task's row and its height."""
        palette = self.palette
        t = v.task
        icon, role = ICON[v.state]
        done = v.state == TaskState.COMPLETED
        subject = safe_text(t.subject, palette.theme_color("secondary") if done else "")
        height = 1
        owner = (
            safe_text(t.owner, palette.member_color(t.owner))
            if t.owner
            else Text("—", style=palette.theme_color("secondary"))
        )
        cut(owner)
        if v.state in (TaskState.BLOCKED, TaskState.WITHHELD, TaskState.FAILED):
            # Why it waits (or failed) goes under the subject, where there is room to say it in full.
            why_role = "error" if v.state == TaskState.FAILED else "warning"
            reason = safe_text(v.blocked_reason, palette.theme_color(why_role))
            subject = Text("\n").join([subject, reason])
            height = 2
            state = Text(v.state.value, style=palette.theme_color(why_role))
        else:
            state = Text(LABEL[v.state], style=palette.theme_color(role if not done else "success"))
        cut(subject)  # each line cut where the column ends
        return (
            Text(icon, style=palette.theme_color(role)),
            safe_text(t.id, palette.theme_color("secondary")),
            subject,
            owner,
            state,
        ), height

    def show(self, views: list[TaskView], query: str = "") -> None:
        """Rebuild every row (first screen, filter, a task added or removed)."""
        keep = self.selected
        self.clear()
        shown = [v for v in views if matches(v, query)]
        self._heights = {}
        self._wants = {}  # measured again from the rows added
        self._total = len(views)
        self._later = shown[FIRST_ROWS:]
        self._later_at = {v.task.id: i for i, v in enumerate(self._later)}
        self._added_later = 0
        self._generation += 1
        self._add(shown[:FIRST_ROWS])
        if self._later:
            self.call_after_refresh(self._add_later, self._generation)
        if query:
            self.border_subtitle = f"filter: {query} · {len(shown)}/{len(views)}"
        else:
            self.border_subtitle = ""
        if keep is not None:
            try:
                self.move_cursor(row=self.get_row_index(keep))
            except Exception:  # noqa: BLE001 - filtered out (or not added yet): the cursor stays where it falls
                pass

    def _add(self, views: list[TaskView]) -> None:
        assert self._heights is not None  # rows are added only after `show` made it
        measured: dict[str, int] = {}
        for v in views:
            cells, height = self._row(v)
            self.add_row(*cells, key=v.task.id, height=height)
            self._heights[v.task.id] = height
            _measure(measured, cells)
        self.share_width(measured, GIVE_WAY, KEEP, grow=True)

    def _add_later(self, generation: int) -> None:
        if generation != self._generation:
            return  # rebuilt since: that rebuild adds its own rows
        start = self._added_later
        self._added_later = min(len(self._later), start + ROWS_PER_FRAME)
        self._add(self._later[start : self._added_later])
        if self._added_later < len(self._later):
            self.call_after_refresh(self._add_later, generation)
        else:
            self._later, self._later_at = [], {}

    def update(self, views: list[TaskView], query: str, total: int) -> bool:
        """Redraw only the cells that changed in these tasks' rows. False (nothing done) when
        the rows themselves would change: a task added, removed, (un)filtered or resized."""
        heights = self._heights
        if heights is None or total != self._total:
            return False
        rows, waiting = [], []
        for v in views:
            shown = matches(v, query)
            later = self._later_at.get(v.task.id, -1)
            if later >= self._added_later:  # not added yet: it will be added as it is now
                if not shown:
                    return False
                waiting.append((later, v))
                continue
            if shown != (v.task.id in heights):
                return False
            if shown:
                cells, height = self._row(v)
                if height != heights[v.task.id]:
                    return False  # DataTable cannot change a row's height in place
                rows.append((v.task.id, cells))
        for later, v in waiting:
            self._later[later] = v
        measured: dict[str, int] = {}
        for key, cells in rows:
            _measure(measured, cells)
            for column, cell in zip(COLUMNS, cells, strict=True):
                if not same_text(self.get_cell(key, column), cell):
                    self.update_cell(key, column, cell)
        self.share_width(measured, GIVE_WAY, KEEP, grow=True)
        return True


def _measure(measured: dict[str, int], cells: tuple[Text, ...]) -> None:
    for column, cell in zip(COLUMNS, cells, strict=True):
        measured[column] = max(measured.get(column, 0), wants(cell))
