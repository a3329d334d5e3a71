"""TeamTUI: the application around the control room. It keeps the user's settings, themes and
keymap, the terminal driver and the tmux panes; the fleet it is given (session/fleet.py) says
which teams there are, and FleetControl shows them: the overview, and a DashboardScreen per team.

There is one way in: every way of opening teamtui (one team, a root, every team, other machines)
hands it a Fleet; a single team is a fleet of one, opened at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from teamtui.protocol.keymap import checked_keymap
from teamtui.protocol.model import TeamModel
from teamtui.protocol.settings import Settings, config_path as default_config_path, load_settings, save_theme
from teamtui.protocol.shutdown import ShutdownRun
from teamtui.session.fleet import Fleet, first_of
from teamtui.session.shutdown import OnShutdown
from teamtui.session.team import TeamSession
from teamtui.tmux.api import NullPanes, TeammatePanes
from teamtui.tui.collector import QuietCollector
from teamtui.tui.commands import TeamCommands
from teamtui.tui.controllers.fleet_control import FleetControl
from teamtui.tui.keys import INTERRUPT
from teamtui.tui.messages import AnswerRequested, FleetChanged, LeadMessagesDrained
from teamtui.tui.safe import inert
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.screens.leave_lead import KEEP, STOP, Leading, LeaveLead
from teamtui.tui.themes import load_themes

if TYPE_CHECKING:
    from typing import TypedDict

    from teamtui.protocol.layout import LayoutName
    from teamtui.tui.screens.search import SearchScreen

    class AppOptions(TypedDict, total=False):
        """TeamTUI's keyword options, as a caller that makes the app for a lead passes them on."""

        panes: TeammatePanes | None
        log_limit: int | None
        config_path: Path | None
        clock: Callable[[], float] | None
        cursor_blink: bool
        sync_panes: bool
        notice: str
        leading: Leading | None


# A feed that failed starts again after this long (a failure that repeats costs one toast a second).
FEED_RESTART_AFTER = 1.0
# A batch bringing this many teams at once (a source's first screen) is frozen out of full collections.
MANY_TEAMS = 100


