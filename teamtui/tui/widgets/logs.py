"""Per-teammate log panels (Autohand's TeammateView): timestamped, errors red, warnings yellow."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.containers import Horizontal
from textual.geometry import Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.models import LogEntry, LogLevel
from teamtui.tui.format import clock_time
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.painted import Painted
from teamtui.tui.widgets.scrolling import follow_extent

# Lines whose rendered rows are kept, per row of panel height: two screens' worth, at least a few
# (a row is a Strip with seven caches: a log that kept them all made every full collection slow).
RENDERED_LINES_PER_ROW = 2
RENDERED_LINES_LEAST = 8
# The narrowest wrap (a narrower panel scrolls sideways).
MIN_WIDTH = 20
# Heights of dropped lines are let go in chunks this big, not one per line.
COMPACT_AFTER = 512
PLACEHOLDER = "no log yet"

_LEVEL_ROLE = {LogLevel.ERROR: "error", LogLevel.WARNING: "warning", LogLevel.DEBUG: "secondary"}


def entry_text(palette: Palette, e: LogEntry) -> Text:
    # Styles as spans, never the Text's base style: appended text would inherit it, and a row is drawn from spans.
    t = Text()
    if e.ts:
        t.append(clock_time(e.ts) + " ", style=palette.theme_color("secondary"))
    role = _LEVEL_ROLE.get(e.level)
    t.append_text(safe_text(e.text, palette.theme_color(role) if role else ""))
    return t


class TeammateLog(ScrollView, Painted, can_focus=True):
    """One teammate's log, drawn from TeamState's bounded buffer (the newest `limit` lines).

    Only the rows on screen are rendered, and only a few screens of them are kept: a log that
    keeps a rendered row per line (RichLog) holds thousands of Strips, each with seven caches,
    and every full garbage collection rescans them all. For each line only its height (wrapped
    rows at this width) is kept. Follows the end while scrolled to it; scrolled up, the rows
    read stay put as old lines drop off.

    Its size comes from the layout (`1fr`), never from its lines: Textual would relayout the
    whole screen on each change of its extent (and redraw every scrollbar on screen), most of
    the cost of a log growing by a line per event. Only its own scrollbars follow.
    """

    virtual_size = Reactive(Size(0, 0), layout=False)

    DEFAULT_CSS = """
    TeammateLog {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        overflow-x: hidden;
    }
    """

    def __init__(self, *, limit: int, palette: Palette | None = None, **kw):
        super().__init__(**kw)
        self.limit = limit
        if palette is not None:
            self.set_reactive(TeammateLog.palette, palette)
        self._buffer: LogBuffer | None = None
        self._measured_at = 0  # the wrap width the heights were measured at (0: not measured)
        self._seq0 = 0  # the buffer's number of the line whose top is _tops[0]
        self._tops: list[int] = [0]  # row where each measured line starts; the last: where the next would
        self._first = 0  # index in _tops of the oldest line shown
        self._rows: LRUCache[int, list[Strip]] = LRUCache(RENDERED_LINES_LEAST)  # line number -> its rendered rows
        self._pinned = True  # following the end (until the reader scrolls up)

    # ------------------------------------------------------------ what is shown
    def show(self, buffer: LogBuffer | None, title: Text) -> None:
        """Show a teammate's buffer from its end."""
        self.border_title = title
        self._buffer = buffer
        self._pinned = True
        self._measure_all()
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def clear(self) -> None:
        self.show(None, Text("Log"))

    def sync(self, buffer: LogBuffer | None) -> None:
        """Take the lines added to `buffer` since the last call (or show it, if it is a new one)."""
        if buffer is not self._buffer:  # the teammate's first lines: its buffer did not exist before
            self._buffer = buffer
            self._measure_all()
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            return
        if buffer is None or not self._measured_at:
            return
        end = buffer.total
        start = max(buffer.first, end - self.limit)
        measured = self._seq0 + len(self._tops) - 1
        if measured == end:
            return
        if measured < start:  # more new lines than are kept: nothing measured is shown any more
            self._measure_all()
            return
        at_end = self._pinned or self.is_vertical_scroll_end
        tops, width = self._tops, self._measured_at
        for entry in buffer.since(measured):
            tops.append(tops[-1] + len(self._wrap(entry, width)))
        old_top = tops[self._first]
        self._first = start - self._seq0
        dropped = tops[self._first] - old_top
        if self._first > COMPACT_AFTER:
            del tops[: self._first]
            self._seq0 += self._first
            self._first = 0
        self._resize_content()
        if at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        elif dropped:
            self.scroll_to(y=max(0, self.scroll_y - dropped), animate=False, immediate=True)
        self.refresh()

    @property
    def line_count(self) -> int:
        """Rows of content (a wrapped line counts once per row)."""
        return self._tops[-1] - self._tops[self._first] if self._has_lines() else 1

    def text_lines(self) -> list[str]:
        """Every row of the shown lines as plain text, as wrapped on screen."""
        if not self._has_lines():
            return [PLACEHOLDER]
        return [row.plain for entry in self._shown() for row in self._wrap(entry, self._measured_at)]

    # ------------------------------------------------------------ measuring
    def _wrap_width(self) -> int:
        width = self.scrollable_content_region.width
        return max(width, MIN_WIDTH) if width > 0 else 0

    def _has_lines(self) -> bool:
        return len(self._tops) - 1 > self._first  # a measured line is shown

    def _shown(self) -> list[LogEntry]:
        buffer = self._buffer
        if buffer is None:
            return []
        return buffer.since(max(buffer.first, buffer.total - self.limit))

    def _measure_all(self) -> None:
        """Measure every shown line at the current width (a new buffer, a resize, a new theme)."""
        self._rows.clear()
        self._measured_at = width = self._wrap_width()
        buffer = self._buffer
        self._seq0 = max(buffer.first, buffer.total - self.limit) if buffer is not None else 0
        self._tops, self._first = [0], 0
        if width:
            tops = self._tops
            for entry in self._shown():
                tops.append(tops[-1] + len(self._wrap(entry, width)))
        self._resize_content()
        self.refresh()

    def _resize_content(self) -> None:
        self.virtual_size = Size(self._measured_at, self.line_count)

    @property
    def _text_console(self) -> Console:
        return self.app.console  # the app's: Rich measures and renders the wrapped lines with it

    def _wrap(self, entry: LogEntry, width: int) -> list[Text]:
        text = entry_text(self.palette, entry)
        plain = text.plain
        if len(plain) <= width and plain.isascii():  # the usual line: fits, one cell per character
            return [text]
        return list(text.wrap(self._text_console, width))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        # Following the end until the reader scrolls up: an end reached while the extent was still
        # being measured (a scroll_end a row or two short) must not stop the following.
        if new >= self.max_scroll_y:
            self._pinned = True
        elif new < old:
            self._pinned = False

    # ------------------------------------------------------------ drawing
    def watch_virtual_size(self, old: Size, size: Size) -> None:
        follow_extent(self, old, size)

    def watch_palette(self) -> None:
        self._rows.clear()  # rows carry the palette's colors
        self.refresh()

    def on_resize(self) -> None:
        keep = max(RENDERED_LINES_LEAST, RENDERED_LINES_PER_ROW * self.size.height)
        if keep != self._rows.maxsize:
            self._rows = LRUCache(keep)
        if self._wrap_width() != self._measured_at:
            at_end = self._pinned or self.is_vertical_scroll_end
            top = self._line_at(self.scroll_y)
            self._measure_all()
            if at_end or top is None:
                self.scroll_end(animate=False, immediate=True, x_axis=False)
            else:  # keep the line the reader was at on top
                self.scroll_to(y=self._tops[top - self._seq0] - self._tops[self._first], animate=False, immediate=True)
        elif self._pinned:  # shorter or taller (a strip above came or went): the newest line stays in view
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rows.clear()  # rows carry the widget's colors

    def _line_at(self, row: float) -> int | None:
        """The buffer's number of the line drawn at content `row`."""
        if not self._has_lines():
            return None
        tops = self._tops
        at = tops[self._first] + row
        if at >= tops[-1]:
            return None
        return self._seq0 + bisect_right(tops, at, self._first, len(tops) - 1) - 1

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        style = self.rich_style
        row = scroll_y + y
        seq = self._line_at(row)
        if seq is None:
            if row == 0 and not self._has_lines():
                return Strip(
                    [Segment(PLACEHOLDER, style + Style.parse(self.palette.theme_color("secondary")))]
                ).crop_extend(0, width, style)
            return Strip.blank(width, style)
        rows = self._rows.get(seq)
        if rows is None:
            rows = self._render_rows(seq)
        k = self._tops[self._first] + row - self._tops[seq - self._seq0]
        if k >= len(rows):  # measured and rendered wraps disagree (never seen): a blank row, not a crash
            return Strip.blank(width, style)
        strip = rows[k]
        if scroll_x or strip.cell_length != width:
            strip = strip.crop_extend(scroll_x, scroll_x + width, style)
        return strip

    def _render_rows(self, seq: int) -> list[Strip]:
        """Line `seq` drawn as its wrapped rows (cached). Not `_render`: that is Widget's own."""
        assert self._buffer is not None
        console, style, width = self._text_console, self.rich_style, self._measured_at
        rows = [
            Strip(row.render(console), row.cell_len).adjust_cell_length(width).apply_style(style)
            for row in self._wrap(self._buffer.entry(seq), width)
        ]
        self._rows[seq] = rows
        return rows


