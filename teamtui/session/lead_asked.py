"""`S` / `x` on a team whose store says `shutdown_via_lead` (Claude Code): ask the lead, follow the
files. At the deadline the teammates still there may have their tmux panes closed (only panes
config.json names, on the tmux server the team runs on), after the person confirms; a teammate
that left but kept its pane is offered too. The model of the run is the layout's
(protocol/claude/shutdown.py); the panes are asked of tmux (tmux/team_panes.py), off the loop.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from teamtui.protocol.changes import ChangeKind as K
from teamtui.protocol.claude.shutdown import PANE_GRACE, SHUTDOWN_TYPES, LeadAskedRun
from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.state import TeamState
from teamtui.protocol.store import LeadsInTmux
from teamtui.session.shutdown import Background, Report, SetTimer, ShutdownController, ShutdownNews, Stoppable
from teamtui.tmux.team_panes import close_panes, open_panes, team_socket

# After the deadline the files are still followed this long: a reply read late, a pane closing.
FOLLOW_AFTER = 30.0
# A teammate that left keeps its pane until Claude Code closes it: looked for this often.
PANE_CHECK_EVERY = 2.0

__all__ = ["FOLLOW_AFTER", "PANE_CHECK_EVERY", "PANE_GRACE", "AskLeadShutdown"]


class AskLeadShutdown(ShutdownController):
    """`S` / `x` on a team whose store says `shutdown_via_lead`: ask the lead, follow the files."""

    # "log": a transcript read (a teammate's or the lead's) may hold a step the inbox lost.
    watches = frozenset({K.INBOX, K.INBOX_READ, K.DELIVERED, K.CONFIG, K.MEMBER_LEFT, K.MEMBER_STATUS, K.LOG})

    def __init__(
        self,
        report: Report,
        state: TeamState,
        *,
        sender: str,
        clock: Callable[[], float],
        set_timer: SetTimer,
        background: Background,
        whole_team: bool,
    ):
        super().__init__(report)
        self.store, self.state, self.sender, self.clock = state.store, state, sender, clock
        self.set_timer, self.background, self.whole_team = set_timer, background, whole_team
        self.run: LeadAskedRun | None = None
        self._timer: Stoppable | None = None
        self._checking_panes = False  # a look at the team's tmux panes is under way
        self._socket: str | None = None  # the team's tmux server, once known (read from the lead's environment)
        self._notices_before: dict[int, object] = {}  # id -> notice, kept alive (see LeadAskedRun._before)
        self._since = 0.0
        # id(notice) -> (the notice, kept alive so its id is not reused; its inbox message or decode error)
        self._decoded: dict[int, tuple[Any, object]] = {}

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        run = LeadAskedRun(
            self.store,
            targets,
            whole_team=self.whole_team,
            sender=self.sender,
            reason=reason,
            deadline_seconds=deadline,
            clock=self.clock,
        )
        self._learn_panes(run)
        self._notices_before = {id(n): n for _, n in self._notices()}
        self._since = time.time() - 1.0  # transcripts stamp wall-clock time; a second of slack
        run.start(list(self.state.messages))
        self.run = run
        # In the journal and Messages even if the lead takes it before the next read.
        changes = self.state.sent([run.asked]) if run.asked is not None else []
        if not run.done:
            self._timer = self.set_timer(deadline, self._deadline)
        self.report(ShutdownNews(run, changes=changes))

    def _learn_panes(self, run: LeadAskedRun) -> None:
        cfg = self.state.config
        for m in cfg.members if cfg else []:
            pane = self.store.teammate_pane(m) if isinstance(self.store, LeadsInTmux) else None
            if m.name in run.teammates and pane:
                run.panes[m.name] = pane

    def observe(self) -> None:
        run = self.run
        if run is None or self.clock() > run.deadline_at + FOLLOW_AFTER:
            return
        cfg = self.state.config
        members = {m.name for m in cfg.members} if cfg else set()
        changed = run.follow([*self.state.messages, *self._from_transcripts()], members, self.state.departed)
        if changed:
            self._finish_if_done()
            self.report(ShutdownNews(run, changed))
        self._look_at_panes()

    def _look_at_panes(self) -> None:
        """Whether the panes of the teammates that left have closed: one tmux call, in a thread."""
        run = self.run
        if run is None or self._checking_panes or not run.panes_to_check():
            return
        if self.clock() > run.deadline_at + FOLLOW_AFTER:
            return
        socket = self._team_socket()
        if socket is None:
            return  # not inside the team's tmux server, and the lead's is unknown: nothing to say

        self._checking_panes = True
        self.background(
            lambda: open_panes(socket), lambda panes: self.panes_seen(None if panes is None else set(panes))
        )

    def _team_socket(self) -> str | None:
        if self._socket is None:  # the lead's environment does not change: read once it tells
            self._socket = team_socket(self.store.lead_environment() if isinstance(self.store, LeadsInTmux) else None)
        return self._socket

    def panes_seen(self, open_panes: set[str] | None) -> None:
        """On the UI loop: what the look at the panes found; looks again while one stays open."""
        self._checking_panes = False
        run = self.run
        if run is None:
            return
        changed = run.panes_seen(open_panes) if open_panes is not None else []
        if changed:
            kept = {n: p for n, p in run.still_there().items() if n in changed and n in run.left}
            if kept:
                news = ShutdownNews(
                    run,
                    [],
                    offer_panes=kept,
                    offer_title="They left the team, their panes did not: close them?",
                    offer_why="Claude Code did not close these panes after their teammates left.",
                )
            else:
                news = ShutdownNews(run, [])
            self.report(news)
        if run.panes_to_check() and self.clock() <= run.deadline_at + FOLLOW_AFTER:
            self.set_timer(PANE_CHECK_EVERY, self._look_at_panes)

    def _notices(self) -> list[tuple[str, Any]]:
        """(recipient, notice) of every protocol message the members' transcripts hold."""
        feed = self.state.transcript_files
        team = feed.team if feed is not None else None
        return [(member, n) for member, reader in (team.readers.items() if team else ()) for n in reader.notices]

    def _from_transcripts(self) -> list[InboxMessage]:
        """The shutdown messages the transcripts say arrived since the run began, as inbox
        entries: Claude Code prunes an entry within a second, and a busy machine can read the
        inbox too late; the receiver's transcript keeps it (signed ones only)."""
        out = []
        for member, n in self._notices():
            if id(n) in self._notices_before or n.payload.get("type") not in SHUTDOWN_TYPES:
                continue
            if n.ts is not None and n.ts < self._since:
                continue  # an older run's message, read from a transcript's head after this one began
            cached = self._decoded.get(id(n))
            if cached is None:  # decoded once: observe runs on every transcript batch of the run
                entry = {"from": n.sender, "text": json.dumps(n.payload), "timestamp": n.ts or 0}
                cached = self._decoded[id(n)] = (n, self.store.decode_entry(member, entry, 0))
            m = cached[1]
            if isinstance(m, InboxMessage):
                out.append(m)
        return out

    def _deadline(self) -> None:
        run = self.run
        self._timer = None
        if run is None:
            return
        self.observe()  # what arrived just before the deadline counts
        changed = run.expire(now=run.deadline_at)
        if changed:
            self.report(ShutdownNews(run, changed, offer_panes=run.still_there()))

    def close_panes(self, names: list[str]) -> None:
        """Close the panes of `names` (after the person confirmed) on the team's tmux server, those
        the run still lists (config.json's, for teammates still there), off the loop (tmux)."""
        run = self.run
        if run is None:
            return
        there = run.still_there()
        panes = {n: there[n] for n in names if n in there}
        self.background(
            lambda: close_panes(self._team_socket(), panes, there), lambda result: self._closed(panes, *result)
        )

    def _closed(self, panes: dict[str, str], closed: list[str], errors: list[str]) -> None:
        run = self.run
        if run is None:
            return
        for name in closed:
            run.pane_closed(name, f"pane {panes[name]} closed by teamtui")
        self.report(ShutdownNews(run, closed, "; ".join(errors)))

    def _finish_if_done(self) -> None:
        if self.run is not None and self.run.done:
            self.stop()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
