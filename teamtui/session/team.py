"""TeamSession: one watched team and everything that belongs to it.

Its store (the files, in the team's layout), its TeamState (everything known, kept current one
changed file at a time), its journal (where the layout has one), the file feed that keeps the
state current, the health rule, and what acts on the team: messages, shutdowns, the teammates'
panes. A screen is handed one and renders it; an app may hold many (one per team it shows).

Nothing here knows Textual: the feed is an async iterator, slow work (tmux, /proc) is a plain
function the caller runs off its loop, and shutdown progress is reported through a callable.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from teamtui.protocol.changes import Change
from teamtui.protocol.health import disappears_at
from teamtui.protocol.history.live import observer_for
from teamtui.protocol.models import MemberStatus, Message
from teamtui.protocol.shutdown import live_teammates
from teamtui.protocol.state import TeamState
from teamtui.protocol.store import TeamStore
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


@dataclass
class Batch:
    """One batch of the file feed, already applied to the TeamState."""

    changes: list[Change]
    full: bool = False  # a rescan: everything may have changed
    read_seconds: float = 0.0  # spent reading the changed files (for the benchmarks)
    count_heads: bool = False  # the first read is in: the transcripts' heads can now be counted


@dataclass
class Health:
    """Who crossed the health rule since the last look, and when to look next."""

    disappeared: list[str] = field(default_factory=list)  # newly silent while holding a task
    back: list[str] = field(default_factory=list)  # active again
    next_check_at: float | None = None  # when the next teammate could cross the timeout
    moved: bool = False  # the set of disappeared teammates changed


class TeamSession:
    """One team, watched. `open` reads it from its files; `ended` shows a record of it."""

    def __init__(
        self,
        state: TeamState,
        *,
        sender: str = "teamtui",
        clock: Callable[[], float] = time.time,
        on_shutdown: OnShutdown | None = None,
        ended_at: float | None = None,
        read_only: str = "",
    ):
        self.state = state
        self.store: TeamStore = state.store
        self.configured_sender = sender  # the name teamtui writes under where it is not the team's lead
        self.clock = clock
        self.on_shutdown = on_shutdown  # set when a lead in this process (teamtui run/demo) drives the team's shutdown
        self.ended_at = ended_at  # the team ended (its folder deleted) or was opened from the journal
        # Why nothing may be written ("": it may): the caller's reason, else the layout's (a workflow run's).
        self.read_only = read_only or self.store.read_only_reason
        self.disappeared: set[str] = set()

    @classmethod
    def open(
        cls,
        store: TeamStore,
        *,
        log_limit: int,
        health_timeout: float,
        sender: str = "teamtui",
        clock: Callable[[], float] = time.time,
        on_shutdown: OnShutdown | None = None,
    ) -> TeamSession:
        """A team on disk, not read yet (`load` reads it)."""
        journal = observer_for(store, store.open_journal())  # the journal (where kept) and the history's recorder
        state = TeamState(store, log_limit=log_limit, health_timeout=health_timeout, journal=journal)
        return cls(state, sender=sender, clock=clock, on_shutdown=on_shutdown)

    @classmethod
    def ended(
        cls,
        state: TeamState,
        ended_at: float,
        why: str,
        *,
        sender: str = "teamtui",
        clock: Callable[[], float] = time.time,
    ) -> TeamSession:
        """A team rebuilt from a record of it: shown read-only, nothing watched."""
        return cls(state, sender=sender, clock=clock, ended_at=ended_at, read_only=why)

    # ------------------------------------------------------------------ what it is
    @property
    def name(self) -> str:
        return self.state.name

    @property
    def live(self) -> bool:
        """Its files are there to follow (not ended, not a record)."""
        return self.ended_at is None

    @property
    def sender(self) -> str:
        """Who a message from here is from: never a lead this process is not (store.outgoing_sender)."""
        return self.store.outgoing_sender(self.configured_sender)

    def load(self) -> list[Change]:
        return self.state.load_all()

    def note_changes(self, changes: list[Change]) -> bool:
        """After a batch: a team whose folder went with its lead (a Claude Code session team) has
        ended, and is kept on screen as it was. True when that just happened."""
        # The batch first: asking the lead's process (psutil) on every batch would cost the UI loop.
        if self.ended_at is not None or not any(c.kind == "team_gone" for c in changes):
            return False
        if self.store.lead_state() is None:
            return False
        self.ended_at = self.clock()
        self.read_only = "the team has ended (its lead exited): it is shown as it was"
        return True

    def lead_gone(self) -> bool:
        """A team whose shutdown goes through its lead, and the lead has ended: nobody can approve one."""
        if not self.store.shutdown_via_lead:
            return False
        return self.ended_at is not None or self.store.lead_state() == "ended"

    # ------------------------------------------------------------------ following the files
    async def follow(self, stop: asyncio.Event) -> AsyncIterator[Batch]:
        """Each batch of file events, applied to the TeamState, until `stop` is set."""
        from teamtui.protocol.watch import watch_dirs

        state = self.state
        transcripts = state.transcripts
        # The first read of every transcript runs in a thread while the watches start: from the end,
        # what the log panels show; the heads' token sums are counted after the first screen.
        reading = (
            asyncio.ensure_future(asyncio.to_thread(transcripts.read, from_end=True))
            if transcripts is not None and not state.transcripts_read
            else None
        )
        async for batch in watch_dirs(state.watch_dirs(), stop):
            t0 = time.perf_counter()
            if batch.rescan:
                yield Batch(
                    state.load_all() + state.apply_batch([], rescan=True),
                    full=True,
                    read_seconds=time.perf_counter() - t0,
                )
            elif batch.ready:
                # What changed between the first read and the watches; the stats run off the event loop.
                stale = await asyncio.to_thread(state.stale_paths)
                t0 = time.perf_counter()
                changes = [c for p in stale for c in state.apply(p)]
                if reading is None:
                    yield Batch(changes, read_seconds=time.perf_counter() - t0)
                    continue
                yield Batch(changes, read_seconds=time.perf_counter() - t0)
                updates = await reading
                reading = None
                t0 = time.perf_counter()
                # What was written before the watches were in place: read on from each offset.
                changes = state.take_transcripts(updates) + state.apply_batch([], rescan=True)
                yield Batch(changes, full=True, read_seconds=time.perf_counter() - t0, count_heads=state.counting_heads)
            else:
                yield Batch(state.apply_batch(sorted(batch.paths)), read_seconds=time.perf_counter() - t0)

    def count_heads(self) -> dict:
        """The token sums of the transcripts' heads: slow (parsing), for a thread."""
        return self.state.count_heads()

    def take_heads(self, heads: dict) -> bool:
        """The counted heads added, on the loop; True when some figure is now known."""
        return self.state.take_heads(heads)

    def ingest(self, recipient: str, messages: list[Message]) -> list[Change]:
        """Messages a lead in this process drained from an inbox before the feed could read them."""
        return self.state.ingest(recipient or self.state.lead, messages)

    # ------------------------------------------------------------------ health
    def check_health(self) -> Health:
        """Who disappeared (silent past the timeout while holding a task) or came back since the
        last look, and when the next one could."""
        now = self.clock()
        views = self.state.member_views(now)
        current = {v.name for v in views if v.disappeared}
        health = Health(
            sorted(current - self.disappeared), sorted(self.disappeared - current), moved=current != self.disappeared
        )
        self.disappeared = current
        health.next_check_at = self._next_check(views)
        return health

    def next_health_check(self) -> float | None:
        """When the next teammate could cross the health timeout (nothing else changes)."""
        return self._next_check(self.state.member_views(self.clock()))

    def _next_check(self, views: list) -> float | None:
        due = [
            at
            for v in views
            if not v.disappeared
            and (
                at := disappears_at(
                    holds_task=v.current_task is not None,
                    stopped=v.departed or v.status == MemberStatus.SHUTDOWN,
                    last_activity=v.last_activity,
                    timeout=self.state.health_timeout,
                )
            )
            is not None
        ]
        return min(due) if due else None

    # ------------------------------------------------------------------ acting on it
    def send(self, name: str, text: str) -> list[Change]:
        """`text` into `name`'s inbox, under the honest sender; what it changed (raises on refusal)."""
        return self.state.sent([self.store.send(name, text, self.sender)])

    def broadcast_recipients(self) -> list[str]:
        return self.store.members_for_broadcast(self.sender)

    def broadcast(self, text: str) -> tuple[list[str], list[Change]]:
        sent = self.store.broadcast(text, self.sender)
        return [m.recipient for m in sent], self.state.sent(sent)

    def live_teammates(self, only: str | None = None) -> list[str]:
        return live_teammates(self.state, only)

    def shutdown(
        self, only: str | None, report: Report, set_timer: SetTimer, background: Background
    ) -> ShutdownController:
        """The one place that decides how a shutdown of `only` (None: the whole team) is carried out."""
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
        pid = store.running_lead()
        if pid is not None and pid != os.getpid():
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

    # ------------------------------------------------------------------ panes (slow: tmux, /proc)
    @property
    def panes_on(self) -> str:
        """ "" when the team's panes are on this machine; else the machine they are on (nothing to select here)."""
        return ""

    def pane_of(self, name: str, lead: bool = True) -> str | None:
        """The tmux pane that answers for `name`: its own, else (with `lead`) the lead's."""
        member = self.state.config.member(name) if self.state.config is not None else None
        pane = self.store.teammate_pane(member) if member is not None else None
        if pane or not lead:
            return pane
        pid = self.store.lead_pid()
        if pid is None:
            return None
        from teamtui.tmux.jump import pane_of_process

        return pane_of_process(pid)

    def select_pane(self, name: str) -> str | None:
        """Bring `name`'s pane (or the lead's) forward on the tmux server teamtui runs in; the pane, or None."""
        from teamtui.tmux.jump import select_pane

        pane = self.pane_of(name)
        return pane if pane is not None and select_pane(pane) else None

    def orphan_panes(self, names: list[str]) -> dict[str, str] | None:
        """With the lead ended: of `names`, the teammates whose pane (config.json's) still runs
        them, name -> pane; None when the team's tmux server is unknown."""
        from teamtui.tmux.team_panes import TeammatePane, still_running, team_socket

        wanted = set(names)
        members = list(self.state.config.members) if self.state.config is not None else []
        candidates = [
            TeammatePane(m.name, pane, self.store.agent_id(m))
            for m in members
            if m.name in wanted and (pane := self.store.teammate_pane(m))
        ]
        return still_running(team_socket(self.store.lead_environment()), candidates)

    def close_orphan_panes(self, panes: dict[str, str]) -> tuple[list[str], list[str]]:
        """Close the panes the person confirmed, each checked again just before: (closed, errors)."""
        from teamtui.tmux.team_panes import close_panes, team_socket

        still = self.orphan_panes(list(panes)) or {}
        return close_panes(team_socket(self.store.lead_environment()), panes, still)
