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
from teamtui.tui.widgets.table import KeepsCellsOnFocus
from teamtui.tui.widgets.tasks import CursorRow, same_text

COLUMNS = ("icon", "name", "status", "task", "active", "unread")
_STATUS_ROLE = {MemberStatus.WORKING: "warning", MemberStatus.IDLE: "success", MemberStatus.SHUTDOWN: "error"}



class TeamPanel(CursorRow, KeepsCellsOnFocus, DataTable):
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

    def on_mount(self) -> None:
        self._names: list[str] | None = None  # the rows shown, in order
        self._sigs: dict[str, tuple] = {}
        self.cursor_type = "row"
        self.zebra_stripes = False
        self.add_column("", key="icon", width=1)
        self.add_column("Teammate", key="name", width=16)
        self.add_column("Status", key="status", width=13)
        self.add_column("Current task", key="task", width=16)
        self.add_column("Active", key="active", width=7)
        self.add_column("✉", key="unread", width=3)

    def _row(self, v, now: float) -> tuple[Text, ...]:
        app = self.app
        color = app.teammate(v.color, v.name)
        icon = STATUS_ICON.get(v.status, "?")
        name = Text()
        name.append_text(safe_text(v.name, f"bold {color}"))
        if v.agent_type:
            name.append(" (")
            name.append_text(safe_text(v.agent_type, app.role("secondary")))
            name.append(")")
        name.truncate(16, overflow="ellipsis")
        if v.disappeared:
            status = Text("⚠ disappeared", style=f"bold {app.role('error')}")
        else:
            status = Text(v.status.value, style=app.role(_STATUS_ROLE.get(v.status, "secondary")))
        if v.current_task is not None:
            task = Text(f"#{v.current_task.id} ", style=app.role("secondary"))
            task.append_text(safe_text(v.current_task.subject))
            task.truncate(16, overflow="ellipsis")
        else:
            task = Text("—", style=app.role("secondary"))
        unread = Text(str(v.unread), style=f"bold {app.role('accent')}", justify="right") if v.unread else Text("")
        active = Text(ago(v.last_activity, now), style=app.role("secondary"))
        return (Text(icon, style=color), name, status, task, active, unread)

    def show(self, views, now: float) -> None:
        """Rebuild when the members (or their order) changed, else redraw only changed cells."""
        names = [v.name for v in views]
        theme = self.app.theme
        # What a row shows, cheap to compare: rows whose signature is unchanged are not rebuilt.
        sigs = {
            v.name: (theme, v.status, v.disappeared, v.agent_type, v.color, v.unread, ago(v.last_activity, now),
                     v.current_task and (v.current_task.id, v.current_task.subject))
            for v in views
        }
        if names == self._names:
            for v in views:
                if sigs[v.name] != self._sigs.get(v.name):
                    for column, cell in zip(COLUMNS, self._row(v, now)):
                        if not same_text(self.get_cell(v.name, column), cell):
                            self.update_cell(v.name, column, cell)
            self._sigs = sigs
            return
        keep = self.selected
        self.clear()
        self._names, self._sigs = names, sigs
        for v in views:
            self.add_row(*self._row(v, now), key=v.name)
        if keep is not None:
            try:
                self.move_cursor(row=self.get_row_index(keep))
            except Exception:  # noqa: BLE001 - the member left: the cursor stays where it falls
                pass