class TeamTUI(App[str | None]):
    CSS_PATH = "app.tcss"
    TITLE = "teamtui"
    COMMANDS = {TeamCommands}
    ENABLE_COMMAND_PALETTE = True
    # Below 100 columns (a dashboard beside its teammates' tmux panes) the columns stack:
    # side by side, the team table and the logs would both be cut.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # 80x24: the other teammates' logs give way
    # The control room's keys on a team's screen.
    BINDINGS = [
        Binding("escape", "overview", "Overview", id="overview"),
        Binding("right_square_bracket", "next_team", "Next team", id="next_team", show=False),
        Binding("left_square_bracket", "previous_team", "Previous team", id="previous_team", show=False),
        Binding("z", "mute", "Mute", id="mute", show=False),
        INTERRUPT,  # on the full screens without one of their own (changes, timeline): Textual's only hinted at ctrl+q
    ]

    def __init__(
        self,
        fleet: Fleet,
        *,
        focus: str | None = None,
        panes: TeammatePanes | None = None,
        log_limit: int | None = None,
        config_path: Path | None = None,
        clock: Callable[[], float] | None = None,
        cursor_blink: bool = True,
        sync_panes: bool = True,
        notice: str = "",
        leading: Leading | None = None,
    ):
        """`fleet`: every team to show. `focus`: the team asked for by name (--team, run, demo): its
        dashboard opens as soon as it is there; with one team, no focus and no other machine asked for, that team's does.
        `leading`: this process leads that team (run, demo): quitting asks what becomes of it."""
        self.config_path = config_path or default_config_path()
        self.settings: Settings = load_settings(self.config_path)
        self.loaded_themes = load_themes()
        super().__init__()
        self.panes: TeammatePanes = panes or NullPanes()
        self.startup_notice = notice
        self.leading = leading
        # What q and ctrl+c are called where they do more than quit (keys.described).
        self.key_words: dict[str, dict[str, str]] = leading.key_words() if leading is not None else {}
        self.clock = clock or fleet.clock
        # Called after each feed batch with (changes, seconds reading files, seconds updating widgets): for benchmarks.
        self.on_batch: Callable[[list, float, float], None] | None = None
        self._panes_closed = False
        self._collector: QuietCollector | None = None  # full garbage collections, when nobody types
        self.terminal_driver: Driver | None = (
            None  # the driver that owns the terminal, once it says so (driver_started)
        )
        self.log_limit, self.cursor_blink, self.sync_panes = (
            int(log_limit or self.settings.log_lines),
            cursor_blink,
            sync_panes,
        )
        self.overview = FleetScreen(clock=fleet.clock, looking_for=focus)  # the default screen: the room
        self.fleet: FleetControl[DashboardScreen] = FleetControl(
            self,
            fleet,
            overview=self.overview,
            new_dashboard=self._new_dashboard,
            show_team=self._show_team,
            panes=self.panes,
            settings=self.settings,
            terminal_write=self.terminal_write,
            focus=focus,
            cursor_blink=cursor_blink,
        )
        if self.fleet.searches_hosts:  # `/` in the room searches the hosts' histories too
            self.overview.search_hosts = self.fleet.search_hosts
        for theme in self.loaded_themes.themes:
            self.register_theme(theme)
        # Chosen before the first screen is composed: its palette is built from this theme.
        self.theme = self._initial_theme()
        keymap, problems = checked_keymap(self.settings.keymap, self.config_path)
        self.settings.problems.extend(problems)  # said once, as the config's other problems are
        self.user_keymap: dict[str, str] = keymap  # the help names the keys as remapped
        if keymap:
            self.set_keymap(keymap)

    @classmethod
    def watching(
        cls,
        root: Path,
        team: str | None = None,
        layout: LayoutName | None = None,
        *,
        config_path: Path | None = None,
        clock: Callable[[], float] | None = None,
        health_timeout: float | None = None,
        log_limit: int | None = None,
        on_shutdown: OnShutdown | None = None,
        hooks: Path | None = None,
        **kw: Any,
    ) -> TeamTUI:
        """The app on the teams under one root only (its one team opened at once): what the
        screenshots and the tests look at. `on_shutdown`: this process leads `team` (as `run` does);
        `hooks`: the spool of this machine's hooks, whose permission requests the room answers."""
        import os

        from teamtui.session.fleet import open_fleet

        settings = load_settings(config_path or default_config_path())
        fleet = open_fleet(
            settings,
            roots=[root],
            cwd=root,
            team=team,
            layout=layout,
            only_root=root,
            log_limit=log_limit,
            health_timeout=health_timeout,
            clock=clock or time.time,
            on_shutdown=on_shutdown,
            lead_of=(os.path.realpath(root), team) if on_shutdown is not None and team is not None else None,
            hooks=hooks,
        )
        return cls(fleet, focus=team, config_path=config_path, clock=clock, log_limit=log_limit, **kw)

    def get_default_screen(self) -> Screen:
        return self.overview

    def on_mount(self) -> None:
        if self.startup_notice:
            self.notify(inert(self.startup_notice), title="panes", markup=False)
        for problem in self.settings.problems + self.loaded_themes.problems:
            self.notify(inert(problem), title="config", severity="warning", markup=False)
        self._collector = QuietCollector(asyncio.get_running_loop())
        self._collector.start()
        self.fleet.start()
        self._follow()

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if f"{driver.__module__}.{driver.__qualname__}" != "textual.drivers.linux_driver.LinuxDriver":
            return driver  # Windows, or TEXTUAL_DRIVER: as Textual chose
        from teamtui.tui.driver import HangupSafeDriver  # imports termios: only where it exists

        # A closed terminal must end the app, not wedge it (see teamtui/tui/driver.py).
        return HangupSafeDriver

    # ------------------------------------------------------------------ what tests and the CLI read
    @property
    def dashboard(self) -> DashboardScreen | None:
        """The team's screen last opened (None while only the overview has been shown)."""
        return self.fleet.current

    @property
    def state(self) -> TeamModel | None:
        return self.session.state if self.session is not None else None

    @property
    def session(self) -> TeamSession | None:
        return self.dashboard.session if self.dashboard is not None else None

    @property
    def selected(self) -> str | None:
        return self.dashboard.selected if self.dashboard is not None else None

    @property
    def task_query(self) -> str:
        return self.dashboard.task_query if self.dashboard is not None else ""

    @property
    def shutdown_run(self) -> ShutdownRun | None:
        return self.dashboard.shutdowns.run if self.dashboard is not None else None

    # ------------------------------------------------------------------ themes
    def _initial_theme(self) -> str:
        if self.settings.theme in self.available_themes:
            return self.settings.theme
        return "teamtui-dark" if "teamtui-dark" in self.theme_names() else "textual-dark"

    def theme_names(self) -> list[str]:
        return [t.name for t in self.loaded_themes.themes]

    def switch_theme(self, name: str) -> None:
        self.theme = name
        try:
            save_theme(name, self.config_path)
        except OSError as exc:
            self.notify(f"Theme not saved: {exc}", severity="error", markup=False)
            return
        self.notify(f"Theme {name} (saved to {self.config_path})", markup=False)

    def ingest_lead_messages(self, messages: list, recipient: str = "") -> None:
        """Messages the lead of this process drained from its own inbox (or `recipient`'s), before
        the feed could read them; callable from any thread."""
        if self.is_running:  # before the app runs, the first load reads them from the file
            self.post_message(LeadMessagesDrained(list(messages), recipient))  # post_message is thread-safe

    @on(LeadMessagesDrained)
    def _lead_messages(self, message: LeadMessagesDrained) -> None:
        self.fleet.lead_messages(message.messages, message.recipient)

    # ------------------------------------------------------------------ the control room
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "overview" and not isinstance(self.screen, DashboardScreen):
            return False
        return True

    @work(name="The fleet's feed", group="fleet", exclusive=True, exit_on_error=False)
    async def _follow(self) -> None:
        """Post each batch of the fleet's feed, and ask for the next once it is on screen."""
        stop = self.fleet.stopping
        async for batch in self.fleet.fleet.follow(stop):
            shown = asyncio.Event()
            self.post_message(FleetChanged(batch, shown))
            await first_of(shown, stop)

    def on_fleet_changed(self, message: FleetChanged) -> None:
        t1 = time.perf_counter()
        try:
            self.fleet.changed(message.batch)
        finally:
            self.call_after_refresh(message.shown.set)  # the feed asks for the next once this is drawn
        if len(message.batch.appeared) >= MANY_TEAMS and self._collector is not None:
            self.call_after_refresh(self._collector.loaded)  # once they are on screen
        if self.on_batch is not None:
            changes = [c for b in message.batch.changes.values() for c in b.changes]
            self.on_batch(changes, message.batch.read_seconds, time.perf_counter() - t1)

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        """The one place the app's workers' errors are handled: said on screen, never silent; the
        fleet's feed starts again (its first batch re-reads what changed meanwhile), at most once a second."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            self.notify(f"{worker.name or 'A task'} failed: {worker.error}", severity="error", markup=False)
            if worker.group == "fleet" and not self.fleet.stopping.is_set():
                self.set_timer(FEED_RESTART_AFTER, self._follow)

    @on(FleetScreen.OpenTeam)
    def _open_team(self, message: FleetScreen.OpenTeam) -> None:
        self.fleet.open_team(message.key, message.need)

    def on_search_screen_chosen(self, message: SearchScreen.Chosen) -> None:
        """A result of the room's search (screens/search.py SearchScreen.Chosen, by its handler's
        name: the search screen loads only when `/` is pressed)."""
        self.fleet.open_hit(message.hit)

    @on(FleetScreen.DismissNeed)
    def _dismiss_need(self, message: FleetScreen.DismissNeed) -> None:
        self.fleet.dismiss(message.need)

    @on(AnswerRequested)
    def _answer_requested(self, message: AnswerRequested) -> None:
        self.fleet.answering.start(message.need)

    # ------------------------------------------------------------------ the screens
    def _new_dashboard(self) -> DashboardScreen:
        """A team's screen (FleetControl keeps it, with its state, while the person looks elsewhere)."""
        screen = DashboardScreen(
            panes=self.panes,
            clock=self.fleet.fleet.clock,
            log_limit=self.log_limit,
            cursor_blink=self.cursor_blink,
            sync_panes=self.sync_panes,
        )
        self.install_screen(screen, name=f"team-{len(self.fleet.dashboards) + 1}")
        return screen

    def _show_team(self, screen: DashboardScreen, then: Callable[[], None] | None) -> None:
        """`screen` in place of the room or of the team's screen shown; `then()` once it is drawn."""
        if self.screen is self.overview or not isinstance(self.screen, DashboardScreen):
            self.push_screen(screen)
        else:
            self.switch_screen(screen)
        self.refresh_bindings()  # escape and ] / [ now mean something
        screen.call_after_refresh(lambda: screen.show_muted(self.fleet.muted_until))
        if then is not None:
            screen.call_after_refresh(then)

    def action_overview(self) -> None:
        if isinstance(self.screen, DashboardScreen):
            self.pop_screen()
            self.sub_title = ""
            self.refresh_bindings()
            if self.sync_panes:  # the overview is no team's: its follow panes close (adopted ones stay)
                self.panes.sync([])

    def action_next_team(self) -> None:
        self.fleet.step(1)

    def action_previous_team(self) -> None:
        self.fleet.step(-1)

    def action_mute(self) -> None:
        self.fleet.toggle_mute()

    def driver_started(self, driver: Driver) -> None:
        """Our driver (HangupSafeDriver) makes itself known: the bytes of `terminal_write` go through it."""
        self.terminal_driver = driver

    def terminal_write(self, data: str) -> None:
        """Bytes for the terminal (a bell, a desktop notification) through the driver that owns it;
        callable from any thread (the driver hands them to its writer thread)."""
        driver = self.terminal_driver
        if driver is not None and not self.is_headless:
            driver.write(data)

    # ------------------------------------------------------------------ leaving
    async def action_quit(self) -> None:
        """Quit; on the team this process leads (`teamtui run`), first ask: stop it, keep it
        running headless (the app returns KEEP), or stay. The demo's team just stops."""
        leading = self.leading
        if leading is not None and not leading.simulated and leading.running():
            if not isinstance(self.screen, LeaveLead):  # asked already: a second q or ctrl+c waits for the answer
                self.push_screen(LeaveLead(leading), self._leave_chosen)
            return
        self.close_panes()
        self.exit()

    def _leave_chosen(self, choice: str | None) -> None:
        if choice in (STOP, KEEP):
            self.close_panes()
            self.exit(KEEP if choice == KEEP else None)

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
        self.fleet.stop()
        self.close_panes()
        if self._collector is not None:
            self._collector.stop()
