"""Per-teammate log panels (Autohand's TeammateView): timestamped, errors red, warnings yellow."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import RichLog

from teamtui.protocol.models import LogEntry, LogLevel
from teamtui.tui.format import clock_time
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.scroll import SizedByLayout

_LEVEL_ROLE = {LogLevel.ERROR: "error", LogLevel.WARNING: "warning", LogLevel.DEBUG: "secondary"}


def entry_text(app, e: LogEntry) -> Text:
    t = Text(clock_time(e.ts) + " ", style=app.role("secondary")) if e.ts else Text()
    role = _LEVEL_ROLE.get(e.level)
    t.append_text(safe_text(e.text, app.role(role) if role else ""))
    return t


class TeammateLog(SizedByLayout, RichLog):
    """One teammate's log; `max_lines` bounds what it keeps."""

    def __init__(self, member: str = "", *, limit: int, **kw):
        super().__init__(max_lines=limit, wrap=True, min_width=20, markup=False, highlight=False, auto_scroll=True, **kw)
        self.member = member
        self.limit = limit

    def show(self, member: str, entries: Iterable[LogEntry], title: Text) -> None:
        self.member = member
        self.clear()
        self.border_title = title
        # Older entries would be trimmed by max_lines at once: render only what can be kept.
        self.append(list(entries)[-self.limit :])

    def append(self, entries: Iterable[LogEntry]) -> None:
        texts = [entry_text(self.app, e) for e in entries]
        if texts:
            # One write for the batch: a write per line measures, wraps and scrolls a thousand times on a first fill.
            self.write(Text("\n").join(texts))
        elif not self.lines:
            self.write(Text("no log yet", style=self.app.role("secondary")))


# A small panel's least width: RichLog's min_width (20), its border and scrollbar (narrower scrolls sideways).
SMALL_PANEL_WIDTH = 23
# A small panel is a glimpse: it keeps (and is filled with) this many lines, the big one the whole buffer.
SMALL_PANEL_LINES = 50
# ... and takes new lines at most this often: every write redraws a panel and its scrollbar.
SMALL_PANEL_REFRESH = 0.25


class LogStrip(Horizontal):
    """Small log panels for the teammates other than the selected one (shown large): only as
    many as fit side by side, nearest the selected one in team order; a panel exists only
    while shown, and is filled from the bounded buffer when it appears."""

    def __init__(self, *, limit: int, **kw):
        super().__init__(**kw)
        self.limit = limit
        self.panels: dict[str, TeammateLog] = {}
        self._members: list[tuple[str, Text]] = []
        self._logs: dict[str, Iterable[LogEntry]] = {}
        self._selected: str | None = None
        self._pending: dict[str, list[LogEntry]] = {}  # lines for shown panels, written on the next flush
        self._flush_timer = None

    def capacity(self) -> int:
        width = self.size.width or self.app.size.width // 2  # before the first layout: a guess, corrected on resize
        return max(1, width // SMALL_PANEL_WIDTH)

    def shown(self) -> list[str]:
        """The teammates whose panels fit, in team order, around the selected one."""
        names = [n for n, _ in self._members]
        others = [n for n in names if n != self._selected]
        fit = self.capacity()
        if len(others) <= fit:
            return others
        at = names.index(self._selected) if self._selected in names else 0
        start = min(max(0, at - fit // 2), len(others) - fit)
        return others[start : start + fit]

    def sync(self, members: list[tuple[str, Text]], logs: dict[str, Iterable[LogEntry]], selected: str | None) -> None:
        self._members, self._logs, self._selected = members, logs, selected
        self._place()

    def on_resize(self) -> None:
        self._place()

    def _place(self) -> None:
        want = self.shown()
        titles = dict(self._members)
        for name in [n for n in self.panels if n not in want]:
            self.panels.pop(name).remove()
            self._pending.pop(name, None)
        for i, name in enumerate(want):
            panel = self.panels.get(name)
            if panel is None:
                panel = TeammateLog(name, limit=min(self.limit, SMALL_PANEL_LINES), classes="small-log")
                self.panels[name] = panel
                # In team order: after the nearest panel to its left, else first.
                if i:
                    self.mount(panel, after=self.panels[want[i - 1]])
                elif self.children:
                    self.mount(panel, before=0)
                else:
                    self.mount(panel)
                panel.show(name, self._logs.get(name, ()), titles[name])
                self._pending.pop(name, None)  # the buffer it was filled from has them already
            else:
                panel.border_title = titles[name]

    def append(self, member: str, entries: list[LogEntry]) -> None:
        if member not in self.panels:
            return  # a teammate without a panel on screen costs nothing
        self._pending.setdefault(member, []).extend(entries)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(SMALL_PANEL_REFRESH, self.flush)

    def flush(self) -> None:
        """Write the lines gathered since the last flush to their panels."""
        self._flush_timer = None
        pending, self._pending = self._pending, {}
        for member, entries in pending.items():
            panel = self.panels.get(member)
            if panel is not None:
                if panel.lines and panel.lines[0].text == "no log yet" and len(panel.lines) == 1:
                    panel.clear()
                panel.append(entries[-SMALL_PANEL_LINES:])
