"""One team's timeline in the terminal: a lane per teammate, tasks as bars, messages as ticks.

The dashboard opens it (`h`) for the team on screen. Its history comes from where it is recorded
(the team's `timeline` capability: this machine's history database, read in a thread, or a remote
team's machine's, asked over its stream); when that place cannot give it, from what the dashboard
has in memory, saying why. Then it is drawn by `draw_timeline` (protocol/history/timeline.py decides what; this module only turns
it into characters). `+`/`-` zoom from a minute to the whole run (which ends now, or at the team's end; the header says
the span, and when a zoom can go no further), `←`/`→` move along it, `0` shows the whole run,
`end` the latest part.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from teamtui.protocol.history.timeline import GONE, IDLE, WAITING, WORKING, TeamHistory, Timeline, build_timeline, cells
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert
from teamtui.tui.widgets.footer import KeyFooter

LABEL = 16  # the lanes' names
MIN_WINDOW = 60.0  # zoomed in as far as a minute
MAX_TASK_ROWS = 200
GLYPH = {WORKING: "█", IDLE: "▁", WAITING: "▒", GONE: " "}
_STEPS = (60, 300, 600, 900, 1800, 3600, 7200, 4 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400)


def _span(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h".replace(".0 h", " h")
    return f"{seconds / 86400:.1f} days".replace(".0 days", " days")


def _label(name: str, style: str = "") -> Text:
    s = inert(name)
    s = s if len(s) < LABEL else s[: LABEL - 2] + "…"
    return Text(s.ljust(LABEL), style=style)


def _axis(start: float, end: float, width: int) -> Text:
    step = next((s for s in _STEPS if (end - start) / s <= max(width // 10, 1)), _STEPS[-1])
    fmt = "%H:%M" if step < 86400 else "%m-%d"
    row = [" "] * width
    t = (int(start) // step + 1) * step
    while t < end:
        col = int((t - start) / (end - start) * width)
        label = "┊" + time.strftime(fmt, time.localtime(t))
        if col + len(label) <= width and all(c == " " for c in row[col : col + len(label)]):
            row[col : col + len(label)] = list(label)
        t += step
    return Text(" " * LABEL) + Text("".join(row))


def draw_timeline(tl: Timeline, width: int, palette: Palette) -> Text:
    """The timeline as rows of characters, `width` columns of time after the lanes' names."""
    width = max(width, 10)
    colors = {
        WORKING: palette.theme_color("success"),
        IDLE: palette.theme_color("secondary"),
        WAITING: palette.theme_color("warning"),
        GONE: "",
    }
    out = _axis(tl.start, tl.end, width)
    step = (tl.end - tl.start) / width

    def col(at: float) -> int:
        return min(width - 1, max(0, int((at - tl.start) / step)))

    for lane in tl.lanes:
        out.append("\n")
        out.append_text(_label(lane.name, f"bold {palette.member_color(lane.name)}"))
        row = cells(lane, tl.start, tl.end, width)
        need = f"bold {palette.theme_color('error')}"
        for i in {col(at) for at in lane.needs}:
            row[i] = "need"
        _runs(out, [("▲", need) if c == "need" else (GLYPH[c], colors[c]) for c in row])
    ticks = [0] * width
    for tick in tl.ticks:
        ticks[col(tick.at)] += 1
    out.append("\n")
    out.append_text(_label("messages", palette.theme_color("secondary")))
    out.append("".join(" " if n == 0 else "╷" if n == 1 else "┃" for n in ticks), style=palette.theme_color("primary"))
    if tl.tasks:
        out.append("\n")
    waiting = ("┄", palette.theme_color("secondary"))
    for t in tl.tasks[:MAX_TASK_ROWS]:
        out.append("\n")
        out.append_text(_label(f"#{t.id} {t.subject}", palette.theme_color("foreground")))
        end = t.end if t.end is not None else tl.end
        going = ("━", palette.theme_color("success" if t.status == "completed" else "accent"))
        cols = []
        for i in range(width):
            a, b = tl.start + i * step, tl.start + (i + 1) * step
            if b <= t.created or a >= end:
                cols.append((" ", ""))
            else:
                cols.append(going if t.begun is not None and b > t.begun else waiting)
        _runs(out, cols)
    if len(tl.tasks) > MAX_TASK_ROWS:
        out.append(f"\n{len(tl.tasks) - MAX_TASK_ROWS} more tasks: teamtui history NAME --html FILE lists them all")
    return out


def _runs(out: Text, cols: list[tuple[str, str]]) -> None:
    """Append a row of (glyph, style) columns, one span per run of the same (a row is 200 columns)."""
    i = 0
    while i < len(cols):
        j = i
        while j < len(cols) and cols[j] == cols[i]:
            j += 1
        glyph, style = cols[i]
        out.append(glyph * (j - i), style=style)
        i = j


