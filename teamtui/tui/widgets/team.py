"""The team panel: one row per member, like Autohand's `/team status`."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable

from teamtui.protocol.models import MemberStatus
from teamtui.tui.format import STATUS_ICON, ago
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.table import TeamTable
from teamtui.tui.widgets.tasks import same_text

COLUMNS = ("icon", "name", "status", "task", "active", "unread")
_STATUS_ROLE = {MemberStatus.WORKING: "warning", MemberStatus.IDLE: "success", MemberStatus.SHUTDOWN: "error"}



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

    def on_mount(self) -> None:
        self.add_column("", key="icon", width=1)
        self.add_column("Teammate", key="name", width=16)
        self.add_column("Status", key="status", width=13)
        self.add_column("Current task", key="task", width=16)
        self.add_column("Active", key="active", width=7)
        self.add_column("✉", key="unread", width=3)

    def _row(self, v, now: float) -> tuple[Text, ...]:
        palette = self.palette
        color = palette.teammate_color(v.color, v.name)
        icon = STATUS_ICON.get(v.status, "?")
        name = Text()
        name.append_text(safe_text(v.name, f"bold {color}"))
        if v.agent_type:
            name.append(" (")
            name.append_text(safe_text(v.agent_type, palette.theme_color("secondary")))
            name.append(")")
        name.truncate(16, overflow="ellipsis")
        if v.disappeared:
            status = Text("⚠ disappeared", style=f"bold {palette.theme_color('error')}")
        else:
            status = Text(v.status.value, style=palette.theme_color(_STATUS_ROLE.get(v.status, "secondary")))
        if v.current_task is not None:
            task = Text(f"#{v.current_task.id} ", style=palette.theme_color("secondary"))
            task.append_text(safe_text(v.current_task.subject))
            task.truncate(16, overflow="ellipsis")
        else:
            task = Text("—", style=palette.theme_color("secondary"))
        unread = Text(str(v.unread), style=f"bold {palette.theme_color('accent')}", justify="right") if v.unread else Text("")
        active = Text(ago(v.last_activity, now), style=palette.theme_color("secondary"))
        return (Text(icon, style=color), name, status, task, active, unread)

    def show(self, views, now: float) -> None:
        """Rebuild when the members (or their order) changed, else redraw only changed cells."""
        names = [v.name for v in views]
        theme = self.palette.theme
        # What a row shows, cheap to compare: rows whose signature is unchanged are not rebuilt.
        sigs = {
            v.name: (theme, v.status, v.disappeared, v.agent_type, v.color, v.unread, ago(v.last_activity, now),
                     v.current_task and (v.current_task.id, v.current_task.subject))
            for v in views
        }
        if names == self._names:
            for v in views:
                if sigs[v.name] != self._shown_rows.get(v.name):
                    for column, cell in zip(COLUMNS, self._row(v, now)):
                        if not same_text(self.get_cell(v.name, column), cell):
                            self.update_cell(v.name, column, cell)
            self._shown_rows = sigs
            return
        keep = self.selected
        self.clear()
        self._names, self._shown_rows = names, sigs
        for v in views:
            self.add_row(*self._row(v, now), key=v.name)
        if keep is not None:
            try:
                self.move_cursor(row=self.get_row_index(keep))
            except Exception:  # noqa: BLE001 - the member left: the cursor stays where it falls
                pass
