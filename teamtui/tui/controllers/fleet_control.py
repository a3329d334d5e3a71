"""The control room's side of the app: the fleet's one feed, a dashboard per team opened on
demand (kept, with its state, while the person looks elsewhere), the "needs you" items across
teams, and the calls to the person (bell, desktop notification, their command).

Every app has one: whatever teamtui was opened on, its teams come through here. A team asked for
by name (`--team`, `run`, `demo`) or a lone team has its dashboard opened at once (not in a room
asked to show other machines: that one stays the overview); escape shows the overview.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.app import App
from textual.timer import Timer

from teamtui.notify.events import NotifyEvent
from teamtui.protocol.edits import files_changed
from teamtui.protocol.fleet.overview import order_rows
from teamtui.protocol.models import Message
from teamtui.protocol.settings import Settings
from teamtui.protocol.text import inert
from teamtui.session.alerts import Alerts, Need
from teamtui.session.fleet import Fleet
from teamtui.session.source import FleetBatch, Key
from teamtui.tmux.api import TeammatePanes
from teamtui.tui.controllers.answers import AnswerFlow
from teamtui.tui.controllers.room_views import RoomView, TeamView
from teamtui.tui.widgets.fleet import row_key

if TYPE_CHECKING:
    from teamtui.notify.notifier import Notifier
    from teamtui.protocol.history.search import SearchHit
    from teamtui.protocol.history.writer import HistoryWriter
    from teamtui.protocol.hooks.room import RoomPresence
    from teamtui.session.actions import Answers
    from teamtui.session.team import TeamSession


# The history writer's problem lines kept in the room (the newest).
HISTORY_PROBLEMS = 5

T = TypeVar("T", bound=TeamView)


class FleetControl(Generic[T]):
    """The overview's rows, the open teams' sessions and the calls, for the app (`app`) it serves.
    The app makes and shows the screens: `overview`, `new_dashboard()` (a team's screen, `T`) and
    `show_team(screen, then)` (`then()` once it is on screen)."""

    def __init__(
        self,
        app: App[Any],
        fleet: Fleet,
        *,
        overview: RoomView,
        new_dashboard: Callable[[], T],
        show_team: Callable[[T, Callable[[], None] | None], None],
        panes: TeammatePanes,
        settings: Settings,
        terminal_write: Callable[[str], None],
        focus: str | None = None,
        cursor_blink: bool,
    ):
        self.app = app
        self.fleet = fleet
        self.overview, self.new_dashboard, self.show_team = overview, new_dashboard, show_team
        self.panes, self.settings, self.terminal_write = panes, settings, terminal_write
        self.focus = focus  # the team asked for by name: opened as soon as it is there
        self.current: T | None = None  # the team's screen last opened
        self.alerts = Alerts(budgets=settings.budgets)  # budgets call the person too
        self.notifier: Notifier | None = None
        self._early: list[NotifyEvent] = []  # called before the notifier was built: sent once it is
        self.needs: dict[Key, list[Need]] = {}
        self.dashboards: dict[str, T] = {}  # row key -> its team's screen, once opened
        self.order: list[str] = []  # row keys in the overview's order
        self.stopping = asyncio.Event()
        self._health_timer: Timer | None = None
        # When each team's next teammate could cross the health timeout, as of its last look: only
        # a batch changes it (the moment is absolute), so only the teams looked at are asked again.
        self._due: dict[Key, float | None] = {}
        self._waiting = False  # the room started empty: the first team to appear is opened
        self.history_problems: list[str] = []  # what the history's writer could not do (a full disk, a damaged file)
        self._history_writer: HistoryWriter | None = None
        # Answering what needs the person (controllers/answers.py); the requests of no team listed,
        # by their need's key, and the capability that answers them (their machine's).
        self.answering = AnswerFlow(
            app,
            self.answers_for,
            palette=self._palette,
            changed=self._hooks_changed,
            task_of=self.task_of,
            cursor_blink=cursor_blink,
        )
        self._loose: dict[Key, Answers] = {}
        self.presence: RoomPresence | None = None  # held while the room runs: hooks wait for its answer
        self._hook_timer: Timer | None = None
        self._hinted = False

    # ------------------------------------------------------------------ starting
    def start(self) -> None:
        """On the app's mount: the first rows, the feed, and the channels that call the person."""
        self._hold_room()
        self.look(self.fleet.sessions)
        self._look_loose()
        self.show()
        # A room asked to show other machines stays the room, whatever arrives first.
        lone = self.focus is None and not getattr(self.fleet, "has_hosts", False)
        if not self._open_focus() and len(self.order) == 1 and lone:
            only = self.fleet.sessions.get(_key_of(self.order[0]))
            if only is not None and only.panes_on == "":
                self.open_team(self.order[0])  # one team of this machine: its dashboard (escape shows the room)
        self._waiting = not self.order and lone  # no team yet: the first to appear is opened
        self._listen_to_history()
        self.app.run_worker(self._build_notifier, thread=True, group="notifier", exit_on_error=False)
        self.app.set_interval(60.0, self._prune)
        self._hint_hooks()

    def _open_focus(self) -> bool:
        """The team asked for by name, opened once it is there; True when it was."""
        if self.focus is None:
            return False
        for key, row in self.overview.rows:
            if row.team.name == self.focus and _key_of(key) in self.fleet.sessions:
                self.focus = None  # once: escape then shows the room for good
                self.overview.looking_for = None
                self.open_team(key)
                return True
        return False

    def _build_notifier(self) -> None:
        """Inside tmux it asks tmux whether passthrough is on: a subprocess, so in a thread."""
        from teamtui.notify.build import build_notifier

        notifier = build_notifier(
            self.settings.notify,
            self.terminal_write,
            on_problem=lambda text: self.app.call_from_thread(
                self.app.notify, text, title="notifications", severity="warning", markup=False
            ),
        )
        self.app.call_from_thread(self._notifier_ready, notifier)

    def _notifier_ready(self, notifier: Notifier) -> None:
        if self.stopping.is_set():  # the app ended while it was built
            notifier.close()
            return
        self.notifier, early, self._early = notifier, self._early, []
        for event in early:
            notifier.notify(event)

    def _listen_to_history(self) -> None:
        """The history writer's problems (a database moved aside and rebuilt, a full disk that
        stopped recording) said to the person: one of the room's problem lines, and a toast."""
        if os.environ.get("TEAMTUI_HISTORY", "1") == "0":  # nothing recorded (protocol/history/live.py recording)
            return
        from teamtui.protocol.history.writer import shared_writer

        writer = self._history_writer = shared_writer()
        # Those found before this room opened: toasted unless another room of this process was told.
        for line, heard in writer.listen(self._from_history):
            self._history_problem(line, toast=not heard)

    def _from_history(self, line: str) -> None:
        """On the writer's thread."""
        if not self.stopping.is_set():
            try:
                self.app.call_from_thread(self._history_problem, line)
            except RuntimeError:  # the app ended meanwhile: nobody to tell
                pass

    def _history_problem(self, line: str, toast: bool = True) -> None:
        if line in self.history_problems:
            return
        self.history_problems = [*self.history_problems, line][-HISTORY_PROBLEMS:]
        if toast:
            stopped = "stopped" in line
            self.app.notify(line, title="history", severity="error" if stopped else "warning", markup=False)
        self.show()

    def stop(self) -> None:
        self.stopping.set()
        if self._history_writer is not None:
            self._history_writer.unlisten(self._from_history)
        if self.notifier is not None:
            self.notifier.close()
        if self.presence is not None:
            self.presence.release()  # hooks waiting on this room hand their requests to the lead's terminal
            self.presence = None

    # ------------------------------------------------------------------ changes
    def changed(self, batch: FleetBatch) -> None:
        """A batch applied to the sessions: the open dashboards, the rows, the needs, the calls."""
        if not self.app.is_running:  # quitting: the screens are being taken down (a batch may still come)
            return
        for key in batch.gone:
            self.needs.pop(key, None)
            self._due.pop(key, None)
            self.alerts.forget(key)
        for key, team_batch in batch.changes.items():
            screen = self.dashboards.get(row_key(key))
            if screen is not None and screen.session is not None:
                try:
                    screen.apply_changes(team_batch.changes, full=team_batch.full)
                except Exception as exc:  # noqa: BLE001 - one team's bad batch must not stop the room
                    self.app.notify(f"Could not apply a change: {exc}", severity="error", markup=False)
        for text, severity in batch.notices:  # a source's word: a request's result, a connection lost or back
            self.app.notify(text, severity=severity, markup=False)
        # A request of the hooks came or went: any team's needs may have changed (a handful of them).
        self.look(self.fleet.sessions if batch.hooks else [*batch.changes, *batch.appeared])
        if batch.hooks or batch.appeared or batch.gone:
            self._look_loose()
            self._hint_hooks()
        # Only the rows of the teams it touched are built again (a host's rows are its stream's: cheap).
        self.show(None if batch.gone or batch.rediscovered or batch.hooks else {*batch.changes, *batch.appeared})
        if self.focus is not None and batch.appeared:
            self._open_focus()
        elif self._waiting and batch.appeared and self.order:
            self._waiting = False
            if self.overview.is_active:  # the person has not gone elsewhere meanwhile
                self.open_team(row_key(batch.appeared[0]))

    def lead_messages(self, messages: list[Message], recipient: str) -> None:
        """What the lead of this process drained from an inbox before the feed read it: into the team it leads."""
        for key, changes in self.fleet.ingest(recipient, messages).items():  # kept even if not drawn
            screen = self.dashboards.get(row_key(key))
            if screen is not None and screen.drawable and changes:
                screen.apply_changes(changes)

    def look(self, keys: Iterable[Key]) -> None:
        """Each team's needs again; what is new calls the person."""
        now = self.fleet.clock()
        sessions = self.fleet.sessions
        keys = [*keys, *self.alerts.look_fleet(sessions)]  # a team's files moved: the other team's item too
        for key in dict.fromkeys(keys):
            session = sessions.get(key)
            if session is None:
                self.needs.pop(key, None)
                self._due.pop(key, None)
                continue
            needs, events = self.alerts.look(key, session, now)
            self.needs[key] = needs
            self._due[key] = session.next_health_check() if session.live else None
            for event in events:
                self._call(event)
            screen = self.dashboards.get(row_key(key))
            if screen is not None:
                screen.show_room_needs(needs)  # its strip lists the room's needs of it (requests, held tasks)
        problem = self.alerts.said.take_problem()  # what was said could not be kept: told once
        if problem is not None:
            self.app.notify(problem, title="notifications", severity="warning", markup=False)
        self._arm_health()

    def dismiss(self, need: Need) -> None:
        """A collision the person dismissed: gone from the needs, not called again while both stay on the file."""
        if self.alerts.dismiss(need, self.fleet.sessions.get(need.team)):
            self.look([need.team])
            self.show()
            self.app.notify("Dismissed: not called again while both stay on the file.")

    def _call(self, event: NotifyEvent) -> None:
        if self.notifier is not None:
            self.notifier.notify(event)
        else:
            self._early.append(event)

    def _arm_health(self) -> None:
        """One timer, at the moment the next teammate anywhere could cross the health timeout."""
        due = [at for at in self._due.values() if at is not None]
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
            self._due.pop(key, None)
            self.alerts.forget(key)
        if gone:
            self.show()

    # ------------------------------------------------------------------ answering
    def _hold_room(self) -> None:
        """Hooks wait for this room's answer while it runs (protocol/hooks/room.py)."""
        spool = getattr(self.fleet, "hook_spool", None)
        if spool is None:
            return
        from teamtui.protocol.hooks.room import RoomPresence

        try:
            self.presence = RoomPresence(spool).hold()
        except OSError as exc:
            self.app.notify(f"Permission requests cannot be answered here: {exc}", severity="warning", markup=False)

    def _look_loose(self) -> None:
        """The requests of no team listed (a lone Claude Code session's), each source's, as needs."""
        now = self.fleet.clock()
        loose: dict[Key, Answers] = {}
        for source, answers in getattr(self.fleet, "loose", list)():
            key = ("hooks", source, "")
            elsewhere = f" on {source}" if answers.where else ""
            needs = [
                Need(key, f"{i.team or 'a Claude Code session'}{elsewhere}", "ask", i.who, i.text, i.id, i.since)
                for i in answers.items()
            ]
            name = needs[0].team_name.removesuffix(elsewhere) if needs else source  # the event names its host
            for event in self.alerts.announce(key, name, needs, now, host=source if answers.where else ""):
                self._call(event)
            loose[key] = answers
            if needs:
                self.needs[key] = needs
            else:
                self.needs.pop(key, None)
        self._loose = loose
        self._arm_hooks()

    def _arm_hooks(self) -> None:
        """One timer, at the next request's deadline: a hook killed outright leaves no event."""
        due = getattr(self.fleet, "next_hook_deadline", lambda: None)()
        if self._hook_timer is not None:
            self._hook_timer.stop()
            self._hook_timer = None
        if due is not None:
            delay = max(0.5, due - self.fleet.clock() + 0.5)
            self._hook_timer = self.app.set_timer(delay, self._hooks_due)

    def _hooks_due(self) -> None:
        self._hook_timer = None
        if self.fleet.recheck_hooks():
            for text in getattr(self.fleet, "hook_news", list)():
                self.app.notify(text, markup=False)
            self._hooks_changed()
        else:
            self._arm_hooks()

    def _hooks_changed(self) -> None:
        """An answer was given (or a request's deadline passed): every need again."""
        if not self.app.is_running:
            return
        self.look(self.fleet.sessions)
        self._look_loose()
        self.show()

    def answers_for(self, need: Need) -> Answers | None:
        """The capability that answers `need`: its team's, or (a request of no team) its machine's."""
        session = self.fleet.sessions.get(need.team)
        if session is not None:
            return session.actions.answers if session.live else None
        return self._loose.get(need.team)

    def task_of(self, need: Need) -> str:
        """The task `need`'s teammate holds on its team's board ("#2 Write tests"); "" for none."""
        session = self.fleet.sessions.get(need.team)
        task = session.state.board.current_tasks().get(need.member) if session is not None and need.member else None
        return f"#{task.id} {task.subject}" if task is not None else ""

    def _palette(self) -> Any:
        return getattr(self.app.screen, "palette", None) or self.overview.palette

    def _hint_hooks(self) -> None:
        """Once a Claude Code team is shown: said once where hooks would help, unless installed."""
        if self._hinted or self.presence is None:  # a room that answers nothing (run, demo) has nothing to say
            return
        if not any(s.actions.hooks_help and s.live for s in self.fleet.sessions.values()):
            return
        self._hinted = True
        self.app.run_worker(self._hooks_hint_worker, thread=True, group="hooks-hint", exit_on_error=False)

    def _hooks_hint_worker(self) -> None:
        from teamtui.tui.controllers.answers import hooks_hint

        text = hooks_hint()
        if text is not None:
            self.app.call_from_thread(self.app.notify, text, title="hooks", timeout=20, markup=False)

    def show(self, changed: set[Key] | None = None) -> None:
        """The overview as the sessions are now; with `changed`, rows of other teams may be kept (LocalSource.rows)."""
        if not self.app.is_running:  # quitting (a timer may still fire): the overview's widgets are going
            return
        now = self.fleet.clock()
        rows = self.fleet.rows(now, changed)
        sessions = self.fleet.sessions
        for r in rows:  # the control room's count (it sees more than transcripts); another machine's own, if more
            remote = getattr(r.team, "host", "")  # a RemoteTeam: its requests are counted over there
            r.needs_you = max(len(self.needs.get(r.team.key, ())), r.needs_you if remote else 0)
            r.budget = self.alerts.budget_mark(r.team.key)
            if (
                r.files is None and (s := sessions.get(r.team.key)) is not None
            ):  # another machine's: its insight's counts
                r.files = files_changed(s.state.transcripts)
        rows = order_rows(rows)  # again: the counts just set decide who comes first
        self.order = [row_key(r.team.key) for r in rows]
        # Oldest first; a permission request a hook waits on before all (it waits only so long).
        needs = sorted((n for k in self.needs for n in self.needs[k]), key=lambda n: (n.kind != "ask", n.since or 0.0))
        if not rows or self.focus is not None:  # said on the overview while nothing (or not that team) is there
            self.overview.looked_at, self.overview.left_out = self.fleet.looked_at(), self.fleet.left_out()
        self.overview.spent_today = (self.alerts.spent_today, self.settings.budgets.day)
        problems = [*self.fleet.problems, *self.history_problems]
        self.overview.show([(row_key(r.team.key), r) for r in rows], needs, problems)
        self.overview.show_muted(self.muted_until)

    # ------------------------------------------------------------------ moving between teams
    def open_team(self, key: str, need: Need | None = None) -> None:
        if (
            need is not None and need.team in self._loose
        ):  # a request of no team: answered here, there is no team to open
            self.answering.start(need)
            return
        session = self.fleet.sessions.get(_key_of(key))
        if session is None:
            self.app.notify("This team cannot be shown: its row says why.", severity="warning")
            return
        screen = self.dashboards.get(key)
        if screen is None:
            screen = self.dashboards[key] = self.new_dashboard()
            screen.open_session(session)
            screen.show_room_needs(self.needs.get(_key_of(key), []))
        self.current = screen
        self.panes.team = session.name  # the panes follow the team on screen
        self.app.sub_title = session.name
        self.show_team(screen, None if need is None else partial(screen.go_to_need, need.member, need.kind))

    @property
    def searches_hosts(self) -> bool:
        """The fleet has hosts: `/` searches theirs too (search_hosts)."""
        return any(getattr(s, "request", None) is not None for s in getattr(self.fleet, "sources", ()))

    def search_hosts(self, query: str, limit: int, done: Callable[[str, list[SearchHit], str], None]) -> list[str]:
        from teamtui.session.ops.search import search_hosts

        return search_hosts(self.fleet.sources, query, limit, done)

    def open_hit(self, hit: SearchHit) -> None:
        """A search result chosen: its team's dashboard at the item when the room lists the team;
        an ended team it no longer lists, read back from the history, read-only."""
        key = hit.key
        if key in self.fleet.sessions:
            self.open_team(row_key(key))
            screen = self.dashboards.get(row_key(key))
            if screen is not None:
                screen.call_after_refresh(screen.go_to_hit, hit)
            return
        if hit.host:
            self.app.notify(f"{inert(hit.team)} is on {inert(hit.host)}, not in the room now.", severity="warning")
            return
        from teamtui.session.ops.search import recorded_team

        read = partial(recorded_team, hit.team_id, sender=self.settings.sender, clock=self.fleet.clock)
        self.app.run_worker(
            lambda: self.app.call_from_thread(self._open_record, hit, read()),
            thread=True,
            group="record",
            exit_on_error=False,
        )

    def _open_record(self, hit: SearchHit, session: TeamSession) -> None:
        key = f"record\x00{hit.team_id}"
        screen = self.dashboards.get(key)
        if screen is None:
            screen = self.dashboards[key] = self.new_dashboard()
            screen.open_session(session)
        self.current = screen
        self.show_team(screen, partial(screen.go_to_hit, hit))

    def step(self, by: int) -> None:
        """`]` / `[`: the next / previous team of the overview's order."""
        if not self.order:
            return
        current = next((k for k, s in self.dashboards.items() if s.is_active), None)
        at = self.order.index(current) if current in self.order else -1
        self.open_team(self.order[(at + by) % len(self.order)])

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
            until = self.notifier.mute(self.settings.notify.mute_minutes * 60)
            self.app.notify(f"Notifications muted until {time.strftime('%H:%M', time.localtime(until))} (z again: on)")
        self.overview.show_muted(self.muted_until)
        for screen in self.dashboards.values():  # each team's header says it too
            screen.show_muted(self.muted_until)


def _key_of(row_key: str) -> Key:
    """A row's key (tui/widgets/fleet.py row_key) back as the fleet's."""
    where, root, name = (row_key.split("\x00") + ["", "", ""])[:3]
    return (where, root, name)