# A small panel's least width: the narrowest wrap (MIN_WIDTH), its border and scrollbar.
SMALL_PANEL_WIDTH = 23
# A small panel is a glimpse: it keeps (and is filled with) this many lines, the big one the whole buffer.
SMALL_PANEL_LINES = 50
# ... and takes new lines at most this often: each take redraws a panel and its scrollbar.
SMALL_PANEL_REFRESH = 0.25


class LogStrip(Horizontal, Painted):
    """Small log panels for the teammates other than the selected one (shown large): only as
    many as fit side by side, nearest the selected one in team order; a panel exists only
    while shown, and is filled from the bounded buffer when it appears."""

    def __init__(self, *, limit: int, **kw):
        super().__init__(**kw)
        self.limit = limit
        self.panels: dict[str, TeammateLog] = {}
        self._members: list[tuple[str, Text]] = []
        self._logs: Mapping[str, LogBuffer] = {}
        self._selected: str | None = None
        self._pending: set[str] = set()  # shown panels with new lines, taken on the next flush
        self._flush_timer: Timer | None = None

    def capacity(self) -> int:
        return max(1, self.size.width // SMALL_PANEL_WIDTH)

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

    def sync(self, members: list[tuple[str, Text]], logs: Mapping[str, LogBuffer], selected: str | None) -> None:
        self._members, self._logs, self._selected = members, logs, selected
        self._place()

    def on_resize(self) -> None:
        self._place()

    def _place(self) -> None:
        if not self.size.width:
            return  # not laid out yet: on_resize places the panels that fit
        want = self.shown()
        titles = dict(self._members)
        for name in [n for n in self.panels if n not in want]:
            self.panels.pop(name).remove()
            self._pending.discard(name)
        for i, name in enumerate(want):
            panel = self.panels.get(name)
            if panel is None:
                panel = TeammateLog(limit=min(self.limit, SMALL_PANEL_LINES), palette=self.palette, classes="small-log")
                self.panels[name] = panel
                # In team order: after the nearest panel to its left, else first.
                if i:
                    self.mount(panel, after=self.panels[want[i - 1]])
                elif self.children:
                    self.mount(panel, before=0)
                else:
                    self.mount(panel)
                panel.show(self._logs.get(name), titles[name])
                self._pending.discard(name)  # it was filled from the buffer that has them already
            else:
                panel.border_title = titles[name]

    def watch_palette(self, palette: Palette) -> None:
        for panel in self.panels.values():
            panel.palette = palette

    def append(self, member: str) -> None:
        """`member`'s buffer has new lines."""
        if member not in self.panels:
            return  # a teammate without a panel on screen costs nothing
        self._pending.add(member)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(SMALL_PANEL_REFRESH, self.flush)

    def flush(self) -> None:
        """Show the lines added since the last flush."""
        self._flush_timer = None
        pending, self._pending = self._pending, set()
        for member in pending:
            panel = self.panels.get(member)
            if panel is not None:
                panel.sync(self._logs.get(member))
