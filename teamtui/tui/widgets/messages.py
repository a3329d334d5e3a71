"""The team's message traffic: sender → recipient, kind by meaning, read / unread."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import DataTable

from teamtui.protocol.models import Message
from teamtui.tui.format import clock_time, describe
from teamtui.tui.safe import safe_text

SHOWN = 200  # the table shows the newest messages; TeamState keeps its own bounded history


class MessageTraffic(DataTable):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_column("Time", key="time")
        self.add_column("From → To", key="route")
        self.add_column("Kind", key="kind")
        self.add_column("Message", key="text")
        self.add_column("State", key="state")

    def show(self, messages: Iterable[Message]) -> None:
        app = self.app
        msgs = sorted(messages, key=lambda m: m.timestamp)[-SHOWN:]
        self.clear()
        for i, m in enumerate(msgs):
            kind, text = describe(m)
            route = Text()
            route.append_text(safe_text(m.sender or "?", app.teammate(app.member_color(m.sender), m.sender)))
            route.append(" → ", style=app.role("secondary"))
            route.append_text(safe_text(m.recipient or "?", app.teammate(app.member_color(m.recipient), m.recipient)))
            kind_role = {"shutdown": "error", "broadcast": "accent", "assign": "primary", "idle": "secondary"}.get(kind, "foreground")
            state = Text("read", style=app.role("secondary")) if m.read else Text("unread", style=f"bold {app.role('accent')}")
            self.add_row(
                Text(clock_time(m.timestamp), style=app.role("secondary")),
                route,
                safe_text(kind, app.role(kind_role)),
                safe_text(text),
                state,
                key=str(i),
            )
        if msgs:
            self.move_cursor(row=len(msgs) - 1, animate=False)
