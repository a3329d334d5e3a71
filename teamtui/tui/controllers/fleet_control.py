"""The control room's side of the app: the fleet's one feed, a dashboard per team opened on
demand (kept, with its state, while the person looks elsewhere), the "needs you" items across
teams, and the calls to the person (bell, desktop notification, their command).

The app owns one whenever the command line found teams without being told which one (with a
lone team it opens that team's dashboard at once); `--team`, `run` and `demo` show one team
without it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from teamtui.notify.events import NotifyEvent
from teamtui.protocol.fleet.overview import order_rows
from teamtui.session.alerts import Alerts, Need
from teamtui.session.fleet import FleetBatch, FleetSession, Key
from teamtui.session.remote import HostBatch, HostsFleet
from teamtui.tui.messages import FleetChanged
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import row_key
from teamtui.tui.widgets.header import TeamHeader

if TYPE_CHECKING:
    from teamtui.notify.notifier import Notifier


class FleetControl:
    # `app` is the TeamTUI (loosely typed: its module imports this one).
    # `fleet`: this machine's teams, or (HostsFleet, session/remote.py) those and each [[hosts]] machine's over ssh,
    # behind the same sessions / rows / problems / follow.
    def __init__(
        self, app: Any, fleet: FleetSession | HostsFleet, *, log_limit: int, cursor_blink: bool, sync_panes: bool
    ):
        self.app = app
        self.fleet = fleet
        self.log_limit, self.cursor_blink, self.sync_panes = log_limit, cursor_blink, sync_panes
        self.overview = FleetScreen(clock=fleet.clock)
        self.alerts = Alerts(budgets=app.settings.budgets)  # budgets call the person too
        self.notifier: Notifier | None = None
        self._early: list[NotifyEvent] = []  # called before the notifier was built: sent once it is
        self.needs: dict[Key, list[Need]] = {}
        self.dashboards: dict[str, DashboardScreen] = {}  # row key -> its team's screen, once opened
        self.order: list[str] = []  # row keys in the overview's order
        self._stop = asyncio.Event()
        self._health_timer: Any = None
        self._prune_timer: Any = None

    # ------------------------------------------------------------------ starting
    def start(self) -> None:
        """On the app's mount: the first rows, the feed, and the channels that call the person."""
        self.look(self.fleet.sessions)
        self.show()
        if len(self.order) == 1 and not getattr(self.fleet, "hosts", None):
            self.open_team(self.order[0])  # one team: its dashboard, as ever (escape shows the room)
        self.app.run_worker(self._follow(), group="fleet", exclusive=True, exit_on_error=False)
        self.app.run_worker(self._build_notifier, thread=True, group="notifier", exit_on_error=False)
        self._prune_timer = self.app.set_interval(60.0, self._prune)

    def _build_notifier(self) -> None:
        """Inside tmux it asks tmux whether passthrough is on: a subprocess, so in a thread."""
        from teamtui.notify.build import build_notifier

        notifier = build_notifier(
            self.app.settings.notify,
            self.app.terminal_write,
            on_problem=lambda text: self.app.call_from_thread(self._problem, text),
        )
        self.app.call_from_thread(self._notifier_ready, notifier)

    def _notifier_ready(self, notifier: Notifier) -> None:
        if self._stop.is_set():  # the app ended while it was built
            notifier.close()
            return
        self.notifier, early, self._early = notifier, self._early, []
        for event in early:
            notifier.notify(event)

    def _problem(self, text: str) -> None:
        self.app.notify(text, title="notifications", severity="warning", markup=False)

    async def _follow(self) -> None:
        async for batch in self.fleet.follow(self._stop):
            self.app.post_message(FleetChanged(batch))

    def stop(self) -> None:
        self._stop.set()
        if self.notifier is not None:
            self.notifier.close()

    # ------------------------------------------------------------------ changes
    def changed(self, batch: FleetBatch) -> None:
        """A batch applied to the sessions: the open dashboards, the rows, the needs, the calls."""
        if not self.app.is_running:  # quitting: the screens are being taken down (a batch may still come)
            return
        for key in batch.gone:
            self.needs.pop(key, None)
            self.alerts.forget(key)
        for key, team_batch in batch.changes.items():
            screen = self.dashboards.get(row_key(key))
            if screen is not None and screen.session is not None:
                try:
                    screen.apply_changes(team_batch.changes, full=team_batch.full)
                except Exception as exc:  # noqa: BLE001 - one team's bad batch must not stop the room
                    self.app.notify(f"Could not apply a change: {exc}", severity="error", markup=False)
        if isinstance(batch, HostBatch):  # a remote host's word: a request's result, the connection lost or back
            for text, severity in batch.notices:
                self.app.notify(text, severity=severity, markup=False)
        self.look([*batch.changes, *batch.appeared])
        # Only the rows of the teams it touched are built again (a host's rows are its stream's: cheap).
        self.show(None if batch.gone or batch.rediscovered else {*batch.changes, *batch.appeared})

    def look(self, keys: Iterable[Key]) -> None:
        """Each team's needs again; what is new calls the person."""
        now = self.fleet.clock()
        for key in keys:
            session = self.fleet.sessions.get(key)
            if session is None:
                self.needs.pop(key, None)
                continue
            needs, events = self.alerts.look(key, session, now)
            self.needs[key] = needs
            for event in events:
                self._call(event)
        self._arm_health()

    def _call(self, event: NotifyEvent) -> None:
        if self.notifier is not None:
            self.notifier.notify(event)
        else:
            self._early.append(event)

    def _arm_health(self) -> None:
        """One timer, at the moment the next teammate anywhere could cross the health timeout."""
        due = [at for s in self.fleet.sessions.values() if s.live and (at := s.next_health_check()) is not None]
        if self._health_timer is not None:
            self._health_timer.stop()
            self._health_timer = None
        if due:
            delay = max(0.05, min(due) - self.fleet.clock() + 0.05)
            self._health_timer = self.app.set_timer(delay, self._health_tick)

    def _health_tick(self) -> None:
        self.look(self.fleet.sessions)
        self.show()

    def _prune(self) -> None:
        gone = self.fleet.prune()
        for key in gone:
            self.needs.pop(key, None)
            self.alerts.forget(key)
        if gone:
            self.show()

    def show(self, changed: set[Key] | None = None) -> None:
        """The overview as the sessions are now; with `changed`, rows of other teams may be kept (FleetSession.rows)."""
        if not self.app.is_running:  # quitting (a timer may still fire): the overview's widgets are going
            return
        now = self.fleet.clock()
        rows = self.fleet.rows(now, changed)
        for r in rows:  # the control room's count (it sees more than transcripts); another machine's own, if more
            remote = getattr(r.team, "host", "")  # a RemoteTeam: its requests are counted over there
            r.needs_you = max(len(self.needs.get(r.team.key, ())), r.needs_you if remote else 0)
            r.budget = self.alerts.budget_mark(r.team.key)
        rows = order_rows(rows)  # again: the counts just set decide who comes first
        self.order = [row_key(r.team.key) for r in rows]
        needs = sorted((n for k in self.needs for n in self.needs[k]), key=lambda n: n.since or 0.0)
        self.overview.spent_today = (self.alerts.spent_today, self.app.settings.budgets.day)
        self.overview.show([(row_key(r.team.key), r) for r in rows], needs, self.fleet.problems)
        self.overview.show_muted(self.muted_until)

    # ------------------------------------------------------------------ moving between teams
    def open_team(self, key: str, need: Need | None = None) -> None:
        session = self.fleet.sessions.get(tuple(key.split("\x00")))  # type: ignore[arg-type]
        if session is None:
            self.app.notify("This team cannot be shown: its row says why.", severity="warning")
            return
        screen = self.dashboards.get(key)
        if screen is None:
            screen = DashboardScreen(
                panes=self.app.panes,
                clock=self.fleet.clock,
                log_limit=self.log_limit,
                cursor_blink=self.cursor_blink,
                sync_panes=self.sync_panes,
            )
            self.dashboards[key] = screen
            self.app.install_screen(screen, name=f"team-{len(self.dashboards)}")
            screen.open_session(session, follow=False)
        self.app.dashboard = screen
        self.app.panes.team = session.store.name  # the panes follow the team on screen
        self.app.sub_title = session.name
        if self.app.screen is self.overview or not isinstance(self.app.screen, DashboardScreen):
            self.app.push_screen(screen)
        else:
            self.app.switch_screen(screen)
        self.app.refresh_bindings()  # escape and ] / [ now mean something
        screen.call_after_refresh(self._show_mute, screen)
        if need is not None:
            screen.call_after_refresh(screen.go_to_need, need.member, need.kind)

    def step(self, by: int) -> None:
        """`]` / `[`: the next / previous team of the overview's order."""
        if not self.order:
            return
        current = next((k for k, s in self.dashboards.items() if s is self.app.screen), None)
        at = self.order.index(current) if current in self.order else -1
        self.open_team(self.order[(at + by) % len(self.order)])

    def back(self) -> None:
        if isinstance(self.app.screen, DashboardScreen):
            self.app.pop_screen()
            self.app.sub_title = ""
            self.app.refresh_bindings()
            if self.sync_panes:  # the overview is no team's: its follow panes close (adopted ones stay)
                self.app.panes.sync([])

    # ------------------------------------------------------------------ muting
    @property
    def muted_until(self) -> float | None:
        return self.notifier.muted_until if self.notifier is not None else None

    def toggle_mute(self) -> None:
        if self.notifier is None:
            self.app.notify("Notifications are not ready yet.", severity="warning")
            return
        if self.notifier.muted_until is not None:
            self.notifier.unmute()
            self.app.notify("Notifications on")
        else:
            until = self.notifier.mute(self.app.settings.notify.mute_minutes * 60)
            self.app.notify(f"Notifications muted until {time.strftime('%H:%M', time.localtime(until))} (z again: on)")
        self.overview.show_muted(self.muted_until)
        for screen in self.dashboards.values():  # each team's header says it too
            self._show_mute(screen)

    def _show_mute(self, screen: DashboardScreen) -> None:
        if screen.is_mounted and screen.drawable and screen.session is not None:
            screen.query_one(TeamHeader).muted_until = self.muted_until
            screen.panels.header()
