"""TeamTable: the one DataTable base of the dashboard's tables."""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Self

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.coordinate import Coordinate
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.renderables.styled import Styled
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from teamtui.tui.widgets.painted import Painted
from teamtui.tui.widgets.scrolling import follow_extent

# The least a column that gives way keeps (a few words of a subject or a message); the long text
# (the first to give way) keeps at least a third of the table besides.
LEAST_TEXT = 12
# The drawn lines a row keeps (its lines with and without the cursor, focused or not, at a width or two).
DRAWN_PER_ROW = 32


def cut(text: Text) -> Text:
    """`text` to be cut with an ellipsis where its column ends (each line, when it has two)."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def wants(cell: object) -> int:
    """The width a cell's text takes, its longest line."""
    plain = cell if isinstance(cell, str) else str(getattr(cell, "plain", cell))
    return max((cell_len(line) for line in plain.split("\n")), default=0)


class WholeWords:
    """A cell of text cut where a word ends when its column is too narrow ("… clean · artifacts…",
    never "… artifacts com"); a word so long that cutting before it would leave a third of the
    column empty is cut within it ("TOUCHING_FILE src/lib/au…", never "TOUCHING_FILE…")."""

    def __init__(self, text: Text):
        self.text = text

    @property
    def plain(self) -> str:
        return self.text.plain

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WholeWords) and other.text == self.text and other.text.style == self.text.style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, self.text.cell_len)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield whole_words(self.text, options.max_width)