class TimelineScreen(Screen[None]):
    DEFAULT_CSS = """
    TimelineScreen #timeline-header { height: auto; background: $surface; padding: 0 1; }
    TimelineScreen #timeline-scroll { height: 1fr; }
    TimelineScreen #timeline-body { width: auto; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="timeline.close"),
        Binding("plus,equals_sign", "zoom(0.5)", "Zoom in", id="timeline.zoom_in"),
        Binding("minus", "zoom(2)", "Zoom out", id="timeline.zoom_out"),
        Binding("left", "pan(-0.25)", "Earlier", id="timeline.earlier"),
        Binding("right", "pan(0.25)", "Later", id="timeline.later"),
        Binding("0,home", "whole", "Whole run", id="timeline.whole"),
        Binding("end", "latest", "Latest", id="timeline.latest", show=False),
    ]

    def __init__(self, title: str, load: Callable[[], Awaitable[TeamHistory]], palette: Palette, **kw: Any) -> None:
        super().__init__(**kw)
        self.team_title = title
        self.load = load  # awaited in a worker: reads the database (in a thread) or asks the team's machine
        self.palette = palette
        self.history: TeamHistory | None = None
        self.window: tuple[float, float] | None = None
        self.problem = ""
        self.bound = ""  # why the last zoom could go no further (said in the header)
        self._header = Static(id="timeline-header")
        self._body = Static(id="timeline-body")

    def compose(self) -> ComposeResult:
        yield self._header
        with VerticalScroll(id="timeline-scroll"):
            yield self._body
        yield KeyFooter()

    def on_mount(self) -> None:
        self._header.update(Text(f" {inert(self.team_title)} · reading its history…", style="bold"))
        self._read()

    @work(exclusive=True, group="timeline", exit_on_error=False)
    async def _read(self) -> None:
        try:
            history = await self.load()
        except Exception as exc:  # noqa: BLE001 - said on the screen, never a crash
            self._failed(str(exc))
            return
        self.show(history)

    def _failed(self, why: str) -> None:
        self.problem = why
        self._header.update(Text(f" {inert(self.team_title)} · its history cannot be read: {inert(why)}", style="bold"))

    def show(self, history: TeamHistory) -> None:
        self.history = history
        self.window = self._run()
        self.draw()

    def _run(self) -> tuple[float, float]:
        """The whole run: to its end when it ended, else to now (never past it); a minute at least."""
        assert self.history is not None
        h = self.history
        now = time.time()
        end = (
            h.ended_at if h.ended_at is not None else min(h.end, now) if now > h.start else h.end
        )  # records ahead of this clock: theirs
        end = max(end, h.start)
        return (min(h.start, end - MIN_WINDOW), end)

    def on_resize(self) -> None:
        if self.history is not None:
            self.draw()

    def draw(self) -> None:
        if self.history is None or self.window is None:
            return
        start, end = self.window
        width = max(self.size.width - LABEL - 4, 10)
        tl = build_timeline(self.history, start, end, resolution=(end - start) / width)
        p = self.palette
        head = Text(f" {inert(self.history.name)}", style="bold")
        head.append(
            f" · {time.strftime('%Y-%m-%d %H:%M', time.localtime(start))} – "
            f"{time.strftime('%H:%M', time.localtime(end))} ({_span(end - start)}{self.bound})",
            style=p.theme_color("secondary"),
        )
        head.append("  ")
        for state, what in ((WORKING, "working"), (IDLE, "idle"), (WAITING, "waiting for you")):
            head.append(
                GLYPH[state], style=p.theme_color({WORKING: "success", IDLE: "secondary", WAITING: "warning"}[state])
            )
            head.append(f" {what}  ")
        head.append("▲", style=f"bold {p.theme_color('error')}")
        head.append(" needs you  ╷ message")
        if self.history.note:  # what of it is missing, and why
            head.append(f"\n {inert(self.history.note)}", style=p.theme_color("warning"))
        self._header.update(head)
        self._body.update(draw_timeline(tl, width, p))

    # ------------------------------------------------------------------ keys
    def action_close(self) -> None:
        self.dismiss(None)

    def action_zoom(self, factor: float) -> None:
        if self.window is None:
            return
        run_start, run_end = self._run()
        start, end = self.window
        length = min(max((end - start) * factor, MIN_WINDOW), run_end - run_start)
        if abs(length - (end - start)) < 0.5:  # as far as it goes: said, not a silent key
            self.bound = ", as far in as it goes" if factor < 1 else ", the whole run"
        else:
            self.bound = ""
            middle = (start + end) / 2
            self.window = self._clamp(middle - length / 2, middle + length / 2)
        self.draw()

    def action_pan(self, by: float) -> None:
        if self.window is None:
            return
        self.bound = ""
        start, end = self.window
        shift = (end - start) * by
        self.window = self._clamp(start + shift, end + shift)
        self.draw()

    def action_whole(self) -> None:
        if self.history is not None:
            self.window, self.bound = self._run(), ""
            self.draw()

    def action_latest(self) -> None:
        if self.window is None:
            return
        start, end = self.window
        run_end = self._run()[1]
        self.window, self.bound = self._clamp(run_end - (end - start), run_end), ""
        self.draw()

    def _clamp(self, start: float, end: float) -> tuple[float, float]:
        run_start, run_end = self._run()
        length = min(end - start, run_end - run_start)
        start = min(max(start, run_start), run_end - length)
        return (start, start + length)


def session_history(session: Any, now: float | None = None) -> Callable[[], Awaitable[TeamHistory]]:
    """What TimelineScreen reads for a dashboard's team: its history where it is recorded (the
    team's `timeline` capability), or, when that place cannot give it (not recorded there, a host
    that is away or too old), what the session has in memory (taken now), saying why."""
    from teamtui.protocol.history.timeline import from_model
    from teamtui.session.actions import NoHistory

    now = time.time() if now is None else now
    memory = from_model(session.state, now)
    fetch = session.actions.timeline

    async def load() -> TeamHistory:
        if fetch is None:
            memory.note = "no history is kept of this team: shown from what this room has in memory"
            return memory
        try:
            return await fetch()
        except NoHistory as exc:
            memory.note = f"{exc}: shown from what this room has in memory"
            return memory

    return load
