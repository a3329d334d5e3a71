"""The task board: pending / in progress / completed, owner on each, blocked tasks say why."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from teamtui.protocol.board import TaskState, TaskView
from teamtui.tui.safe import safe_text

ICON = {
    TaskState.COMPLETED: ("✓", "success"),
    TaskState.IN_PROGRESS: ("●", "primary"),
    TaskState.READY: ("○", "foreground"),
    TaskState.ASSIGNED: ("○", "foreground"),
    TaskState.BLOCKED: ("◌", "warning"),
    TaskState.WITHHELD: ("◌", "warning"),
}
SUBJECT_WIDTH = 36
LABEL = {
    TaskState.COMPLETED: "completed",
    TaskState.IN_PROGRESS: "in progress",
    TaskState.READY: "ready",
    TaskState.ASSIGNED: "assigned",
}


def matches(view: TaskView, query: str) -> bool:
    if not query:
        return True
    q = query.lower()
    t = view.task
    return any(q in s.lower() for s in (t.id, "#" + t.id, t.subject, t.owner, t.description, view.state.value))


class TaskBoard(DataTable):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_column("", key="icon", width=1)
        self.add_column("#", key="id", width=3)
        self.add_column("Task", key="subject", width=SUBJECT_WIDTH)
        self.add_column("Owner", key="owner", width=8)
        self.add_column("State", key="state", width=11)

    @property
    def selected(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        except Exception:  # noqa: BLE001 - an empty table has no selection
            return None

    def show(self, views: list[TaskView], query: str = "") -> None:
        app = self.app
        keep = self.selected
        self.clear()
        shown = [v for v in views if matches(v, query)]
        for v in shown:
            t = v.task
            icon, role = ICON[v.state]
            done = v.state == TaskState.COMPLETED
            subject = safe_text(t.subject, app.role("secondary") if done else "")
            subject.truncate(SUBJECT_WIDTH, overflow="ellipsis")
            height = 1
            owner = safe_text(t.owner, app.teammate(app.member_color(t.owner), t.owner)) if t.owner else Text("—", style=app.role("secondary"))
            owner.truncate(8, overflow="ellipsis")
            if v.state in (TaskState.BLOCKED, TaskState.WITHHELD):
                # Why it waits goes under the subject, where there is room to say it in full.
                reason = Text(v.blocked_reason, style=app.role("warning"))
                reason.truncate(SUBJECT_WIDTH, overflow="ellipsis")
                subject = Text("\n").join([subject, reason])
                height = 2
                state = Text(v.state.value, style=app.role("warning"))
            else:
                state = Text(LABEL[v.state], style=app.role(role if not done else "success"))
            self.add_row(
                Text(icon, style=app.role(role)), Text(t.id, style=app.role("secondary")), subject, owner, state,
                key=t.id, height=height,
            )
        if query:
            self.border_subtitle = f"filter: {query} · {len(shown)}/{len(views)}"
        else:
            self.border_subtitle = ""
        if keep is not None:
            try:
                self.move_cursor(row=self.get_row_index(keep))
            except Exception:  # noqa: BLE001 - filtered out: the cursor stays where it falls
                pass
