"""TeamTUI: the application around the dashboard. It keeps the user's settings, themes and
keymap, the terminal driver and the tmux panes, finds the team, and hands it to the
DashboardScreen, which owns everything shown about it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.layout import candidate_roots, open_team
from teamtui.protocol.settings import Settings, config_path as default_config_path, load_settings, save_theme
from teamtui.protocol.shutdown import ShutdownRun
from teamtui.protocol.state import TeamState
from teamtui.protocol.store import TeamStore
from teamtui.session.alerts import Need
from teamtui.session.fleet import FleetSession
from teamtui.session.shutdown import OnShutdown
from teamtui.session.team import TeamSession
from teamtui.tmux.api import NullPanes, TeammatePanes
from teamtui.tui.collector import QuietCollector
from teamtui.tui.commands import TeamCommands
from teamtui.tui.keys import checked_keymap
from teamtui.tui.messages import FleetChanged, LeadMessagesDrained
from teamtui.tui.safe import inert
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.themes import load_themes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.remote import HostsFleet
    from teamtui.tui.controllers.fleet_control import FleetControl


class TeamTUI(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "teamtui"
    COMMANDS = {TeamCommands}
    ENABLE_COMMAND_PALETTE = True
    # Below 100 columns (a dashboard beside its teammates' tmux panes) the columns stack:
    # side by side, the team table and the logs would both be cut.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # 80x24: the other teammates' logs give way
    # The control room's keys (with more than one team): hidden with one.
    BINDINGS = [
        Binding("escape", "overview", "Overview", id="overview"),
        Binding("right_square_bracket", "next_team", "Next team", id="next_team", show=False),
        Binding("left_square_bracket", "previous_team", "Previous team", id="previous_team", show=False),
        Binding("z", "mute", "Mute", id="mute", show=False),
    ]

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
        on_shutdown: OnShutdown | None = None,
        fleet: FleetSession | HostsFleet | None = None,  # HostsFleet: with other machines' teams over ssh
    ):
        self.config_path = config_path or default_config_path()
        self.settings: Settings = load_settings(self.config_path)
        self.loaded_themes = load_themes()
        super().__init__()
        self.root = Path(root) if root is not None else None
        self.team_name = team
        self.layout_name = layout
        self.panes: TeammatePanes = panes or NullPanes()
        self.startup_notice = notice
        self.store: TeamStore | None = store
        self.clock = clock or time.time
        self.health_timeout = float(health_timeout or self.settings.health_timeout)
        self.on_shutdown = on_shutdown
        # The teams this app shows, by (root, name); the dashboard renders one of them.
        self.sessions: dict[tuple[str, str], TeamSession] = {}
        self.dashboard = DashboardScreen(
            panes=self.panes,
            clock=self.clock,
            log_limit=int(log_limit or self.settings.log_lines),
            cursor_blink=cursor_blink,
            sync_panes=sync_panes,
        )
        # Called after each feed batch with (changes, seconds reading files, seconds updating widgets): for benchmarks.
        self.on_batch: Callable[[list, float, float], None] | None = None
        self._panes_closed = False
        self._collector: QuietCollector | None = None  # full garbage collections, when nobody types
        # Every team at once (the control room), when the CLI found more than one.
        self.fleet: FleetControl | None = None
        if fleet is not None:
            from teamtui.tui.controllers.fleet_control import FleetControl

            self.fleet = FleetControl(
                self, fleet, log_limit=self.dashboard.log_limit, cursor_blink=cursor_blink, sync_panes=sync_panes
            )
        for theme in self.loaded_themes.themes:
            self.register_theme(theme)
        # Chosen before the first screen is composed: its palette is built from this theme.
        self.theme = self._initial_theme()
        keymap, problems = checked_keymap(self.settings.keymap, self.config_path)
        self.settings.problems.extend(problems)  # said once, as the config's other problems are
        if keymap:
            self.set_keymap(keymap)

    def get_default_screen(self) -> Screen:
        return self.fleet.overview if self.fleet is not None else self.dashboard

    def on_mount(self) -> None:
        if self.startup_notice:
            self.notify(inert(self.startup_notice), title="panes", markup=False)
        for problem in self.settings.problems + self.loaded_themes.problems:
            self.notify(inert(problem), title="config", severity="warning", markup=False)
        if self.fleet is not None:
            if self._collector is None:
                self._collector = QuietCollector(asyncio.get_running_loop())
            self._collector.start()
            self.fleet.start()
        elif self.store is not None:
            self.open_store(self.store)
        else:
            self._resolve_team()

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if f"{driver.__module__}.{driver.__qualname__}" != "textual.drivers.linux_driver.LinuxDriver":
            return driver  # Windows, or TEXTUAL_DRIVER: as Textual chose
        from teamtui.tui.driver import HangupSafeDriver  # imports termios: only where it exists

        # A closed terminal must end the app, not wedge it (see teamtui/tui/driver.py).
        return HangupSafeDriver

    # ------------------------------------------------------------------ what tests and the CLI read
    @property
    def state(self) -> TeamState | None:
        return self.dashboard.state

    @property
    def session(self) -> TeamSession | None:
        return self.dashboard.session

    @property
    def selected(self) -> str | None:
        return self.dashboard.selected

    @property
    def task_query(self) -> str:
        return self.dashboard.task_query

    @property
    def shutdown_run(self) -> ShutdownRun | None:
        return self.dashboard.shutdown_run

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
            self.dashboard.show_message("choose a team")
            self.push_screen(TeamPicker(found), self._picked)
        elif self.team_name and self._open_journal(self.team_name):
            return
        else:
            self.dashboard.show_message("no team yet")
            self.push_screen(NoTeamScreen(roots, self.layout_name, self.team_name), self._picked)

    def _open_journal(self, name: str) -> bool:
        """`--team NAME` of a team that has ended: open it read-only from the journal."""
        from teamtui.protocol.claude.ended import load_state
        from teamtui.protocol.claude.journal import find_journal

        for entry in find_journal(name):
            try:
                state = load_state(entry.path)
            except (OSError, ValueError) as exc:
                self.notify(f"Journal of {inert(name)} unreadable: {exc}", severity="error", markup=False)
                continue
            self.store = state.store
            self.sub_title = name
            ended = entry.ended_at if entry.ended_at is not None else entry.last_seen
            why = "this team has ended: it is shown read-only from teamtui's journal"
            session = TeamSession.ended(state, ended, why, sender=self.settings.sender, clock=self.clock)
            self.sessions[(str(state.store.root), state.store.name)] = session
            self.dashboard.open_session(session)
            return True
        return False

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
        if self._collector is None:
            self._collector = QuietCollector(asyncio.get_running_loop())
        self._collector.start()
        self.sub_title = store.name
        session = TeamSession.open(
            store,
            log_limit=self.dashboard.log_limit,
            health_timeout=self.health_timeout,
            sender=self.settings.sender,
            clock=self.clock,
            on_shutdown=self.on_shutdown,
        )
        self.sessions[(str(store.root), store.name)] = session
        self.dashboard.open_session(session)

    def ingest_lead_messages(self, messages: list, recipient: str = "") -> None:
        """Messages the lead drained from its own inbox (or `recipient`'s); callable from any thread."""
        if self.is_running:  # before the dashboard runs, the first load reads them from the file
            self.dashboard.post_message(LeadMessagesDrained(list(messages), recipient))  # post_message is thread-safe

    # ------------------------------------------------------------------ the control room
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("overview", "next_team", "previous_team", "mute") and self.fleet is None:
            return False  # one team: no overview to go back to, no other team (hidden)
        if action == "overview" and not isinstance(self.screen, DashboardScreen):
            return False
        return True

    def on_fleet_changed(self, message: FleetChanged) -> None:
        assert self.fleet is not None
        t1 = time.perf_counter()
        self.fleet.changed(message.batch)
        if self.on_batch is not None:
            changes = [c for b in message.batch.changes.values() for c in b.changes]
            self.on_batch(changes, message.batch.read_seconds, time.perf_counter() - t1)

    def open_team(self, key: str, need: Need | None = None) -> None:
        if self.fleet is not None:
            self.fleet.open_team(key, need)

    def action_overview(self) -> None:
        if self.fleet is not None:
            self.fleet.back()

    def action_next_team(self) -> None:
        if self.fleet is not None:
            self.fleet.step(1)

    def action_previous_team(self) -> None:
        if self.fleet is not None:
            self.fleet.step(-1)

    def action_mute(self) -> None:
        if self.fleet is not None:
            self.fleet.toggle_mute()

    def toggle_mute(self) -> None:
        self.action_mute()

    def terminal_write(self, data: str) -> None:
        """Bytes for the terminal (a bell, a desktop notification) through the driver that owns it;
        callable from any thread (the driver hands them to its writer thread)."""
        driver = self._driver
        if driver is not None and not self.is_headless:
            driver.write(data)

    # ------------------------------------------------------------------ leaving
    async def action_quit(self) -> None:
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
        if self.fleet is not None:
            self.fleet.stop()
        self.close_panes()
        if self._collector is not None:
            self._collector.stop()
