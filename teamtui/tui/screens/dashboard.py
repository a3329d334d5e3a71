"""The dashboard: one team session's panels and the keys that act on it. The session (teamtui/session)
owns the team; this screen composes the widgets, routes each batch of changes to the panels it
concerns (controllers/panels.py) and turns keys into the session's actions (the other controllers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from teamtui.protocol.changes import Change, ChangeKind
from teamtui.session.alerts import Need
from teamtui.session.team import TeamSession
from teamtui.tmux.api import TeammatePanes
from teamtui.tui.controllers.health_watch import HealthWatch
from teamtui.tui.controllers.key_guard import KeyGuard
from teamtui.tui.controllers.messaging import MessageDialogs
from teamtui.tui.controllers.needs import NeedsFlow
from teamtui.tui.controllers.pane_jumps import PaneJumps
from teamtui.tui.controllers.panels import TASK_KINDS, Panels
from teamtui.tui.controllers.shutdown_flow import ShutdownFlow
from teamtui.tui.controllers.task_filter import TaskFilter
from teamtui.tui.controllers.views import Views
from teamtui.tui.keys import DASHBOARD_KEYS, action_keys
from teamtui.tui.messages import PanesChanged, ShutdownProgress
from teamtui.tui.palette import Palette
from teamtui.tui.widgets.drift import DriftLine
from teamtui.tui.widgets.filter import FilterInput
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.logs import LogStrip, TeammateLog
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from teamtui.tui.widgets.painted import Painted
from teamtui.tui.widgets.problems import ProblemList
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

if TYPE_CHECKING:
    from teamtui.protocol.history.search import SearchHit

P = TypeVar("P", bound=Painted)
K = ChangeKind
TEAM_KINDS = {K.CONFIG, K.MEMBER_JOINED, K.MEMBER_LEFT, K.MEMBER_STATUS}
INBOX_KINDS = {K.INBOX, K.INBOX_READ}
HEADER_KINDS = TEAM_KINDS | TASK_KINDS | {K.ERROR, K.ERROR_CLEARED, K.TEAM_GONE}
# Relative times ("12s ago") are redrawn this often; no file is read for it.
RELATIVE_TIME_REFRESH = 5.0


class DashboardScreen(Screen[None]):
    palette: reactive[Palette] = reactive(Palette, init=False)
    selected: reactive[str | None] = reactive(None, init=False)  # the teammate whose log is shown
    BINDINGS = [*DASHBOARD_KEYS]
    ACTION_OF = {b.id: b.action for b in DASHBOARD_KEYS}

    def __init__(
        self,
        *,
        panes: TeammatePanes,
        clock: Callable[[], float],
        log_limit: int,
        cursor_blink: bool = True,
        sync_panes: bool = True,
    ):
        super().__init__()
        self.panes = panes
        self.now = clock
        self.log_limit = log_limit
        self.cursor_blink = cursor_blink
        self.session: TeamSession | None = None
        self._standing: tuple[bool, str] = (True, "")  # (live, read_only) when the keys were last dimmed
        self.task_query = ""
        self.panes_waiting: tuple[str, ...] = ()  # teammates with no pane until selected (the pane budget)
        self.panels = Panels(self)
        self.shutdowns = ShutdownFlow(self)
        self.messaging = MessageDialogs(self, self.panels.log_title)
        self.health = HealthWatch(self, self.panels)
        self.pane_jumps = PaneJumps(self, panes, sync_panes)
        self._painted_widgets: list[Painted] = []  # the panels drawn in the screen's palette
        self._clock: Timer | None = None  # moves the relative times on
        self.views = Views(self, self.panels)  # changes, timeline, a task's detail, the help
        self.needs = NeedsFlow(
            self, self.panels, self.pane_jumps.open_request
        )  # the strip's items, and where choosing one leads
        self.guard = KeyGuard(self)  # the writing keys, while the team cannot take them
        self.task_filter = TaskFilter(self, self.panels)  # "/": the board's rows by what they say
        self.log_main = TeammateLog(limit=log_limit, id="log-main")  # the selected teammate's (Panels.main_log)
        self.room_needs: list[Need] = []  # what the room found this team needs (FleetControl.look)

    # ------------------------------------------------------------------ what the app and tests read
    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        # The palette is complete before any panel exists: a panel may draw before its first
        # message is handled, and the order of those differs between Python versions.
        self.set_reactive(DashboardScreen.palette, team_palette(self.app, self.session))
        painted = self._painted
        yield painted(TeamHeader(id="header"))
        yield painted(DriftLine(id="drift"))
        yield ProblemList(id="problems")
        yield painted(NeedsYouStrip(id="needs-you"))
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield painted(TeamPanel(id="team"))
                with Vertical(id="board"):
                    yield FilterInput(placeholder=FilterInput.IDLE, id="task-filter")
                    yield painted(TaskBoard(id="tasks"))
            with Vertical(id="right"):
                yield painted(self.log_main)
                yield painted(LogStrip(limit=self.log_limit, id="log-strip"))
                yield painted(MessageTraffic(id="messages"))
        yield KeyFooter()

    def _painted(self, widget: P) -> P:
        """`widget` in the screen's palette from its first frame, and in each palette after it."""
        widget.set_reactive(Painted.palette, self.palette)
        self._painted_widgets.append(widget)
        return widget

    @property
    def drawable(self) -> bool:
        """The panels are all there: news arriving while the screen is taken down draws nothing."""
        return self.is_attached and bool(self._painted_widgets) and all(w.is_attached for w in self._painted_widgets)

    def watch_palette(self, palette: Palette) -> None:
        # Handed over at once, not through a data binding: a binding starts a moment after its
        # widget mounts (later on 3.12+), and a panel drawn before then kept the old colours.
        for widget in self._painted_widgets:
            widget.palette = palette

    def watch_selected(self) -> None:
        if self.session is not None:
            self.panels.main_log()

    def on_mount(self) -> None:
        if not self.drawable:
            return  # pushed while the app closes: its parts never came
        self.query_one(TeamPanel).border_title = "Team"
        self.query_one(TaskBoard).border_title = "Tasks"
        self.query_one(MessageTraffic).border_title = "Messages"
        self.query_one(FilterInput).cursor_blink = self.cursor_blink
        self.palette = team_palette(self.app, self.session)
        self.watch(self.app, "theme", self._theme_changed, init=False)
        # The panes work on a thread of their own and only post what they have to say.
        self.panes.listen(lambda news: self.post_message(PanesChanged(news)))  # post_message is thread-safe
        if self.session is not None:
            self._show_team()

    def _theme_changed(self, _theme: str) -> None:
        self.palette = team_palette(self.app, self.session)
        if self.session is not None:
            self.panels.all()

    def show_muted(self, until: float | None) -> None:
        """The room's notifications muted until `until` (None: on), in the header."""
        if self.is_mounted and self.drawable and self.session is not None:
            self.query_one(TeamHeader).muted_until = until
            self.panels.header()

    # ------------------------------------------------------------------ the team
    def open_session(self, session: TeamSession) -> None:
        """Show `session`, read and fed already by its source (the app may hand it over before the
        panels exist: they show it once mounted)."""
        self.session = session
        if self.is_mounted:
            self._show_team()
        else:  # dialogs opened before the panels exist draw in it too; the panels bind to it when composed
            self.palette = team_palette(
                self.app, self.session
            )  # a set_reactive here would keep it from panels composed already

    def _show_team(self) -> None:
        assert self.session is not None
        self.palette = self.palette.with_members(team_palette(self.app, self.session).members)
        self.panels.all()
        self._standing = (self.session.live, self.session.read_only)
        self.refresh_bindings()  # a team that takes nothing (ended, a workflow run): its keys dim
        self.call_after_refresh(self.pane_jumps.sync)  # the first screen never waits for panes
        self.query_one(TeamPanel).focus()
        if self._clock is None:  # the screen's one clock, however often a team is shown on it
            self._clock = self.set_interval(RELATIVE_TIME_REFRESH, self.health.times_moved)
        if not self.session.live:
            return  # from the journal: nothing on disk to follow
        self.health.check(say=False)

    def in_background(self, work: Callable[[], object], done: Callable[[object], None]) -> None:
        """`work` (tmux, /proc) off the UI loop, then `done(result)` back on it."""
        self.run_worker(
            lambda: self.app.call_from_thread(done, work()), thread=True, group="background", exit_on_error=False
        )

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A background job of this screen (tmux, /proc) failed: said, never silent."""
        if event.state == WorkerState.ERROR:
            self.notify(f"Could not finish: {event.worker.error}", severity="error", markup=False)

    @on(ShutdownProgress)
    def _shutdown_progress(self, message: ShutdownProgress) -> None:
        if self.drawable:
            self.shutdowns.progress(message.news)

    def apply_changes(self, changes: list[Change], full: bool = False) -> None:
        """Redraw the panels `changes` concern, and tell the person what they should know."""
        session = self.session
        assert session is not None
        kinds = {c.kind for c in changes}
        if (session.live, session.read_only) != self._standing:
            self._standing = (session.live, session.read_only)
            self.refresh_bindings()  # it has just ended (or a host went away): the keys that cannot work dim
        if full or kinds & TEAM_KINDS:
            self.palette = self.palette.with_members(team_palette(self.app, self.session).members)
        if full or kinds & HEADER_KINDS:
            self.panels.header(gone=K.TEAM_GONE in kinds)
        elif K.DRIFT in kinds:
            self.panels.drift()  # the transcripts hold something teamtui does not know
        log_only = not full and kinds <= {K.LOG, K.DRIFT}
        if not log_only:
            self.panels.team()
        elif kinds:
            self.health.activity()  # log lines only move "Active" (and may clear a health flag)
        if full or kinds & TEAM_KINDS:
            self.panels.log_strip()
            self.pane_jumps.sync()
        if full or kinds & TASK_KINDS:
            self.panels.board(None if full else changes)
        if full or kinds & INBOX_KINDS:
            self.panels.messages()
        for c in changes:
            self.panels.tell(c)
        if session.state.transcripts is not None and (full or kinds & (INBOX_KINDS | TEAM_KINDS | {K.TEAM_GONE})):
            self.panels.needs_you()
        self.shutdowns.observe(kinds, full)
        if not log_only or any(c.key in session.disappeared for c in changes):
            self.health.check()  # a flagged teammate that logs is cleared at once
        if K.FILES in kinds and session.state.transcripts is not None:
            self.panels.needs_you()  # two teammates on one file
        if self.views.changes_view is not None:
            self.views.changes_view.team_changed(kinds, full)

    # ------------------------------------------------------------------ panes and what needs you
    @on(PanesChanged)
    def _panes_changed(self, message: PanesChanged) -> None:
        if self.pane_jumps.news(message.news):
            self.panels.team()

    def show_room_needs(self, needs: list[Need]) -> None:
        self.needs.room_needs(needs)

    def action_answer(self) -> None:
        self.needs.answer()

    @on(NeedsYouStrip.Chosen)
    def _needs_you_chosen(self, message: NeedsYouStrip.Chosen) -> None:
        self.needs.chosen(message.item)

    def go_to_need(self, member: str, kind: str) -> None:
        self.needs.go_to(member, kind)

    def go_to_hit(self, hit: SearchHit) -> None:
        """Opened from the room's search: at the item's teammate, and the item itself where this
        screen has a view of it."""
        if hit.who:
            self.panels.select(hit.who)
        self.views.hit(hit)

    def on_screen_resume(self) -> None:
        self.pane_jumps.sync()  # the panes follow the team on screen

    def action_needs_you(self) -> None:
        self.needs.focus()

    @on(TeamPanel.TeammateHighlighted)
    def _teammate_highlighted(self, message: TeamPanel.TeammateHighlighted) -> None:
        self.selected = message.name

    @on(TaskBoard.TaskChosen)
    def _task_chosen(self, message: TaskBoard.TaskChosen) -> None:
        self.views.task(message.task_id)

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if self.guard.unavailable(action) else True  # None: dimmed in the footer

    @on(events.Key)
    def _dimmed_key(self, event: events.Key) -> None:
        self.guard.pressed(event)

    def action_message(self) -> None:
        self.guard.typing_elsewhere()
        name = self.guard.selected_member()
        if name is not None:
            self.messaging.message(name)

    def action_broadcast(self) -> None:
        self.guard.typing_elsewhere()
        self.messaging.broadcast()

    @on(TeamPanel.TeammateChosen)
    def action_focus_teammate(self) -> None:
        name = self.guard.selected_member()
        if name is not None:
            self.selected = name
            self.pane_jumps.focus(name)

    def action_filter_tasks(self) -> None:
        self.guard.typing_elsewhere()
        self.task_filter.open()

    @on(FilterInput.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        self.task_filter.changed(event.value)

    @on(FilterInput.Closed)
    def _filter_closed(self, message: FilterInput.Closed) -> None:
        self.task_filter.close(message.clear)

    def action_changes(self, focus: str | None = None) -> None:
        self.views.changes(focus)

    def action_toggle_panes(self) -> None:
        self.pane_jumps.toggle()

    def action_timeline(self) -> None:
        self.views.timeline()

    def action_help(self) -> None:
        self.views.help(action_keys(self.app))

    def action_shutdown_team(self) -> None:
        self.shutdowns.confirm(None)

    def action_shutdown_teammate(self) -> None:
        name = self.guard.selected_member()
        if name is not None:
            self.shutdowns.confirm(name)

    def on_unmount(self) -> None:
        self.shutdowns.stop()


def team_palette(app: App[object], session: TeamSession | None) -> Palette:
    """The current theme's colours, with the team's members' own."""
    state, members = session.state if session is not None else None, {}
    if state is not None and state.config is not None:
        members = {m.name: m.color for m in state.departed.values()}
        members.update((m.name, m.color) for m in state.config.members)
    return Palette.of(app.current_theme, app.get_css_variables(), members)