class EndMark:
    """A name cut to its column with a mark at the column's right end, where the other rows' marks
    stand (the team panel's backend marks, one column of them whatever the names' lengths)."""

    def __init__(self, name: Text, mark: Text):
        self.name, self.mark = name, mark

    @property
    def plain(self) -> str:
        return f"{self.name.plain} {self.mark.plain}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EndMark) and (other.name, other.mark, other.name.style) == (
            self.name,
            self.mark,
            self.name.style,
        )

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = self.name.cell_len + 1 + self.mark.cell_len
        return Measurement(width, width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = options.max_width - self.mark.cell_len
        name = cut(self.name.copy())
        name.truncate(max(room - 1, 1), overflow="ellipsis")
        name.pad_right(max(room - name.cell_len, 0))
        yield name + self.mark


def whole_words(text: Text, width: int) -> Text:
    """`text` in at most `width` cells, cut after the last whole word that fits, with an ellipsis;
    cut at the width instead when that word end would waste more than a third of it."""
    if text.cell_len <= width or width < 2:
        return cut(text.copy())
    plain = text.plain
    end = 0
    for i, ch in enumerate(plain):
        if cell_len(plain[: i + 1]) > width - 1:
            break
        if ch == " " and i > 0:
            end = i
    # No word end, or one far back (a long path follows it): cut within the word, at the width.
    if end == 0 or cell_len(plain[:end]) * 3 < (width - 1) * 2:
        return cut(text.copy())
    shown = text[:end].copy()
    shown.rstrip()
    shown.append("…")
    return shown


class TeamTable(DataTable, Painted):
    """Rows keyed by what they show (`selected` is the cursor row's key), drawn in `palette`.

    DataTable keeps the rows, the cursor, the keys and the messages; the drawing is ours, on
    Textual's Line API (`render_line`), with our own cache of drawn lines. Two costs of
    DataTable's own drawing are avoided that way. It empties all of its render caches on every
    style update, and moving the focus is one: each "/" and escape rendered every visible cell of
    the task board again through Rich (~25 ms, most of a key press); ours are keyed by the focus
    and the base style, so only a new theme empties them. And one changed cell redrew every row
    on screen (its caches are keyed by a count each update bumps); here only its row is drawn
    again. A table that CSS sizes (`1fr`, `sized_by_layout`) does not relayout the whole screen
    when its rows change (which also redraws every scrollbar on screen): only its own scrollbars.
    """

    virtual_size = Reactive(Size(0, 0), layout=False)

    def __init__(self, *, sized_by_layout: bool = False, **kw):
        super().__init__(cursor_type="row", **kw)
        self.sized_by_layout = sized_by_layout
        self._cells_theme: str | None = None  # the theme the drawn lines were drawn in
        self._wants: dict[str, int] = {}  # what each column holds (its header's and longest cell's width)
        self._give_way: tuple[str, ...] = ()  # the long text columns, in the order they shrink
        self._keep: tuple[str, ...] = ()  # the columns never cut
        self._least: dict[str, int] = {}  # what a column of long text keeps while another can give way
        self._drawn: dict[RowKey | None, dict[tuple, Strip]] = {}  # row (None: the header) -> its lines as drawn
        self._tops: list[int] | None = None  # each row's first line below the header (None: to be counted)
        self._top_keys: list[RowKey] = []
        self._hovering = False  # the mouse moved over the table since the last key
        self._pass_widths: tuple[int, ...] | None = None  # the columns' widths while lines are drawn

    # ------------------------------------------------------------------ sharing the width
    def share_width(
        self,
        wants: dict[str, int],
        give_way: tuple[str, ...],
        keep: tuple[str, ...] = (),
        grow: bool = False,
        least: dict[str, int] | None = None,
    ) -> None:
        """Columns share the table's width by what they hold (`wants`: column key → the width of its
        longest cell). With too little room the `give_way` columns (the long text) shrink first, in
        order, to LEAST_TEXT (or their `least`); then the others but `keep` (a time, a state: cut, they
        would mislead), widest first, to their header's width; then the long text to its `least`, then
        to its header's. Room to spare goes to the first of `give_way`. `grow`: the widths only grow
        (some rows were drawn, not all)."""
        if grow:  # the columns measured now grow; the others keep what they held
            wants = {**self._wants, **{k: max(w, self._wants.get(k, 0)) for k, w in wants.items()}}
        least = least or {}
        if wants == self._wants and give_way == self._give_way and least == self._least:
            return
        self._wants, self._give_way, self._keep, self._least = wants, give_way, keep, least
        self._share()

    def on_resize(self, event: events.Resize) -> None:
        self._share()

    def _share(self) -> None:
        columns = {str(key.value): column for key, column in self.columns.items()}
        if not columns or not self._wants or self.content_region.width <= 0:
            return
        header = {k: c.label.cell_len for k, c in columns.items()}
        widths = {k: max(self._wants.get(k, 0), header[k], 1) for k in columns}
        room = self.content_region.width - self.styles.scrollbar_size_vertical - 2 * self.cell_padding * len(columns)
        excess = sum(widths.values()) - room
        floor = {k: max(header[k], self._least.get(k, 0)) for k in columns}
        text = [k for k in self._give_way if k in columns]  # (a narrow table leaves some out)
        for i, key in enumerate(text):  # the long text first, to a few words
            least = max(LEAST_TEXT, floor[key], room // 3 if i == 0 else 0)
            less = max(0, min(excess, widths[key] - least))
            widths[key] -= less
            excess -= less
        others = [k for k in widths if k not in self._give_way and k not in self._keep]
        # Then the others, widest first; then the text again, to what it keeps, then to its header.
        for shrinking, bound in ((others, header), (text, floor), (text, header)):
            while excess > 0:
                widest = max((k for k in shrinking if widths[k] > bound[k]), key=lambda k: widths[k], default=None)
                if widest is None:
                    break  # all at their header's width: the rest is cut at the right
                widths[widest] -= 1
                excess -= 1
        if excess < 0 and text:
            widths[text[0]] -= excess  # the room to spare
        changed = False
        for name, column in columns.items():
            if column.width != widths[name] or column.auto_width:
                column.width, column.auto_width, changed = widths[name], False, True
        if changed:  # the lines are drawn again at the new widths (they are in the drawn lines' keys)
            width = sum(column.get_render_width(self) for column in self.ordered_columns)
            self.virtual_size = Size(width, self.virtual_size.height)
            self.refresh()

    @property
    def selected(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
        except Exception:  # noqa: BLE001 - an empty or shrinking table has no selection
            return None

    # ------------------------------------------------------------------ what the rows hold
    def add_row(self, *cells: Any, **kw: Any) -> RowKey:
        key = super().add_row(*cells, **kw)
        self._tops = None
        self.check_idle()  # DataTable sizes new rows' columns when idle: it may get no message to be idle after
        return key

    def remove_row(self, row_key: RowKey | str) -> None:
        super().remove_row(row_key)
        self._tops = None
        self._drawn.pop(row_key if isinstance(row_key, RowKey) else RowKey(row_key), None)

    def clear(self, columns: bool = False) -> Self:
        super().clear(columns)
        self._tops = None
        self._drawn.clear()
        return self

    def sort(self, *args: Any, **kw: Any) -> Self:
        super().sort(*args, **kw)
        self._tops = None
        return self

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str, value: object, **kw: Any) -> None:
        super().update_cell(row_key, column_key, value, **kw)
        self._drawn.pop(row_key if isinstance(row_key, RowKey) else RowKey(row_key), None)  # its row only
        self.check_idle()

    def watch_virtual_size(self, old: Size, size: Size) -> None:
        follow_extent(self, old, size)
        if size.width != old.width:
            self.refresh()  # the columns were measured again (DataTable does it when idle)
        if not self.sized_by_layout:
            self.refresh(layout=True)  # sized by its rows (`auto`): the layout follows them

    def notify_style_update(self) -> None:
        super().notify_style_update()
        theme = self.app.theme  # a new theme restyles every cell; any other style update keeps them
        if theme != self._cells_theme:
            self._cells_theme = theme
            self._drawn.clear()

    # ------------------------------------------------------------------ the hover row
    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hovering = True

    def on_key(self, event: events.Key) -> None:
        self._hovering = False

    def watch_hover_coordinate(self, old: Coordinate, value: Coordinate) -> None:
        super().watch_hover_coordinate(old, value)
        self.refresh()

    # ------------------------------------------------------------------ drawing (the Line API)
    def _row_at(self, y: int) -> tuple[int, RowKey, int] | None:
        """The row index, key and line within it of line `y` below the header."""
        if self._tops is None:
            tops, top = [], 0
            self._top_keys = []
            for row in self.ordered_rows:
                tops.append(top)
                self._top_keys.append(row.key)
                top += row.height
            tops.append(top)
            self._tops = tops
        index = bisect_right(self._tops, y) - 1
        if y < 0 or index >= len(self._top_keys):
            return None
        return index, self._top_keys[index], y - self._tops[index]

    def render_lines(self, crop: Region) -> list[Strip]:
        # The columns' widths once for the lines of this pass, not once per line (ordered_columns sorts).
        self._pass_widths = tuple(column.get_render_width(self) for column in self.ordered_columns)
        try:
            return super().render_lines(crop)
        finally:
            self._pass_widths = None

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        header = self.header_height if self.show_header else 0
        base = self.rich_style
        if y < header:
            index, key, line = -1, None, y
        else:
            found = self._row_at(y + scroll_y - header)
            if found is None:
                return Strip.blank(width, base)
            index, key, line = found
        widths = self._pass_widths or tuple(column.get_render_width(self) for column in self.ordered_columns)
        cursor = index >= 0 and index == self.cursor_row and self.show_cursor
        hover = index >= 0 and self._hovering and index == self.hover_row and self.show_cursor
        look = (index, line, width, widths, cursor, hover, base, self.has_focus)
        drawn = self._drawn.setdefault(key, {})
        strip = drawn.get(look)
        if strip is None:
            if len(drawn) >= DRAWN_PER_ROW:  # looks of a row gone by (moved, another width): bounded
                drawn.clear()
            strip = drawn[look] = self._draw(index, key, line, width, widths, cursor, hover, base)
        return strip.crop(scroll_x, scroll_x + width).adjust_cell_length(width, base)

    def _draw(
        self,
        index: int,
        key: RowKey | None,
        line: int,
        width: int,
        widths: tuple[int, ...],
        cursor: bool,
        hover: bool,
        base: Style,
    ) -> Strip:
        """Line `line` of row `index` (-1: the header) as DataTable draws it, whole (not scrolled)."""
        style = self.get_component_rich_style
        if key is None:
            row_style = self.get_component_styles("datatable--header").rich_style
            cells: list[Any] = [column.label for column in self.ordered_columns]
            height = self.header_height
        else:
            row_style = base
            cells = self.get_row(key)
            height = self.rows[key].height
        look = Style()
        if hover:
            look += style("datatable--hover")
        if cursor:
            look += style("datatable--cursor")
        after = Style.from_color(color=look.color) if self.cursor_foreground_priority == "css" else Style.null()
        if self.cursor_background_priority == "css":
            after += Style.from_color(bgcolor=look.bgcolor)
        options = self.app.console_options
        segments: list[Segment] = []
        for column_index, (cell, cell_width) in enumerate(zip(cells, widths, strict=False)):
            shown = Text(cell, no_wrap=height == 1, end="") if isinstance(cell, str) else cell
            fit = options.update_dimensions(cell_width, height)
            if height == 1:
                fit = fit.update(no_wrap=True)
            meta = Style.from_meta({"row": index, "column": column_index})
            lines = self.app.console.render_lines(
                Styled(Padding(shown, (0, self.cell_padding)), pre_style=row_style + meta + look, post_style=after), fit
            )
            segments.extend(lines[line])
        rest = max(0, width - sum(widths))
        segments.append(
            Segment(" " * rest, row_style + look + Style.from_meta({"row": index, "column": 0, "out_of_bounds": True}))
        )
        return Strip(segments).simplify()
