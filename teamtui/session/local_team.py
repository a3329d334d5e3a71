"""A team whose files are on this machine: its model read from them (protocol/state.py TeamState)
and what can be done to it by writing them, in its layout (its TeamStore).

`open_local` makes the TeamSession of a team on disk; `ended_local` one rebuilt from a record of
it (the journal), read-only. The capabilities (session/actions.py) are the store's: a layout that
takes no message (a workflow run) offers none.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from teamtui.protocol.changes import Change
from teamtui.protocol.models import Message
from teamtui.protocol.state import TeamState
from teamtui.protocol.store import KeepsJournal, LeadsInTmux, RecordsLead, RunsLead, ScriptRun, TeamStore
from teamtui.session.actions import NoHistory, TeamActions
from teamtui.session.answers import LocalAnswers
from teamtui.session.lead_asked import AskLeadShutdown
from teamtui.session.shutdown import (
    AskRunningLead,
    Background,
    LeadShutdown,
    LocalShutdown,
    OnShutdown,
    Report,
    SetTimer,
    ShutdownController,
)
from teamtui.session.team import TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.history.timeline import TeamHistory
    from teamtui.session.hook_feed import HookFeed


class LocalMessaging:
    """Messages written into the team's inboxes here, under the honest sender."""

    confirmed = True  # in the file when send returns

    def __init__(self, store: TeamStore, state: TeamState, configured_sender: str):
        self.store, self.state = store, state
        self.sender = store.outgoing_sender(configured_sender)  # never a lead this process is not

    def send(self, to: str, text: str) -> list[Change]:
        return self.state.sent([self.store.send(to, text, self.sender)])

    def recipients(self) -> list[str]:
        return self.store.members_for_broadcast(self.sender)

    def broadcast(self, text: str) -> tuple[list[str], list[Change]]:
        sent = self.store.broadcast(text, self.sender)
        return [m.recipient for m in sent], self.state.sent(sent)


class LocalShutdowns:
    """The one place that decides how a shutdown of a team on this machine is carried out."""

    def __init__(
        self,
        store: TeamStore,
        state: TeamState,
        sender: str,
        clock: Callable[[], float],
        on_shutdown: OnShutdown | None,
    ):
        self.store, self.state, self.sender, self.clock = store, state, sender, clock
        self.on_shutdown = on_shutdown  # set when a lead in this process (teamtui run/demo) drives the team's shutdown

    def start(
        self, only: str | None, report: Report, set_timer: SetTimer, background: Background
    ) -> ShutdownController:
        store, state, sender = self.store, self.state, self.sender
        if store.shutdown_via_lead:
            # Only the lead can stop its teammates: ask it, then follow what happens in the files.
            return AskLeadShutdown(
                report,
                state,
                sender=sender,
                clock=self.clock,
                set_timer=set_timer,
                background=background,
                whole_team=only is None,
            )
        if self.on_shutdown is not None and only is None:
            # The lead of this process asks, observes and climbs its ladder; its snapshots arrive as reports.
            return LeadShutdown(report, self.on_shutdown)
        if isinstance(store, RunsLead) and (pid := store.running_lead()) is not None and pid != os.getpid():
            return AskRunningLead(report, store, sender=sender, pid=pid, only=only)
        return LocalShutdown(
            report,
            store,
            sender=sender,
            clock=self.clock,
            replies=state.shutdown_replies,
            tasks=lambda: state.tasks.values(),
            set_timer=set_timer,
        )


class LocalPanes:
    """The team's own tmux panes (a teammate's, the lead's), found from its files and processes."""

    def __init__(self, store: TeamStore, state: TeamState):
        self.store, self.state = store, state
        self.tmux = store if isinstance(store, LeadsInTmux) else None  # where the layout records its panes
        # A `teamtui follow` pane here reads these files: (root, team).
        self.follow: tuple[Path, str] | None = (store.root, store.name)

    def pane_of(self, name: str, lead: bool = True) -> str | None:
        member = self.state.config.member(name) if self.state.config is not None else None
        pane = self.tmux.teammate_pane(member) if member is not None and self.tmux is not None else None
        if pane or not lead:
            return pane
        pid = self.store.lead_pid() if isinstance(self.store, RecordsLead) else None
        if pid is None:
            return None
        from teamtui.tmux.jump import pane_of_process

        return pane_of_process(pid)

    def select(self, name: str) -> str | None:
        from teamtui.tmux.jump import select_pane

        pane = self.pane_of(name)
        return pane if pane is not None and select_pane(pane) else None

    def orphans(self, names: list[str]) -> dict[str, str] | None:
        from teamtui.tmux.team_panes import TeammatePane, still_running, team_socket

        wanted = set(names)
        members = list(self.state.config.members) if self.state.config is not None else []
        candidates = [
            TeammatePane(m.name, pane, self.store.agent_id(m))
            for m in members
            if m.name in wanted and self.tmux is not None and (pane := self.tmux.teammate_pane(m))
        ]
        return still_running(team_socket(self._environment()), candidates)

    def close_orphans(self, panes: dict[str, str]) -> tuple[list[str], list[str]]:
        from teamtui.tmux.team_panes import close_panes, team_socket

        still = self.orphans(list(panes)) or {}
        return close_panes(team_socket(self._environment()), panes, still)

    def _environment(self) -> dict[str, str] | None:
        return self.tmux.lead_environment() if self.tmux is not None else None


