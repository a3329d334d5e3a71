"""TeamTUI: the dashboard. One file watcher feeds TeamState; each change redraws only the
panels it concerns; actions write through the protocol layer (a widget never opens a file)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.actions import SkipAction
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.driver import Driver
from textual.timer import Timer
from textual.widgets import DataTable, Input

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.layout import candidate_roots, open_team
from teamtui.protocol.models import MemberStatus
from teamtui.protocol.state import Change, TeamState
from teamtui.protocol.store import TeamStore
from teamtui.runtime.shutdown import ShutdownRun, live_teammates
from teamtui.tmux.api import NullPanes, PaneSpec, TeammatePanes
from teamtui.tmux.commands import follow_command
from teamtui.tui.collector import QuietCollector
from teamtui.tui.commands import TeamCommands
from teamtui.protocol.settings import Settings, config_path, load_settings, save_theme
from teamtui.protocol.colors import color_name
from teamtui.tui.safe import inert, safe_text
from teamtui.tui.themes import load_themes
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.logs import LogStrip, TeammateLog
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.problems import ProblemList
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

TEAM_KINDS = {"config", "member_joined", "member_left", "member_status"}
TASK_KINDS = {"task", "task_completed", "task_removed"}
INBOX_KINDS = {"inbox", "inbox_read"}
# Relative times ("12s ago") are redrawn this often; no file is read for it.
RELATIVE_TIME_REFRESH = 5.0
# Log lines move a teammate's "Active" time and health; the team table follows at most this often.
ACTIVITY_REFRESH = 1.0
# How long a routine toast stays (Textual's default, 5 s, is kept for warnings and errors).
ROUTINE_TOAST_SECONDS = 3.0


class FilterInput(Input):
    """The task filter: one line above the board, always there. Showing and hiding it would resize
    the board, and a resized table renders every visible cell again (most of a key press)."""

    BINDINGS = [Binding("escape", "done", "Done", show=False)]
    IDLE = "/ filter tasks"
    EDITING = "filter tasks: id, subject, owner, state · enter keeps it, escape clears it"

    def on_focus(self) -> None:
        self.placeholder = self.EDITING

    def on_blur(self) -> None:
        self.placeholder = self.IDLE

    def action_done(self) -> None:
        self.app.close_filter(clear=True)


class TeamTUI(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "teamtui"
    COMMANDS = {TeamCommands}
    ENABLE_COMMAND_PALETTE = True
    # Below 100 columns (a dashboard beside its teammates' tmux panes) the columns stack:
    # side by side, the team table and the logs would both be cut.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = [
        # The keys that start typing are priority: handled where the app reads its keys, before
        # the keys typed next (fast, or pasted) are routed to the widget that had focus so far.
        Binding("m", "message", "Message", id="message", priority=True),
        Binding("b", "broadcast", "Broadcast", id="broadcast", priority=True),
        Binding("enter", "focus_teammate", "Focus", id="focus_teammate"),
        Binding("slash", "filter_tasks", "Filter", id="filter_tasks", priority=True),
        Binding("x", "shutdown_teammate", "Stop mate", id="shutdown_teammate"),
        Binding("S", "shutdown_team", "Stop team", id="shutdown_team"),
        Binding("t", "toggle_panes", "Panes", id="toggle_panes"),
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
        "help": "Help: keys",
        "quit": "Quit",
        "interrupt": "Quit",
    }
    ACTION_OF = {b.id: b.action for b in BINDINGS}

    def __init__(
        self,
        root: Path | None = None,
        team: str | None = None,
        layout: str | None = None,
        *,
        panes: TeammatePanes | None = None,
        health_timeout: float | None = None,
        log_limit: int | None = None,
        config_path: Path | None = None,
        store: TeamStore | None = None,
        clock: Callable[[], float] | None = None,
        cursor_blink: bool = True,
        sync_panes: bool = True,
        notice: str = "",
        on_shutdown: Callable[[str, float], ShutdownRun | None] | None = None,
    ):
        self.config_path = config_path or _default_config_path()
        self.settings: Settings = load_settings(self.config_path)
        self.loaded_themes = load_themes()
        super().__init__()
        self.root = Path(root) if root is not None else None
        self.team_name = team
        self.layout_name = layout
        self.panes: TeammatePanes = panes or NullPanes()
        self.health_timeout = float(health_timeout or self.settings.health_timeout)
        self.log_limit = int(log_limit or self.settings.log_lines)
        self.now: Callable[[], float] = clock or time.time
        self.cursor_blink = cursor_blink
        self.sync_panes = sync_panes
        self.startup_notice = notice
        self.store: TeamStore | None = store
        self.state: TeamState | None = None
        self.selected: str | None = None
        self.task_query = ""
        self.shutdown_run: ShutdownRun | None = None
        # Set when a lead (teamtui run/demo) drives the team shutdown: S hands it over instead of sending requests itself.
        self.on_shutdown = on_shutdown
        self._lead_owns_shutdown = False
        self._shutdown_only: str | None = None
        self._shutdown_announced = False
        self._shutdown_view = None
        self._shutdown_timer: Timer | None = None
        self._health_timer: Timer | None = None
        self._activity_timer: Timer | None = None  # armed by a log-only batch, fires once
        self._times_drawn_at: float | None = None  # the clock the team table's "Active" times are drawn at
        self._claimed: dict[str, str] = {}  # the board's claimed files when the task board was last drawn
        self._problems_shown: list | None = None
        # Called after each feed batch with (changes, seconds reading files, seconds updating widgets): for benchmarks.
        self.on_batch: Callable[[list[Change], float, float], None] | None = None
        self._disappeared: set[str] = set()
        self._stop = asyncio.Event()
        self._panes_closed = False
        self._roles: dict[str, str] = {}
        self._collector: QuietCollector | None = None  # full garbage collections, when nobody types
        for theme in self.loaded_themes.themes:
            self.register_theme(theme)
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield TeamHeader(id="header")
        yield ProblemList(id="problems")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield TeamPanel(id="team")
                with Vertical(id="board"):
                    yield FilterInput(placeholder=FilterInput.IDLE, id="task-filter")
                    yield TaskBoard(id="tasks")
            with Vertical(id="right"):
                yield TeammateLog(limit=self.log_limit, id="log-main")
                yield LogStrip(limit=self.log_limit, id="log-strip")
                yield MessageTraffic(id="messages")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.theme = self._initial_theme()
        self._roles = {}
        self.query_one("#team").border_title = "Team"
        self.query_one("#tasks").border_title = "Tasks"
        self.query_one("#messages").border_title = "Messages"
        self.query_one("#task-filter", FilterInput).cursor_blink = self.cursor_blink
        if self.startup_notice:
            self.notify(inert(self.startup_notice), title="panes", markup=False)
        for problem in self.settings.problems + self.loaded_themes.problems:
            self.notify(inert(problem), title="config", severity="warning", markup=False)
        if self.store is not None:
            self.open_store(self.store)
        else:
            self._resolve_team()

    def _initial_theme(self) -> str:
        names = self.theme_names()
        if self.settings.theme in self.available_themes:
            return self.settings.theme
        return "teamtui-dark" if "teamtui-dark" in names else "textual-dark"

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if f"{driver.__module__}.{driver.__qualname__}" != "textual.drivers.linux_driver.LinuxDriver":
            return driver  # Windows, or TEXTUAL_DRIVER: as Textual chose
        from teamtui.tui.driver import HangupSafeDriver  # imports termios: only where it exists

        # A closed terminal must end the app, not wedge it (see teamtui/tui/driver.py).
        return HangupSafeDriver

    def theme_names(self) -> list[str]:
        return [t.name for t in self.loaded_themes.themes]

    # ------------------------------------------------------------------ colors
    def watch_theme(self, _theme: str) -> None:
        self._roles = {}
        if self.state is not None:
            self.refresh_all()

    def role(self, name: str) -> str:
        if not self._roles:
            t = self.current_theme
            css = self.get_css_variables()
            for key in ("primary", "secondary", "accent", "foreground", "background", "surface", "panel", "success", "warning", "error"):
                v = getattr(t, key, None) or css.get(key) or "default"
                self._roles[key] = v
        return self._roles.get(name, "")

    def teammate(self, member_color: str, name: str) -> str:
        c = color_name(member_color, name)
        return self.loaded_themes.teammates.get(self.current_theme.name, {}).get(c, c)

    def member_color(self, name: str) -> str:
        if self.state is None or self.state.config is None:
            return ""
        m = self.state.config.member(name) or self.state.departed.get(name)
        return m.color if m else ""

    def switch_theme(self, name: str) -> None:
        self.theme = name
        try:
            save_theme(name, self.config_path)
        except OSError as exc:
            self.notify(f"Theme not saved: {exc}", severity="error", markup=False)
            return
        self.notify(f"Theme {name} (saved to {self.config_path})", markup=False)

    def action_keys(self) -> list[tuple[str, str, str]]:
        keymap = getattr(self, "_keymap", {}) or {}
        out = []
        for b in self.BINDINGS:
            key = keymap.get(b.id, b.key)
            out.append((key, self.LONG.get(b.id, b.description), b.id))
        return out

    # ------------------------------------------------------------------ finding the team
    def _resolve_team(self) -> None:
        from teamtui.protocol.discovery import find_teams
        from teamtui.tui.screens.no_team import NoTeamScreen
        from teamtui.tui.screens.picker import TeamPicker

        roots = candidate_roots(self.root)
        found = find_teams(roots, self.layout_name, self.team_name)
        if len(found) == 1:
            self._open_found(found[0])
        elif found:
            self.query_one(TeamHeader).show_message("choose a team")
            self.push_screen(TeamPicker(found), self._picked)
        else:
            self.query_one(TeamHeader).show_message("no team yet")
            self.push_screen(NoTeamScreen(roots, self.layout_name, self.team_name), self._picked)

    def _picked(self, found: tuple[Path, str] | None) -> None:
        if found is None:
            self.exit()
            return
        self._open_found(found)

    def _open_found(self, found: tuple[Path, str]) -> None:
        root, name = found
        try:
            store = open_team(root, name, self.layout_name)  # type: ignore[arg-type]
        except ProtocolError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.open_store(store)

    def open_store(self, store: TeamStore) -> None:
        self.store = store
        if not self.panes.team:  # watch without --team: the panes learn the team once it is picked
            self.panes.team = store.name
        from teamtui.protocol.journal import TeamJournal

        # Claude Code prunes delivered messages and deletes an ended team: the journal keeps them.
        journal = TeamJournal.open(store) if store.layout == "claude" else None
        self.state = TeamState(store, log_limit=self.log_limit, health_timeout=self.health_timeout, journal=journal)
        if self._collector is None:
            self._collector = QuietCollector(asyncio.get_running_loop())
        self._collector.start()
        collecting = gc.isenabled()
        gc.disable()  # the first load makes ~10^6 objects and no cycles: a collection would only rescan them
        try:
            self.state.load_all()
        finally:
            if collecting:
                gc.enable()
        self.sub_title = store.name
        self.refresh_all()
        gc.freeze()  # what the first load read lives as long as the view: no collection need rescan it
        self.query_one(TeamPanel).focus()
        self._check_health(toast=False)
        self.query_one(TeamPanel).set_interval(RELATIVE_TIME_REFRESH, lambda: self._refresh_team(tick=True))
        self.run_worker(self._feed(), group="feed", exclusive=True, exit_on_error=False)

    # ------------------------------------------------------------------ the feed
    async def _feed(self) -> None:
        assert self.store is not None and self.state is not None
        from teamtui.protocol.watch import watch_dirs

        async for batch in watch_dirs(self.store.watch_dirs(), self._stop):
            try:
                t0 = time.perf_counter()
                if batch.rescan:
                    changes = self.state.load_all()
                elif batch.ready:
                    # What changed between the first read and the watches; the stats run off the event loop.
                    stale = await asyncio.to_thread(self.state.stale_paths)
                    t0 = time.perf_counter()
                    changes = [c for p in stale for c in self.state.apply(p)]
                else:
                    changes = [c for p in sorted(batch.paths) for c in self.state.apply(p)]
                t1 = time.perf_counter()
                self.apply_changes(changes, full=batch.rescan)
                if self.on_batch is not None:
                    self.on_batch(changes, t1 - t0, time.perf_counter() - t1)
            except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the live view
                self.notify(f"Could not apply a change: {exc}", severity="error", markup=False)

    def apply_changes(self, changes: list[Change], full: bool = False) -> None:
        kinds = {c.kind for c in changes}
        if full or kinds & (TEAM_KINDS | TASK_KINDS | {"error", "error_cleared", "team_gone"}):
            self._refresh_header(gone="team_gone" in kinds)
        log_only = not full and kinds <= {"log"}
        if not log_only:
            self._refresh_team()
        elif kinds and self._activity_timer is None:
            # Log lines only move "Active" (and may clear a health flag): redraw that once a second at most.
            # The panel owns the timer: it stops with the panel, never firing into a torn-down screen.
            self._activity_timer = self.query_one(TeamPanel).set_timer(ACTIVITY_REFRESH, self._activity_tick)
        if full or kinds & TEAM_KINDS:
            self._refresh_log_strip()
            self._sync_panes()
        if full or kinds & TASK_KINDS:
            self._refresh_board(None if full or "task_removed" in kinds else {c.key for c in changes if c.kind in TASK_KINDS})
        if full or kinds & INBOX_KINDS:
            self.query_one(MessageTraffic).show(self.state.messages)
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
        if self.shutdown_run is not None and (full or kinds & INBOX_KINDS):
            self._observe_shutdown()
        if not log_only or any(c.key in self._disappeared for c in changes):
            self._check_health()  # a flagged teammate that logs is cleared at once

    def _activity_tick(self) -> None:
        self._activity_timer = None
        self._check_health()
        self._refresh_team()

    def _toast(self, prefix: str, data: str, severity: str, suffix: str = "") -> None:
        # Routine news (a task done, a teammate joined) goes sooner: a busy team would stack it over the logs.
        timeout = ROUTINE_TOAST_SECONDS if severity == "information" else None
        self.notify(prefix + inert(data) + suffix, severity=severity, markup=False, timeout=timeout)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ panels
    def refresh_all(self) -> None:
        self._refresh_header()
        self._refresh_team()
        self._refresh_log_strip()
        self._refresh_board()
        self.query_one(MessageTraffic).show(self.state.messages)
        self._show_main_log()
        self._sync_panes()

    def _refresh_header(self, gone: bool = False) -> None:
        if self.state is not None:
            self.query_one(TeamHeader).show_team(self.state, gone=gone)
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
        panel.show(self.state.member_views(now), self._times_drawn_at)
        if self.selected is None or panel.selected != self.selected:
            self.selected = panel.selected
            self._show_main_log()
        subtitle = f"{len(self._disappeared)} disappeared" if self._disappeared else ""
        if panel.border_subtitle != subtitle:  # setting it, even unchanged, redraws the panel
            panel.border_subtitle = subtitle

    def _refresh_board(self, changed: set[str] | None = None) -> None:
        """Redraw the task board: only the rows `changed` tasks can affect, else every row."""
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
        t = safe_text(name, f"bold {self.teammate(self.member_color(name), name)}")
        return t

    def _refresh_log_strip(self) -> None:
        names = [v.name for v in self.state.member_views(self.now())]
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
        if member == self.selected:
            self.query_one("#log-main", TeammateLog).sync(self.state.logs.get(member))
        self.query_one(LogStrip).append(member)

    def _sync_panes(self) -> None:
        if not self.sync_panes or not self.panes.active or self.state is None:
            return
        specs = [
            PaneSpec(
                v.name,
                color_name(v.color, v.name),
                follow_command(v.name, self.store.root, self.store.name),
                v.member.tmux_pane_id if v.member is not None else "",
            )
            for v in self.state.member_views(self.now())
            if v.status != MemberStatus.SHUTDOWN and not v.departed and v.name != self.state.lead
        ]
        try:
            self.panes.sync(specs)
        except Exception as exc:  # noqa: BLE001 - panes are a convenience: report, keep the dashboard
            self.notify(f"Panes: {exc}", severity="warning", markup=False)

    @on(DataTable.RowHighlighted, "#team")
    def _teammate_highlighted(self, event: DataTable.RowHighlighted) -> None:
        name = str(event.row_key.value) if event.row_key else None
        if name != self.selected:
            self.selected = name
            self._show_main_log()

    @on(DataTable.RowSelected, "#team")
    def _teammate_chosen(self, _event: DataTable.RowSelected) -> None:
        self.action_focus_teammate()

    @on(DataTable.RowSelected, "#tasks")
    def _task_chosen(self, event: DataTable.RowSelected) -> None:
        from teamtui.tui.screens.task_detail import TaskDetail

        if self.state is not None and event.row_key.value in self.state.board.tasks:
            self.push_screen(TaskDetail(self.state.board, str(event.row_key.value)))

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
        # Wake up exactly when the next teammate could cross the timeout.
        due = [
            v.last_activity + self.health_timeout
            for v in views
            if v.current_task is not None and not v.disappeared and not v.departed
            and v.status != MemberStatus.SHUTDOWN and v.last_activity is not None
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

    def _typing_elsewhere(self) -> None:
        """A priority key is text while an input has focus or a dialog is open: let it through."""
        if isinstance(self.screen.focused, Input) or len(self.screen_stack) > 1:
            raise SkipAction()

    def action_message(self) -> None:
        from teamtui.tui.screens.message import MessageModal

        self._typing_elsewhere()
        name = self._selected_member()
        if name is None:
            return
        title = Text("Message ", style="bold")
        title.append_text(safe_text(name, f"bold {self.teammate(self.member_color(name), name)}"))
        self.push_screen(MessageModal(title, [name]), lambda text: self._send(name, text))

    def _send(self, name: str, text: str | None) -> None:
        if text is None or self.store is None:
            return
        try:
            self.store.send(name, text, self.store.outgoing_sender(self.settings.sender))
        except Exception as exc:  # noqa: BLE001 - the user must see why nothing was written
            self._toast("Message not sent: ", str(exc), "error")
            return
        self._toast("Message written to ", name, "information", suffix="'s inbox")

    def action_broadcast(self) -> None:
        from teamtui.tui.screens.message import MessageModal

        self._typing_elsewhere()
        if self.store is None:
            return
        try:
            recipients = self.store.members_for_broadcast(self.store.outgoing_sender(self.settings.sender))
        except Exception as exc:  # noqa: BLE001
            self._toast("Cannot broadcast: ", str(exc), "error")
            return
        title = Text(f"Broadcast to {len(recipients)} teammate{'s' if len(recipients) != 1 else ''}", style="bold")
        self.push_screen(MessageModal(title, recipients), self._broadcast)

    def _broadcast(self, text: str | None) -> None:
        if text is None or self.store is None:
            return
        try:
            sent = self.store.broadcast(text, self.store.outgoing_sender(self.settings.sender))
        except Exception as exc:  # noqa: BLE001
            self._toast("Broadcast not sent: ", str(exc), "error")
            return
        self._toast("Broadcast written to ", ", ".join(sent) or "nobody", "information")

    def action_focus_teammate(self) -> None:
        name = self._selected_member()
        if name is None:
            return
        self.selected = name
        self._show_main_log()
        try:
            has_pane = self.panes.select(name)
        except Exception as exc:  # noqa: BLE001
            self._toast("Pane: ", str(exc), "warning")
            has_pane = False
        self._toast("Focused ", name, "information", suffix=" (pane selected)" if has_pane else "")

    def action_filter_tasks(self) -> None:
        self._typing_elsewhere()
        # Focus now, not after the keys already read (Widget.focus waits): "/auth" typed fast, or
        # pasted, goes into the filter instead of to the dashboard's keys ("t" toggles the panes).
        self.screen.set_focus(self.query_one("#task-filter", FilterInput))

    @on(Input.Changed, "#task-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        query = event.value.strip()
        if query != self.task_query:  # "/" then escape changes no row: rebuild none
            self.task_query = query
            if self.state is not None:
                self._refresh_board()

    @on(Input.Submitted, "#task-filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        self.close_filter(clear=False)

    def close_filter(self, clear: bool) -> None:
        f = self.query_one("#task-filter", FilterInput)
        if clear:
            f.value = ""
            if self.task_query:
                self.task_query = ""
                if self.state is not None:
                    self._refresh_board()
        self.query_one(TaskBoard).focus()

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
            self._show_shutdown_view()
            return
        targets = live_teammates(self.state, only)
        if not targets:
            who = inert(only) if only else "the team"
            self.notify(f"Nobody to shut down: {who} has no live teammate.", severity="warning", markup=False)
            return
        title = f"Shut down {inert(only)}" if only else f"Shut down team {inert(self.state.name)}"
        self._shutdown_only = only
        self.push_screen(ShutdownConfirm(title, targets), self._start_shutdown)

    def _start_shutdown(self, params) -> None:
        if params is None or self.store is None:
            return
        if self.on_shutdown is not None and self._shutdown_only is None:
            self._hand_shutdown_to_lead(params.reason, params.deadline_seconds)
            return
        self._lead_owns_shutdown = False
        run = ShutdownRun(
            self.store, params.targets, sender=self.store.outgoing_sender(self.settings.sender), reason=params.reason,
            deadline_seconds=params.deadline_seconds, clock=self.now,
        )
        run.start()
        self.shutdown_run = run
        self._shutdown_timer = self.set_timer(params.deadline_seconds, self._shutdown_deadline)
        self._show_shutdown_view()
        self._observe_shutdown()

    def _hand_shutdown_to_lead(self, reason: str, deadline: float) -> None:
        assert self.on_shutdown is not None
        try:
            run = self.on_shutdown(reason, deadline)
        except Exception as exc:  # noqa: BLE001 - the lead is gone: say so, keep the dashboard
            run = None
            self._toast("Shutdown not started: ", str(exc), "error")
        if run is None:
            self.notify("The lead did not start a shutdown (the team may already be stopping).", severity="warning")
            return
        self.shutdown_run = run
        self._lead_owns_shutdown = True
        self._shutdown_announced = False
        # The lead observes replies and climbs the ladder; the view only follows its run.
        self._shutdown_timer = self.set_interval(0.25, self._after_shutdown_update)
        self._show_shutdown_view()

    def ingest_lead_messages(self, messages: list) -> None:
        """Messages the lead drained from its own inbox (called from the lead's thread via call_from_thread)."""
        if self.state is None:
            return
        self.apply_changes(self.state.ingest(self.state.lead, messages))

    def _show_shutdown_view(self) -> None:
        from teamtui.tui.screens.shutdown_view import ShutdownView

        if self.shutdown_run is None:
            return
        view = ShutdownView(self.shutdown_run)
        self._shutdown_view = view
        self.push_screen(view, lambda _r: setattr(self, "_shutdown_view", None))

    def _observe_shutdown(self) -> None:
        run = self.shutdown_run
        if self._lead_owns_shutdown:
            self._after_shutdown_update()
            return
        if run is None or self.state is None or run.finished_at is not None and run.results_written:
            return
        for name in run.observe(self.state.shutdown_replies()):
            t = run.teammates[name]
            sev = "information" if t.outcome.value == "clean" else "warning"
            self._toast("Shutdown: ", name, sev, suffix=f" {t.outcome.value}")
        self._after_shutdown_update()

    def _shutdown_deadline(self) -> None:
        run = self.shutdown_run
        if run is None:
            return
        # The timer fires at the deadline, whatever the display clock says.
        for name in run.expire(now=run.deadline_at):
            self._toast("Shutdown: ", name, "warning", suffix=" timed out")
        self._after_shutdown_update()

    def _after_shutdown_update(self) -> None:
        run = self.shutdown_run
        if run is None:
            return
        if self._lead_owns_shutdown:
            if run.done and not self._shutdown_announced:
                self._shutdown_announced = True
                if self._shutdown_timer is not None:
                    self._shutdown_timer.stop()
                counts = ", ".join(f"{n} {k}" for k, n in run.summary()["outcomes"].items())
                self.notify(f"Shutdown finished: {counts}", severity="information", markup=False)
        elif run.done and not run.results_written and run.finished_at is not None:
            if self._shutdown_timer is not None:
                self._shutdown_timer.stop()
            try:
                run.write_results(list(self.state.tasks.values()))
            except Exception as exc:  # noqa: BLE001
                self._toast("Shutdown result not written: ", str(exc), "error")
            counts = ", ".join(f"{n} {k}" for k, n in run.summary()["outcomes"].items())
            self.notify(f"Shutdown finished: {counts}", severity="information", markup=False)
        if self._shutdown_view is not None and self._shutdown_view.is_attached:
            self._shutdown_view.refresh_run()

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

        self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        self._stop.set()
        self.close_panes()
        self.exit()

    def close_panes(self) -> None:
        """Close every pane this dashboard opened; safe to call more than once."""
        if self._panes_closed:
            return
        self._panes_closed = True
        try:
            self.panes.close_all()
        except Exception:  # noqa: BLE001 - exiting: nothing left to tell the user through
            pass

    async def on_event(self, event: events.Event) -> None:
        if self._collector is not None and isinstance(event, (events.Key, events.MouseDown)):
            self._collector.user_input()  # full collections wait until the user pauses
        await super().on_event(event)

    def on_unmount(self) -> None:
        self._stop.set()
        self.close_panes()
        if self._collector is not None:
            self._collector.stop()


def _default_config_path() -> Path:
    return config_path()
