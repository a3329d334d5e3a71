"""Per-teammate log panels (Autohand's TeammateView): timestamped, errors red, warnings yellow."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import RichLog

from teamtui.protocol.models import LogEntry, LogLevel
from teamtui.tui.format import clock_time
from teamtui.tui.safe import safe_text

_LEVEL_ROLE = {LogLevel.ERROR: "error", LogLevel.WARNING: "warning", LogLevel.DEBUG: "secondary"}


def entry_text(app, e: LogEntry) -> Text:
    t = Text(clock_time(e.ts) + " ", style=app.role("secondary")) if e.ts else Text()
    role = _LEVEL_ROLE.get(e.level)
    t.append_text(safe_text(e.text, app.role(role) if role else ""))
    return t


class TeammateLog(RichLog):
    """One teammate's log; `max_lines` bounds what it keeps."""

    def __init__(self, member: str = "", *, limit: int, **kw):
        super().__init__(max_lines=limit, wrap=True, min_width=20, markup=False, highlight=False, auto_scroll=True, **kw)
        self.member = member

    def show(self, member: str, entries: Iterable[LogEntry], title: Text) -> None:
        self.member = member
        self.clear()
        self.border_title = title
        self.append(entries)

    def append(self, entries: Iterable[LogEntry]) -> None:
        wrote = False
        for e in entries:
            self.write(entry_text(self.app, e))
            wrote = True
        if not wrote and not self.lines:
            self.write(Text("no log yet", style=self.app.role("secondary")))


class LogStrip(Horizontal):
    """Small log panels, one per teammate; the selected one is hidden (it is shown large)."""

    def __init__(self, *, limit: int, **kw):
        super().__init__(**kw)
        self.limit = limit
        self.panels: dict[str, TeammateLog] = {}

    def sync(self, members: list[tuple[str, Text]], logs: dict[str, Iterable[LogEntry]], selected: str | None) -> None:
        names = [n for n, _ in members]
        for name in list(self.panels):
            if name not in names:
                self.panels.pop(name).remove()
        for name, title in members:
            panel = self.panels.get(name)
            if panel is None:
                # A small panel keeps at most what fits; the big one keeps the full bounded buffer.
                panel = TeammateLog(name, limit=min(self.limit, 200), classes="small-log")
                self.panels[name] = panel
                self.mount(panel)
                panel.show(name, logs.get(name, ()), title)
            else:
                panel.border_title = title
            panel.display = name != selected

    def append(self, member: str, entries: list[LogEntry]) -> None:
        panel = self.panels.get(member)
        if panel is not None:
            if panel.lines and panel.lines[0].text == "no log yet" and len(panel.lines) == 1:
                panel.clear()
            panel.append(entries)
