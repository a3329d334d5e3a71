"""The team's message traffic: sender → recipient, kind by meaning, read / unread / delivered."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import events
from textual.geometry import Size

from teamtui.protocol.models import Message
from teamtui.tui.format import clock_time, describe
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.table import TeamTable, WholeWords, cut, wants

SHOWN = 200  # the table shows the newest messages; TeamState keeps its own bounded history
COLUMNS = ("time", "route", "kind", "state", "text")
# The columns share the table's width by what they hold; the message gives way first, at a word's
# end (within a long word, not to waste the room), then who wrote to whom; the time and the read
# receipt are never cut.
GIVE_WAY = ("text", "route")
KEEP = ("time", "state")


class MessageTraffic(TeamTable):
    def __init__(self, **kw):
        super().__init__(sized_by_layout=True, **kw)
        # The messages shown, oldest first, each row keyed by its object's id; the theme they were drawn in.
        self._shown: list[Message] = []
        self._read: dict[str, tuple[bool | None, bool]] = {}
        self._drawn_in: Palette | None = None  # the palette the rows were drawn in
        self._pinned = True  # showing the newest: kept there when the panel is laid out anew (until scrolled up)

    def on_mount(self) -> None:
        self.add_column("Time", key="time")
        self.add_column("From → To", key="route")
        self.add_column("Kind", key="kind")
        # The state before the text: a long message must not push the read receipt out of sight.
        self.add_column("State", key="state")
        self.add_column("Message", key="text")

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)  # the columns share the new width
        # A screen pushed with its messages is laid out after they were added; a terminal resized moves rows.
        if self._pinned:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_mouse_scroll_up(self) -> None:
        self._pinned = False  # the reader went back: new messages and layouts leave them where they are

    def _state(self, m: Message) -> Text:
        palette = self.palette
        if m.delivered:  # Claude Code took it out of the inbox: today's read receipt
            return Text("delivered", style=palette.theme_color("success"))
        return (
            Text("read", style=palette.theme_color("secondary"))
            if m.read
            else Text("unread", style=f"bold {palette.theme_color('accent')}")
        )

    def _add(self, m: Message) -> tuple[Text | WholeWords, ...]:
        palette = self.palette
        kind, text = describe(m)
        route = Text()
        route.append_text(safe_text(m.sender or "?", palette.member_color(m.sender)))
        route.append(" → ", style=palette.theme_color("secondary"))
        route.append_text(safe_text(m.recipient or "?", palette.member_color(m.recipient)))
        kind_role = {
            "shutdown": "error",
            "terminated": "error",
            "broadcast": "accent",
            "assign": "primary",
            "idle": "secondary",
        }.get(kind, "foreground")
        key = str(id(m))
        cells = (
            Text(clock_time(m.timestamp), style=palette.theme_color("secondary")),
            cut(route),
            cut(safe_text(kind, palette.theme_color(kind_role))),
            self._state(m),
            WholeWords(safe_text(text)),
        )
        self.add_row(*cells, key=key)
        self._read[key] = (m.read, m.delivered)
        return cells

    def _kept(self, msgs: list[Message]) -> int | None:
        """How many of the oldest rows to drop so that the rest start `msgs` (None: rebuild)."""
        old = self._shown
        if not old or self._drawn_in != self.palette:  # a new theme or member colours: every row again
            return None
        at = {id(m): i for i, m in enumerate(old)}
        drop = at.get(id(msgs[0]), len(old)) if msgs else len(old)
        kept = old[drop:]
        if len(kept) > len(msgs) or any(
            a is not b for a, b in zip(kept, msgs, strict=False)
        ):  # kept: no longer than msgs
            return None
        return drop

    def show(self, messages: Iterable[Message]) -> None:
        msgs = sorted(messages, key=lambda m: m.timestamp)[-SHOWN:]
        drop = self._kept(msgs)
        measured: dict[str, int] = {}
        if drop is None:
            self.clear()
            self._read.clear()
            self._wants = {}  # measured again from the rows added
            added = msgs
        else:
            # The usual change: new messages at the end, the oldest falling off, some marked read.
            for m in self._shown[:drop]:
                self.remove_row(str(id(m)))
                del self._read[str(id(m))]
            for m in self._shown[drop:]:
                key = str(id(m))
                if self._read[key] != (m.read, m.delivered):
                    state = self._state(m)  # "delivered" is longer than the "unread" the column was sized for
                    self.update_cell(key, "state", state)
                    measured["state"] = max(measured.get("state", 0), wants(state))
                    self._read[key] = (m.read, m.delivered)
            added = msgs[len(self._shown) - drop :]
        for m in added:
            for column, cell in zip(COLUMNS, self._add(m), strict=True):
                measured[column] = max(measured.get(column, 0), wants(cell.plain))
        self.share_width(measured, GIVE_WAY, KEEP, grow=True)
        if added:
            # Rows are one line each: set the new extent and scroll now, so the newest message is on
            # the next frame (DataTable measures on idle, and its own scroll lands a frame later).
            self.virtual_size = Size(self.virtual_size.width, self.header_height + len(msgs))
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            self._pinned = True
        self._shown, self._drawn_in = msgs, self.palette
        if msgs:
            self.move_cursor(row=len(msgs) - 1, animate=False)
