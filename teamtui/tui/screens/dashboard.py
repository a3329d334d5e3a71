"""The dashboard: one team's panels, the selection, the actions and their timers.

The file feed is a worker that applies each batch to TeamState and posts one `TeamChanged`;
its handler redraws only the panels a batch concerns. Actions write through the protocol
layer (a widget never opens a file); a shutdown is a controller reporting `ShutdownProgress`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from teamtui.protocol.health import disappears_at
from teamtui.protocol.models import MemberStatus
from teamtui.protocol.state import TeamState
from teamtui.protocol.store import TeamStore
from teamtui.runtime.shutdown import ShutdownRun, live_teammates
from teamtui.tmux.api import TeammatePanes
from teamtui.tmux.commands import follow_command, pane_specs
from teamtui.tui.collector import first_load
from teamtui.tui.controllers.claude_shutdown import (
    AskLeadShutdown,
    close_teammate_panes,
    lead_gone,
    teammate_panes_open,
)
from teamtui.tui.controllers.shutdown import LeadShutdown, LocalShutdown, OnShutdown, ShutdownController
from teamtui.tui.palette import Palette
from teamtui.tui.messages import (
    LeadMessagesDrained, OrphanPanesFound, PanesChanged, ShutdownPanesSeen, ShutdownProgress, TeamChanged,
    TranscriptsCounted,
)
from teamtui.tui.safe import inert, safe_text
from teamtui.tui.widgets.filter import FilterInput
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.logs import LogStrip, TeammateLog
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from teamtui.tui.widgets.problems import ProblemList
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

W = TypeVar("W", bound=Widget)
TEAM_KINDS = {"config", "member_joined", "member_left", "member_status"}
TASK_KINDS = {"task", "task_completed", "task_removed"}
INBOX_KINDS = {"inbox", "inbox_read"}
# Relative times ("12s ago") are redrawn this often; no file is read for it.
RELATIVE_TIME_REFRESH = 5.0
# Log lines move a teammate's "Active" time and health; the team table follows at most this often.
PENDING_QUEUE_HINT = "none seen yet (Claude Code deletes each one once delivered)"
ACTIVITY_REFRESH = 1.0
# A feed that failed starts again after this long (a failure that repeats costs one toast a second).
FEED_RESTART_AFTER = 1.0
# How long a routine toast stays (Textual's default, 5 s, is kept for warnings and errors).
ROUTINE_TOAST_SECONDS = 3.0


class DashboardScreen(Screen[None]):
    palette: reactive[Palette] = reactive(Palette, init=False)
    # The keys that start typing are priority: handled where the app reads its keys, before
    # the keys typed next (fast, or pasted) are routed to the widget that had focus so far.
    BINDINGS = [
        Binding("m", "message", "Message", id="message", priority=True),
        Binding("b", "broadcast", "Broadcast", id="broadcast", priority=True),
        Binding("enter", "focus_teammate", "Focus", id="focus_teammate"),
        Binding("slash", "filter_tasks", "Filter", id="filter_tasks", priority=True),
        Binding("x", "shutdown_teammate", "Stop mate", id="shutdown_teammate"),
        Binding("S", "shutdown_team", "Stop team", id="shutdown_team"),
        Binding("t", "toggle_panes", "Panes", id="toggle_panes"),
        Binding("n", "needs_you", "Needs you", id="needs_you", show=False),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        # A terminal tool ends on Ctrl-C (Textual's default only hints at Ctrl-Q); inputs keep it for copy.
        Binding("ctrl+c", "quit", "Quit", show=False, id="interrupt"),
    ]
    LONG = {
        "message": "Message the selected teammate",
        "broadcast": "Broadcast to every teammate",
        "focus_teammate": "Focus the selected teammate (and its pane)",
        "filter_tasks": "Filter tasks",
        "shutdown_teammate": "Shut down the selected teammate",
        "shutdown_team": "Shut down the whole team",
        "toggle_panes": "Hide / show teammate panes",
        "needs_you": "Go to what needs you (Claude Code teams)",
        "help": "Help: keys",
        "quit": "Quit",
        "interrupt": "Quit",
    }
    ACTION_OF = {b.id: b.action for b in BINDINGS}

    def __init__(
        self,
        *,
        panes: TeammatePanes,
        clock: Callable[[], float],
        health_timeout: float,
        log_limit: int,
        cursor_blink: bool = True,
        sync_panes: bool = True,
        on_shutdown: OnShutdown | None = None,
        sender: str = "teamtui",
    ):
        super().__init__()
        self.panes = panes
        self.now = clock
        self.health_timeout = health_timeout
        self.log_limit = log_limit
        self.cursor_blink = cursor_blink
        self.sync_panes = sync_panes
        self.on_shutdown = on_shutdown  # set when a lead (teamtui run/demo) drives the team shutdown
        self.sender = sender  # the name teamtui writes under where it is not the team's lead
        self.store: TeamStore | None = None
        self.state: TeamState | None = None
        self.selected: str | None = None
        self.task_query = ""
        self.shutdown: ShutdownController | None = None
        self.shutdown_run: ShutdownRun | None = None  # the run as last reported
        self._shutdown_announced = False
        self._shutdown_view = None
        self._health_timer: Timer | None = None
        self._activity_timer: Timer | None = None  # armed by a log-only batch, fires once
        self._times_drawn_at: float | None = None  # the clock the team table's "Active" times are drawn at
        self._claimed: dict[str, str] = {}  # the board's claimed files when the task board was last drawn
        self._problems_shown: list | None = None
        self._disappeared: set[str] = set()
        self._stop = asyncio.Event()
        self._header_message = ""
        # Set when the team ended (its folder deleted) or was opened from the journal: shown, never written.
        self.ended_at: float | None = None
        self.read_only = ""  # why keys that write are unavailable ("" : they are)
        self._panes_waiting: tuple[str, ...] = ()  # teammates with no pane until selected (the pane budget)
        self._painted_widgets: list[Widget] = []  # the panels drawn in the screen's palette

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        # The palette is complete before any panel exists: a panel may draw before its first
        # message is handled, and the order of those differs between Python versions.
        self.set_reactive(DashboardScreen.palette, self._palette())
        painted = self._painted
        yield painted(TeamHeader(id="header"))
        yield ProblemList(id="problems")
        yield painted(NeedsYouStrip(id="needs-you"))
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield painted(TeamPanel(id="team"))
                with Vertical(id="board"):
                    yield FilterInput(placeholder=FilterInput.IDLE, id="task-filter")
                    yield painted(TaskBoard(id="tasks"))
            with Vertical(id="right"):
                yield painted(TeammateLog(limit=self.log_limit, id="log-main"))
                yield painted(LogStrip(limit=self.log_limit, id="log-strip"))
                yield painted(MessageTraffic(id="messages"))
        yield KeyFooter()

    def _painted(self, widget: W) -> W:
        """`widget` in the screen's palette from its first frame, and in each palette after it."""
        widget.set_reactive(type(widget).palette, self.palette)
        self._painted_widgets.append(widget)
        return widget

    def watch_palette(self, palette: Palette) -> None:
        # Handed over at once, not through a data binding: a binding starts a moment after its
        # widget mounts (later on 3.12+), and a panel drawn before then kept the old colours.
        for widget in self._painted_widgets:
            widget.palette = palette

    def on_mount(self) -> None:
        self.query_one("#team").border_title = "Team"
        self.query_one("#tasks").border_title = "Tasks"
        self.query_one("#messages").border_title = "Messages"
        self.query_one("#task-filter", FilterInput).cursor_blink = self.cursor_blink
        self.palette = self._palette()
        self.watch(self.app, "theme", self._theme_changed, init=False)
        # The panes work on a thread of their own and only post what they have to say.
        self.panes.listen(lambda news: self.post_message(PanesChanged(news)))
        if self._header_message:
            self.show_message(self._header_message)
        if self.state is not None:
            self._show_team()

    def _theme_changed(self, _theme: str) -> None:
        self.palette = self._palette()
        if self.state is not None:
            self.refresh_all()

    def _palette(self) -> Palette:
        """The current theme's colours, with the team's members' own."""
        members: dict[str, str] = {}
        if self.state is not None and self.state.config is not None:
            members = {m.name: m.color for m in self.state.departed.values()}
            members.update((m.name, m.color) for m in self.state.config.members)
        return Palette.of(self.app.current_theme, self.app.get_css_variables(), members)

    def _members_changed(self) -> None:
        palette = self._palette()
        self.palette = self.palette.with_members(palette.members)

    def show_message(self, text: str) -> None:
        """No team shown yet: say why in the header."""
        self._header_message = text
        if self.is_mounted:
            self.query_one(TeamHeader).show_message(text)

    def action_keys(self) -> list[tuple[str, str, str]]:
        """(key, description, binding id) of every action, after the user's keymap."""
        keymap = getattr(self.app, "_keymap", {}) or {}
        return [(keymap.get(b.id, b.key), self.LONG.get(b.id, b.description), b.id) for b in self.BINDINGS]

    # ------------------------------------------------------------------ the team
    def open_store(self, store: TeamStore) -> None:
        """Read the team (the app may hand it over before the panels exist: they show it once mounted)."""
        self.store = store
        self.state = TeamState(store, log_limit=self.log_limit, health_timeout=self.health_timeout, journal=store.open_journal())
        with first_load():
            self.state.load_all()
        if self.is_mounted:
            self._show_team()
        else:  # dialogs opened before the panels exist draw in it too; the panels bind to it when composed
            self.palette = self._palette()  # a set_reactive here would keep it from panels composed already

    def _show_team(self) -> None:
        self._members_changed()
        self.refresh_all()
        self.query_one(TeamPanel).focus()
        if self.ended_at is not None:
            return  # from the journal: nothing on disk to follow
        self._check_health(toast=False)
        self.set_interval(RELATIVE_TIME_REFRESH, lambda: self._refresh_team(tick=True))
        self._feed()

    def open_ended(self, state: TeamState, ended_at: float, why: str) -> None:
        """An ended team rebuilt from the journal: shown read-only, nothing watched."""
        self.store, self.state = state.store, state
        self.ended_at, self.read_only = ended_at, why
        if self.is_mounted:
            self._show_team()
        else:
            self.palette = self._palette()  # a set_reactive here would keep it from panels composed already

    @work(group="feed", exclusive=True, exit_on_error=False)
    async def _feed(self) -> None:
        """Apply each batch of file events to TeamState and post what changed: nothing else."""
        assert self.store is not None and self.state is not None
        from teamtui.protocol.watch import watch_dirs

        transcripts = self.state.transcripts
        # The first read of every transcript runs in a thread, while the watches start: from the end,
        # what the log panels show; the heads' token sums are counted after the first screen.
        reading = (
            asyncio.ensure_future(asyncio.to_thread(transcripts.read, from_end=True)) if transcripts and transcripts.team is None else None
        )
        async for batch in watch_dirs(self.state.watch_dirs(), self._stop):
            t0 = time.perf_counter()
            if batch.rescan:
                changes = self.state.load_all() + self.state.apply_batch([], rescan=True)
            elif batch.ready:
                # What changed between the first read and the watches; the stats run off the event loop.
                stale = await asyncio.to_thread(self.state.stale_paths)
                t0 = time.perf_counter()
                changes = [c for p in stale for c in self.state.apply(p)]
                if reading is not None:
                    self.post_message(TeamChanged(changes, read_seconds=time.perf_counter() - t0))
                    updates = await reading
                    reading = None
                    t0 = time.perf_counter()
                    # What was written before the watches were in place: read on from each offset.
                    changes = self.state.take_transcripts(updates) + self.state.apply_batch([], rescan=True)
                    self.post_message(TeamChanged(changes, full=True, read_seconds=time.perf_counter() - t0))
                    if transcripts.counting:  # after the frame with the log panels: its thread would slow that frame (GIL)
                        self.call_after_refresh(self._count_transcripts)
                    continue
            else:
                changes = self.state.apply_batch(sorted(batch.paths))
            self.post_message(TeamChanged(changes, full=batch.rescan, read_seconds=time.perf_counter() - t0))

    @work(thread=True, group="transcript-sums", exit_on_error=False)
    def _count_transcripts(self) -> None:
        """The token sums of the transcripts' heads, counted off the UI loop (GIL-bound parsing)."""
        assert self.state is not None and self.state.transcripts is not None
        self.post_message(TranscriptsCounted(self.state.transcripts.count_heads()))

    @on(TranscriptsCounted)
    def _transcripts_counted(self, message: TranscriptsCounted) -> None:
        """The token and context figures filled in, now that each transcript was counted whole."""
        if self.state is None or self.state.transcripts is None:
            return
        if self.state.transcripts.take_heads(message.heads):
            self._refresh_team()
            self._refresh_header()
            self._refresh_needs_you()

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """The one place a worker's error is handled: say it, and restart the feed (its first batch
        re-reads whatever changed meanwhile), at most once a second."""
        if event.state != WorkerState.ERROR:
            return
        self.notify(f"Could not apply a change: {event.worker.error}", severity="error", markup=False)
        if event.worker.group == "feed" and not self._stop.is_set():
            self.set_timer(FEED_RESTART_AFTER, self._feed)

    @on(TeamChanged)
    def _team_changed(self, message: TeamChanged) -> None:
        t1 = time.perf_counter()
        try:
            self.apply_changes(message.changes, full=message.full)
        except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the live view
            self.notify(f"Could not apply a change: {exc}", severity="error", markup=False)
            return
        on_batch = getattr(self.app, "on_batch", None)
        if on_batch is not None:
            on_batch(message.changes, message.read_seconds, time.perf_counter() - t1)

    @on(LeadMessagesDrained)
    def _lead_messages(self, message: LeadMessagesDrained) -> None:
        if self.state is not None:
            self.apply_changes(self.state.ingest(message.recipient or self.state.lead, message.messages))

    def apply_changes(self, changes, full: bool = False) -> None:
        assert self.state is not None
        kinds = {c.kind for c in changes}
        if full or kinds & TEAM_KINDS:
            self._members_changed()
        if full or kinds & (TEAM_KINDS | TASK_KINDS | {"error", "error_cleared", "team_gone"}):
            self._refresh_header(gone="team_gone" in kinds)
        log_only = not full and kinds <= {"log"}
        if not log_only:
            self._refresh_team()
        elif kinds and self._activity_timer is None:
            # Log lines only move "Active" (and may clear a health flag): redraw that once a second at most.
            self._activity_timer = self.set_timer(ACTIVITY_REFRESH, self._activity_tick)
        if full or kinds & TEAM_KINDS:
            self._refresh_log_strip()
            self._sync_panes()
        if full or kinds & TASK_KINDS:
            self._refresh_board(None if full or "task_removed" in kinds else {c.key for c in changes if c.kind in TASK_KINDS})
        if full or kinds & INBOX_KINDS:
            self._show_messages()
        for c in changes:
            if c.kind == "log":
                self._append_log(c.key)
            elif c.kind == "task_completed":
                self._toast(f"✓ #{c.key} completed: ", c.detail, "information")
            elif c.kind == "member_joined":
                self._toast("", c.key, "information", suffix=" joined the team")
            elif c.kind == "member_left":
                self._toast("", c.key, "warning", suffix=" left the team")
            elif c.kind == "member_status" and c.detail == MemberStatus.SHUTDOWN.value:
                self._toast("", c.key, "information", suffix=" shut down")
            elif c.kind == "team_gone":
                self._toast("Team gone: ", c.detail, "error")
        if self.state.transcripts is not None and (full or kinds & (INBOX_KINDS | TEAM_KINDS)):
            self._refresh_needs_you()
        if self.shutdown is not None and (full or kinds & self.shutdown.watches):
            self.shutdown.observe()
        if not log_only or any(c.key in self._disappeared for c in changes):
            self._check_health()  # a flagged teammate that logs is cleared at once

    def _show_messages(self) -> None:
        assert self.state is not None
        traffic = self.query_one(MessageTraffic)
        traffic.show(self.state.messages)
        # A pending queue (Claude Code) is emptied on delivery: say why the table may be empty.
        hint = "" if self.state.messages else "none yet" if self.state.store.appends_to_inboxes else PENDING_QUEUE_HINT
        if traffic.border_subtitle != hint:  # setting it, even unchanged, redraws the panel
            traffic.border_subtitle = hint

    def _activity_tick(self) -> None:
        self._activity_timer = None
        self._check_health()
        self._refresh_team()
        if self.state is not None and self.state.transcripts is not None:
            self._refresh_header()  # the team's tokens
            self._refresh_needs_you()

    def _toast(self, prefix: str, data: str, severity: str, suffix: str = "") -> None:
        # Routine news (a task done, a teammate joined) goes sooner: a busy team would stack it over the logs.
        timeout = ROUTINE_TOAST_SECONDS if severity == "information" else None
        self.notify(prefix + inert(data) + suffix, severity=severity, markup=False, timeout=timeout)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ panels
    def refresh_all(self) -> None:
        assert self.state is not None
        self._refresh_header()
        self._refresh_team()
        self._refresh_log_strip()
        self._refresh_board()
        self._show_messages()
        self._show_main_log()
        self.call_after_refresh(self._sync_panes)  # the first screen never waits for panes
        if self.state.transcripts is not None:
            self._refresh_needs_you()

    def _refresh_header(self, gone: bool = False) -> None:
        if self.state is not None:
            if gone and self.ended_at is None and getattr(self.store, "lead_process", None) is not None:
                # A Claude Code session team: its lead exited and took the folder; keep it on screen.
                self.ended_at = self.now()
                self.read_only = "the team has ended (its lead exited): it is shown as it was"
            self.query_one(TeamHeader).show_team(self.state, gone=gone, ended_at=self.ended_at)
            errors = self.state.all_errors()
            if errors != self._problems_shown:  # redrawing an unchanged list would relayout the screen
                self._problems_shown = errors
                self.query_one(ProblemList).show(errors, self.state.store.root)

    def _refresh_team(self, tick: bool = False) -> None:
        if self.state is None:
            return
        panel = self.query_one(TeamPanel)
        now = self.now()
        if tick or self._times_drawn_at is None:
            self._times_drawn_at = now
        # "Active" times move on the tick only: a change in between redraws the rows it touched, not
        # every row whose "12s ago" became "13s ago" (100 cells at 100 teammates, most of a task update).
        panel.show(self._views(now), self._times_drawn_at, self._usage())
        if self.selected is None or panel.selected != self.selected:
            self.selected = panel.selected
            self._show_main_log()
        parts = [f"{len(self._disappeared)} disappeared"] if self._disappeared else []
        if self._panes_waiting:
            parts.append(f"{len(self._panes_waiting)} without a pane · enter opens one")
        subtitle = " · ".join(parts)
        if panel.border_subtitle != subtitle:  # setting it, even unchanged, redraws the panel
            panel.border_subtitle = subtitle

    def _views(self, now: float) -> list:
        """The team panel's rows: the members, after the lead when its transcript was read."""
        assert self.state is not None
        views = self.state.member_views(now)
        lead = self.state.transcripts.lead_view() if self.state.transcripts is not None else None
        return [lead, *views] if lead is not None else views

    def _usage(self) -> dict | None:
        """Each member's transcript figures, once any transcript was read (else None: the
        team panel keeps its usual columns)."""
        feed = self.state.transcripts if self.state is not None else None
        if feed is None or not feed.members():
            return None
        return {m: feed.stats(m) for m in feed.members()}

    def _refresh_needs_you(self) -> None:
        assert self.state is not None and self.state.transcripts is not None
        strip = self.query_one(NeedsYouStrip)
        strip.show(self.state.transcripts.needs_you(self.now()), self.now(), self.palette.member_color)

    @on(NeedsYouStrip.Chosen)
    def _needs_you_chosen(self, message: NeedsYouStrip.Chosen) -> None:
        from teamtui.tui.screens.request import RequestDetail

        item = message.item
        self._select(item.member)
        if item.kind in ("permission", "plan"):
            where = f"{item.member}'s pane" if self._pane_of(item.member, lead=False) else "the lead's pane"
            self.app.push_screen(RequestDetail(item, self.palette, where), lambda go: go and self._go_to_pane(item.member))
        else:
            self._go_to_pane(item.member)

    def action_needs_you(self) -> None:
        strip = self.query_one(NeedsYouStrip)
        if not strip.items:
            self.notify("Nothing needs you.")
            return
        strip.focus()

    def _select(self, name: str) -> None:
        panel = self.query_one(TeamPanel)
        try:
            panel.move_cursor(row=panel.get_row_index(name))
        except Exception:  # noqa: BLE001 - a member no longer in the table: its log cannot show either
            return
        self.selected = name
        self._show_main_log()

    def _pane_of(self, name: str, lead: bool = True) -> str | None:
        """The tmux pane that answers for `name`: its own (pane backend), else the lead's."""
        from teamtui.tmux.jump import pane_of_process

        assert self.state is not None
        cfg = self.state.config
        member = next((m for m in cfg.members if m.name == name), None) if cfg is not None else None
        pane = (member.raw.get("tmuxPaneId") if member is not None else None) or ""
        if isinstance(pane, str) and pane.startswith("%"):
            return pane
        if not lead or cfg is None:
            return None
        proc = cfg.raw.get("leadProcess")
        pid = proc.get("pid") if isinstance(proc, dict) else None
        return pane_of_process(pid) if isinstance(pid, int) and not isinstance(pid, bool) else None

    def _go_to_pane(self, name: str) -> None:
        from teamtui.tmux.jump import select_pane

        try:
            pane = self._pane_of(name)
            done = pane is not None and select_pane(pane)
        except Exception as exc:  # noqa: BLE001 - tmux is a convenience: say why, keep the dashboard
            self._toast("Pane: ", str(exc), "warning")
            return
        if done:
            self._toast("Selected the pane of ", name, "information", suffix=f" ({pane})")
        else:
            self._toast("No tmux pane to select for ", name, "warning", suffix=" (is teamtui inside the team's tmux?)")

    def _refresh_board(self, changed: set[str] | None = None) -> None:
        """Redraw the task board: only the rows `changed` tasks can affect, else every row."""
        assert self.state is not None
        board, table = self.state.board, self.query_one(TaskBoard)
        claimed = board.claimed_files()
        done = False
        if changed is not None:
            views = [board.view(board.tasks[i], claimed) for i in board.affected_by(changed, self._claimed)]
            done = table.update(views, self.task_query, len(board.tasks))
        if not done:
            table.show(board.views(), self.task_query)
        self._claimed = claimed

    def _log_title(self, name: str) -> Text:
        return safe_text(name, f"bold {self.palette.member_color(name)}")

    def _refresh_log_strip(self) -> None:
        assert self.state is not None
        names = [v.name for v in self._views(self.now())]
        self.query_one(LogStrip).sync([(n, self._log_title(n)) for n in names], self.state.logs, self.selected)

    def _show_main_log(self) -> None:
        log = self.query_one("#log-main", TeammateLog)
        if self.selected is None or self.state is None:
            log.clear()
            log.border_title = "Log"
            return
        title = Text("Log · ")
        title.append_text(self._log_title(self.selected))
        log.show(self.state.logs.get(self.selected), title)
        self._refresh_log_strip()

    def _append_log(self, member: str) -> None:
        assert self.state is not None
        if member == self.selected:
            self.query_one("#log-main", TeammateLog).sync(self.state.logs.get(member))
        self.query_one(LogStrip).append(member)

    def _sync_panes(self) -> None:
        if not self.sync_panes or not self.panes.active or self.state is None or self.store is None:
            return
        root, team = self.store.root, self.store.name
        try:
            self.panes.sync(pane_specs(self.state, lambda name: follow_command(name, root, team), self.now()))
        except Exception as exc:  # noqa: BLE001 - panes are a convenience: report, keep the dashboard
            self.notify(f"Panes: {exc}", severity="warning", markup=False)

    @on(PanesChanged)
    def _panes_changed(self, message: PanesChanged) -> None:
        news = message.news
        if news.problem:
            self._toast("Panes: ", news.problem, "warning")
        if news.waiting != self._panes_waiting:
            if news.waiting and not self._panes_waiting:
                self.notify(
                    f"{len(news.waiting)} teammates have no pane until selected (enter): at most {news.limit} "
                    "panes at once (--max-panes, or max_panes in the config file).",
                    markup=False,
                )
            self._panes_waiting = news.waiting
            self._refresh_team()

    @on(TeamPanel.TeammateHighlighted)
    def _teammate_highlighted(self, message: TeamPanel.TeammateHighlighted) -> None:
        if message.name != self.selected:
            self.selected = message.name
            self._show_main_log()

    @on(TeamPanel.TeammateChosen)
    def _teammate_chosen(self, _message: TeamPanel.TeammateChosen) -> None:
        self.action_focus_teammate()

    @on(TaskBoard.TaskChosen)
    def _task_chosen(self, message: TaskBoard.TaskChosen) -> None:
        from teamtui.tui.screens.task_detail import TaskDetail

        if self.state is not None and message.task_id in self.state.board.tasks:
            self.app.push_screen(TaskDetail(self.state.board, message.task_id, self.palette))

    # ------------------------------------------------------------------ health
    def _check_health(self, toast: bool = True) -> None:
        if self.state is None:
            return
        now = self.now()
        views = self.state.member_views(now)
        current = {v.name for v in views if v.disappeared}
        if toast:
            for name in sorted(current - self._disappeared):
                self._toast("⚠ ", name, "warning", suffix=f" disappeared: no activity for {self.health_timeout:g}s while holding a task")
            for name in sorted(self._disappeared - current):
                self._toast("", name, "information", suffix=" is active again")
        if current != self._disappeared:
            self._disappeared = current
            self._refresh_team()
        if self.state.transcripts is not None:
            self._refresh_needs_you()  # a task owner gone silent, or writing again
        # Wake up exactly when the next teammate could cross the timeout.
        due = [
            at
            for v in views
            if not v.disappeared
            and (at := disappears_at(
                holds_task=v.current_task is not None,
                stopped=v.departed or v.status == MemberStatus.SHUTDOWN,
                last_activity=v.last_activity,
                timeout=self.health_timeout,
            )) is not None
        ]
        if self._health_timer is not None:
            self._health_timer.stop()
            self._health_timer = None
        if due:
            delay = max(0.05, min(due) - now + 0.05)
            self._health_timer = self.set_timer(delay, self._check_health)

    # ------------------------------------------------------------------ actions
    def _selected_member(self) -> str | None:
        name = self.query_one(TeamPanel).selected if self.state else None
        if name is None:
            self.notify("No teammate selected.", severity="warning")
        return name

    def _writable(self) -> bool:
        if self.read_only:
            self.notify(f"Unavailable: {self.read_only}.", severity="warning", markup=False)
        return not self.read_only

    def _typing_elsewhere(self) -> None:
        """A priority key is text while an input has focus or a dialog is open: let it through."""
        if isinstance(self.app.screen.focused, Input) or self.app.screen is not self:
            raise SkipAction()

    def action_message(self) -> None:
        from teamtui.tui.screens.message import MessageModal

        self._typing_elsewhere()
        name = self._selected_member()
        if name is None or not self._writable():
            return
        title = Text("Message ", style="bold")
        title.append_text(self._log_title(name))
        sender = self.store.outgoing_sender(self.sender) if self.store is not None else self.sender
        self.app.push_screen(MessageModal(title, [name], sender, cursor_blink=self.cursor_blink), lambda text: self._send(name, text))

    def _send(self, name: str, text: str | None) -> None:
        if text is None or self.store is None or self.state is None:
            return
        try:
            sent = self.store.send(name, text, self.store.outgoing_sender(self.sender))
        except Exception as exc:  # noqa: BLE001 - the user must see why nothing was written
            self._toast("Message not sent: ", str(exc), "error")
            return
        self.apply_changes(self.state.sent([sent]))
        self._toast("Message written to ", name, "information", suffix="'s inbox")

    def action_broadcast(self) -> None:
        from teamtui.tui.screens.message import MessageModal

        self._typing_elsewhere()
        if self.store is None or self.state is None or not self._writable():
            return
        sender = self.store.outgoing_sender(self.sender)
        try:
            recipients = self.store.members_for_broadcast(sender)
        except Exception as exc:  # noqa: BLE001
            self._toast("Cannot broadcast: ", str(exc), "error")
            return
        title = Text(f"Broadcast to {len(recipients)} teammate{'s' if len(recipients) != 1 else ''}", style="bold")
        self.app.push_screen(MessageModal(title, recipients, sender, cursor_blink=self.cursor_blink), self._broadcast)

    def _broadcast(self, text: str | None) -> None:
        if text is None or self.store is None or self.state is None:
            return
        try:
            sent = self.store.broadcast(text, self.store.outgoing_sender(self.sender))
        except Exception as exc:  # noqa: BLE001
            self._toast("Broadcast not sent: ", str(exc), "error")
            return
        self.apply_changes(self.state.sent(sent))
        self._toast("Broadcast written to ", ", ".join(m.recipient for m in sent) or "nobody", "information")

    def action_focus_teammate(self) -> None:
        name = self._selected_member()
        if name is None:
            return
        self.selected = name
        self._show_main_log()
        opening = name in self._panes_waiting
        try:
            has_pane = self.panes.select(name)
        except Exception as exc:  # noqa: BLE001
            self._toast("Pane: ", str(exc), "warning")
            has_pane = False
        suffix = (" (opening its pane)" if opening else " (pane selected)") if has_pane else ""
        self._toast("Focused ", name, "information", suffix=suffix)

    def action_filter_tasks(self) -> None:
        self._typing_elsewhere()
        # Focus now, not after the keys already read (Widget.focus waits): "/auth" typed fast, or
        # pasted, goes into the filter instead of to the dashboard's keys ("t" toggles the panes).
        self.set_focus(self.query_one("#task-filter", FilterInput))

    @on(Input.Changed, "#task-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        query = event.value.strip()
        if query != self.task_query:  # "/" then escape changes no row: rebuild none
            self.task_query = query
            if self.state is not None:
                self._refresh_board()

    @on(FilterInput.Closed)
    def _filter_closed(self, message: FilterInput.Closed) -> None:
        self.close_filter(clear=message.clear)

    def close_filter(self, clear: bool) -> None:
        f = self.query_one("#task-filter", FilterInput)
        if clear:
            f.value = ""
            if self.task_query:
                self.task_query = ""
                if self.state is not None:
                    self._refresh_board()
        self.query_one(TaskBoard).focus()

    def action_toggle_panes(self) -> None:
        try:
            shown = self.panes.toggle()
        except Exception as exc:  # noqa: BLE001
            self._toast("Panes: ", str(exc), "warning")
            return
        if not self.panes.active:
            self.notify("No teammate panes: in-process mode (start teamtui inside tmux for panes).")
        else:
            self.notify("Panes shown" if shown else "Panes hidden")

    def action_help(self) -> None:
        from teamtui.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.action_keys(), getattr(self.app, "config_path", None), self.palette))

    async def action_quit(self) -> None:
        await self.app.action_quit()

    # ------------------------------------------------------------------ shutdown
    def action_shutdown_team(self) -> None:
        self._confirm_shutdown(None)

    def action_shutdown_teammate(self) -> None:
        name = self._selected_member()
        if name is not None:
            self._confirm_shutdown(name)

    def _confirm_shutdown(self, only: str | None) -> None:
        from teamtui.tui.screens.confirm_shutdown import ShutdownConfirm

        if self.state is None:
            return
        if self.shutdown_run is not None and not self.shutdown_run.done:
            self.show_shutdown()
            return
        if self._lead_gone():
            self._offer_orphan_panes(only)
            return
        if not self._writable():
            return
        targets = live_teammates(self.state, only)
        if not targets:
            who = inert(only) if only else "the team"
            self.notify(f"Nobody to shut down: {who} has no live teammate.", severity="warning", markup=False)
            return
        title = f"Shut down {inert(only)}" if only else f"Shut down team {inert(self.state.name)}"
        via = self.state.lead if self.store is not None and self.store.shutdown_via_lead else ""
        confirm = ShutdownConfirm(title, targets, cursor_blink=self.cursor_blink, via=via)
        self.app.push_screen(confirm, lambda params: self._start_shutdown(params, only))

    def _lead_gone(self) -> bool:
        """A Claude Code team whose lead has ended (its folder deleted, or its process dead)."""
        if self.store is None or not self.store.shutdown_via_lead:
            return False
        return self.ended_at is not None or lead_gone(self.store)

    def _offer_orphan_panes(self, only: str | None) -> None:
        """The lead is gone, so nobody can approve a shutdown: say so now, and offer to close the
        panes config.json names that still run their teammates."""
        assert self.state is not None
        targets = live_teammates(self.state, only)
        members = list(self.state.config.members) if self.state.config is not None else []
        self._find_orphan_panes(only, members, targets)

    @work(thread=True, group="orphan-panes", exclusive=True, exit_on_error=False)
    def _find_orphan_panes(self, only: str | None, members: list, targets: list[str]) -> None:
        """A tmux call and a walk of /proc: off the UI loop, so keys keep answering."""
        assert self.store is not None
        panes = teammate_panes_open(self.store, members, targets) if targets else {}
        self.post_message(OrphanPanesFound(only, members, panes))

    @on(OrphanPanesFound)
    def _orphan_panes_found(self, message: OrphanPanesFound) -> None:
        from teamtui.tui.screens.confirm_panes import ClosePanesConfirm

        if self.state is None or self.store is None:
            return
        store, lead, only, members, panes = self.store, self.state.lead, message.only, message.members, message.panes
        said = f"{inert(lead)} has ended: nobody can approve a shutdown of {inert(only) if only else 'the team'}."
        if not panes:
            why = ("Its teammates' panes cannot be looked for (teamtui is not inside the team's tmux)." if panes is None
                   else "No pane config.json names for them is still open.")
            self.notify(f"{said} {why}", severity="warning", markup=False)
            return
        self.notify(said, severity="warning", markup=False)

        def answered(yes: bool | None) -> None:
            if yes:
                self._close_orphan_panes(store, members, panes)

        why = f"{lead} has ended: nobody can approve a shutdown. Closing a teammate's pane ends it."
        self.app.push_screen(ClosePanesConfirm(panes, title=f"{lead} has ended: close their panes?", why=why), answered)

    @work(thread=True, group="orphan-panes", exit_on_error=False)
    def _close_orphan_panes(self, store: TeamStore, members: list, panes: dict[str, str]) -> None:
        """Each pane checked again, then closed (tmux calls): off the UI loop."""
        closed, errors = close_teammate_panes(store, members, panes)
        self.app.call_from_thread(self._orphan_panes_closed, closed, errors, panes)

    def _orphan_panes_closed(self, closed: list[str], errors: list[str], panes: dict[str, str]) -> None:
        for name in closed:
            self._toast("Closed the pane of ", name, "information", suffix=f" ({panes[name]})")
        for error in errors:
            self._toast("", error, "error")

    def _start_shutdown(self, params, only: str | None) -> None:
        if params is None or self.store is None or self.state is None:
            return
        if self.shutdown is not None:
            self.shutdown.stop()
        self._shutdown_announced = False
        if self.store.shutdown_via_lead:
            # Only the lead can stop its teammates: ask it, then follow what happens in the files.
            self.shutdown = AskLeadShutdown(
                self.post_message, self.store, sender=self.store.outgoing_sender(self.sender), clock=self.now,
                state=self.state, set_timer=self.set_timer, whole_team=only is None,
            )
            try:
                self.shutdown.start(params.targets, params.reason, params.deadline_seconds)
            except Exception as exc:  # noqa: BLE001 - say it, keep the dashboard
                self._toast("Shutdown not started: ", str(exc), "error")
            return
        if self.on_shutdown is not None and only is None:
            # The lead asks, observes and climbs its ladder; its snapshots arrive as messages.
            self.shutdown = LeadShutdown(self.post_message, self.on_shutdown)
            try:
                self.shutdown.start(params.targets, params.reason, params.deadline_seconds)
            except Exception as exc:  # noqa: BLE001 - the lead is gone: say so, keep the dashboard
                self._toast("Shutdown not started: ", str(exc), "error")
            return
        if self._ask_running_lead(params, only):
            return
        state = self.state
        self.shutdown = LocalShutdown(
            self.post_message, self.store, sender=self.store.outgoing_sender(self.sender), clock=self.now,
            replies=state.shutdown_replies, tasks=lambda: state.tasks.values(), set_timer=self.set_timer,
        )
        self.shutdown.start(params.targets, params.reason, params.deadline_seconds)
        self.shutdown_run = self.shutdown.run
        self.show_shutdown()

    def _ask_running_lead(self, params, only: str | None) -> bool:
        """A teamtui lead in another process runs this native team: ask it, as `teamtui shutdown`
        does, rather than write shutdown requests in its name (and race its drain for the replies)."""
        import os

        from teamtui.protocol.native.leadpid import ask_lead_to_shut_down, running_lead

        assert self.store is not None
        pid = running_lead(self.store)
        if pid is None or pid == os.getpid():
            return False
        sender = self.store.outgoing_sender(self.sender)
        try:
            request = ask_lead_to_shut_down(self.store, sender, params.reason, params.deadline_seconds, [only] if only else [])
        except Exception as exc:  # noqa: BLE001 - say it, keep the dashboard
            self._toast("Shutdown not asked: ", str(exc), "error")
            return True
        who = only or "the team"
        self._toast(f"Asked the lead (pid {pid}) to shut down ", who, "information",
                    suffix=f"; it writes the summary to shutdown/{request}.json")
        return True

    @on(ShutdownPanesSeen)
    def _shutdown_panes_seen(self, message: ShutdownPanesSeen) -> None:
        if isinstance(self.shutdown, AskLeadShutdown):
            self.shutdown.panes_seen(message.open_panes)

    @on(ShutdownProgress)
    def _shutdown_progress(self, message: ShutdownProgress) -> None:
        run = message.run
        if run is None:
            self.notify("The lead did not start a shutdown (the team may already be stopping).", severity="warning")
            return
        first = self.shutdown_run is None or self.shutdown_run.started_at != run.started_at
        self.shutdown_run = run
        for name in message.changed:
            t = run.teammates[name]
            self._toast("Shutdown: ", name, "information" if t.outcome.value == "clean" else "warning", suffix=f" {t.outcome.value}")
        if message.error:
            self._toast("", message.error, "error")
        if first and getattr(run, "note", ""):
            self._toast("Shutdown: ", run.note, "information")
        if message.offer_panes:
            self._offer_panes(message.offer_panes, message.offer_title, message.offer_why)
        if run.done and not self._shutdown_announced:
            self._shutdown_announced = True
            counts = ", ".join(f"{n} {k}" for k, n in run.summary()["outcomes"].items())
            self.notify(f"Shutdown finished: {counts}", severity="information", markup=False)
        if self._shutdown_view is not None and self._shutdown_view.is_attached:
            self._shutdown_view.show_run(run, self._tasks())
        elif first:
            self.show_shutdown()

    def _offer_panes(self, panes: dict[str, str], title: str = "", why: str = "") -> None:
        """Close the panes of the teammates still there (at the deadline, or left with their pane
        kept), if the person says so."""
        from teamtui.tui.screens.confirm_panes import ClosePanesConfirm

        def answered(yes: bool | None) -> None:
            if yes and self.shutdown is not None:
                self.shutdown.close_panes(list(panes))

        words = {"title": title, "why": why} if title else {}
        self.app.push_screen(ClosePanesConfirm(panes, **words), answered)

    def _tasks(self) -> list:
        return list(self.state.tasks.values()) if self.state is not None else []

    def show_shutdown(self, run: ShutdownRun | None = None) -> None:
        """Open the view of the current shutdown run (or of `run`, which becomes the current one)."""
        from teamtui.tui.screens.shutdown_view import ShutdownView

        if run is not None:
            self.shutdown_run = run
        if self.shutdown_run is None:
            return
        view = ShutdownView(self.shutdown_run, self._tasks(), clock=self.now, palette=self.palette)
        self._shutdown_view = view
        self.app.push_screen(view, lambda _r: setattr(self, "_shutdown_view", None))

    def on_unmount(self) -> None:
        self._stop.set()
        if self.shutdown is not None:
            self.shutdown.stop()