class LocalTimeline:
    """TeamActions.timeline of a team on this machine: its history as this machine's database
    holds it, read in a thread."""

    def __init__(self, key: tuple[str, str, str]):
        self.key = key  # (layout, real root, name): its key in the database

    async def __call__(self) -> TeamHistory:
        import asyncio

        from teamtui.protocol.history.query import read_history

        found = await asyncio.to_thread(read_history, self.key)
        if found is None:
            raise NoHistory("this machine's history does not hold this team yet")
        return found


def local_actions(
    store: TeamStore,
    state: TeamState,
    *,
    sender: str,
    clock: Callable[[], float],
    on_shutdown: OnShutdown | None = None,
    writable: bool = True,
    hooks: HookFeed | None = None,
) -> TeamActions:
    """What can be done to a team on this machine: its layout's (a workflow run takes no message)."""
    from teamtui.protocol.history.recorder import ident_of

    ident = ident_of(store)
    actions = TeamActions(
        sender=store.outgoing_sender(sender),
        panes=LocalPanes(store, state),
        folder=store.root,
        worktrees=store.writes_tasks,  # a team teamtui runs may give each teammate a git worktree
        timeline=LocalTimeline((ident.layout, ident.root, ident.name)),
        hooks_help=store.asks_through_hooks,
    )
    if isinstance(store, RecordsLead):  # else its lead's process is not known here
        actions.lead_state = store.lead_state
    if isinstance(store, ScriptRun):
        actions.run_status = store.run_status
    if writable and not store.read_only_reason:
        actions.messages = LocalMessaging(store, state, sender)
        actions.shutdowns = LocalShutdowns(store, state, actions.sender, clock, on_shutdown)
        # What needs the person is answered here (its hooks' requests when `hooks` follows them).
        actions.answers = LocalAnswers(hooks, store, sender)
    return actions


def open_local(
    store: TeamStore,
    *,
    log_limit: int,
    health_timeout: float,
    sender: str = "teamtui",
    clock: Callable[[], float] = time.time,
    on_shutdown: OnShutdown | None = None,
    hooks: HookFeed | None = None,
) -> tuple[TeamSession, TeamState]:
    """A team on disk, not read yet (`state.load_all()` reads it): its session, and the TeamState
    its source feeds. `hooks`: this machine's hook feed, for its permission requests."""
    from teamtui.protocol.history.live import observer_for

    journal = observer_for(store, store.open_journal() if isinstance(store, KeepsJournal) else None)  # and the recorder
    state = TeamState(store, log_limit=log_limit, health_timeout=health_timeout, journal=journal)
    return session_of(state, sender=sender, clock=clock, on_shutdown=on_shutdown, hooks=hooks), state


def session_of(
    state: TeamState,
    *,
    sender: str = "teamtui",
    clock: Callable[[], float] = time.time,
    on_shutdown: OnShutdown | None = None,
    hooks: HookFeed | None = None,
) -> TeamSession:
    """The session of a team on disk whose TeamState is made (`status --all` reads its own, once)."""
    store = state.store
    actions = local_actions(store, state, sender=sender, clock=clock, on_shutdown=on_shutdown, hooks=hooks)
    session = TeamSession(state, actions, clock=clock, read_only=store.read_only_reason)
    if isinstance(actions.answers, LocalAnswers):
        actions.answers.session = session  # its needs are read off the session (session/requests.py)
    return session


def ended_local(
    state: TeamState, ended_at: float, why: str, *, sender: str = "teamtui", clock: Callable[[], float] = time.time
) -> TeamSession:
    """A team rebuilt from a record of it: shown read-only, nothing followed, nothing written."""
    actions = local_actions(state.store, state, sender=sender, clock=clock, writable=False)
    return TeamSession(state, actions, clock=clock, ended_at=ended_at, read_only=why)


def ingest(state: TeamState, recipient: str, messages: list[Message]) -> list[Change]:
    """Messages a lead in this process drained from an inbox before the feed could read them."""
    return state.ingest(recipient or state.lead, messages)


__all__ = [
    "LocalMessaging",
    "LocalPanes",
    "LocalShutdowns",
    "ended_local",
    "ingest",
    "local_actions",
    "open_local",
    "session_of",
]
