"""Shutting a Claude Code team down from outside: ask its lead, then follow what really happens.

Claude Code's lead signs its shutdown requests; one written by anyone else is refused. So the
dashboard sends the lead one plain message under its own name and watches: the lead's
`shutdown_request`s, the `shutdown_approved` replies in its inbox, members leaving `members`,
`teammate_terminated`. At the deadline the teammates still there may have their tmux panes closed
(only panes config.json names, on the tmux server the team runs on), after a confirmation.

When the lead has already ended nobody can approve a shutdown: the dashboard says so at once and
offers to close the panes config.json names that are still open and still run their teammate.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from teamtui.protocol import processes
from teamtui.protocol.claude import member_pane
from teamtui.protocol.claude.leadproc import lead_environ, lead_state
from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.store import TeamStore
from teamtui.runtime.shutdown import Outcome, ShutdownRun
from teamtui.tmux.server import socket_from_env
from teamtui.tui.controllers.shutdown import Report, ShutdownController
from teamtui.tui.messages import ShutdownPanesSeen, ShutdownProgress, TeamChanged

# The protocol messages a shutdown's steps are made of.
_SHUTDOWN_TYPES = frozenset({"shutdown_request", "shutdown_approved", "shutdown_rejected", "shutdown_response", "teammate_terminated"})
# After the deadline the files are still followed this long: a reply read late, a pane closing.
FOLLOW_AFTER = 30.0
# A teammate that left keeps its pane until Claude Code closes it: looked for this often...
PANE_CHECK_EVERY = 2.0
# ...and said to be still open once it outlives its teammate's leaving by this long.
PANE_GRACE = 10.0
# What the lead is sent; the names line is what a person (or a scripted model) reads the targets from.
ASK = (
    "teamtui, the dashboard watching this team, asks you to shut down {what} gracefully within {deadline:g}s: "
    "send each of them a shutdown_request (SendMessage with a structured shutdown_request) and let them "
    "finish. Reason: {reason}.\nTeammates: {names}"
)


def ask_text(targets: list[str], reason: str, deadline: float, whole_team: bool) -> str:
    what = "the team" if whole_team else "teammate " + ", ".join(targets)
    return ASK.format(what=what, deadline=deadline, reason=reason, names=", ".join(targets))


def team_tmux_socket(store: TeamStore) -> str | None:
    """The tmux server the team runs on: the lead's $TMUX (socket path), else this process's."""
    lead = getattr(store, "lead_process", None)
    env = lead_environ(lead) if lead is not None else None
    return socket_from_env(env if env and env.get("TMUX") else None)  # None: this process's $TMUX


def kill_pane(socket: str, pane: str) -> None:
    """Close one teammate's pane (its process ends with it)."""
    res = subprocess.run(
        ["tmux", "-S", socket, "kill-pane", "-t", pane], capture_output=True, text=True, timeout=10, check=False
    )
    if res.returncode != 0:
        raise RuntimeError(res.stderr.strip() or f"tmux kill-pane {pane} failed")


def lead_gone(store: TeamStore) -> bool:
    """The lead's process (config.json's `leadProcess`) has ended: nobody can approve a shutdown."""
    lead = getattr(store, "lead_process", None)
    return lead is not None and lead_state(lead) == "ended"


def _open_panes(socket: str) -> dict[str, int] | None:
    """The panes of the tmux server at `socket`: pane id -> the pid of the process it started
    (None: tmux could not be asked, so nothing is known)."""
    try:
        res = subprocess.run(
            ["tmux", "-S", socket, "list-panes", "-a", "-F", "#{pane_id} #{pane_pid}"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    panes = {}
    for line in res.stdout.splitlines() if res.returncode == 0 else []:  # no server there: nothing is open
        pane, _, pid = line.partition(" ")
        if pid.isdigit():
            panes[pane] = int(pid)
    return panes


def runs_agent(pid: int, agent_id: str, tree: dict[int, list[int]] | None = None) -> bool:
    """Whether `pid` or a process under it was started for `agent_id`: Claude Code starts a pane
    teammate with `--agent-id NAME@TEAM`. A pane id now used by another program is not the teammate."""
    for p in processes.family(pid, 3, tree):
        if any(agent_id in re.split(r"[\s=\"']+", arg) for arg in processes.command_line(p) or []):
            return True
    return False


def teammate_panes_open(store: TeamStore, members: Iterable[Any], names: Iterable[str]) -> dict[str, str] | None:
    """Of `names`, the teammates whose pane (as config.json names it) is still open on the team's tmux
    server and still runs that teammate; None when that server is unknown."""
    socket = team_tmux_socket(store)
    if socket is None:
        return None
    wanted = set(names)
    candidates = [(m, member_pane(m)) for m in members if m.name in wanted and member_pane(m)]
    if not candidates:
        return {}
    panes = _open_panes(socket) or {}
    tree = processes.children() if any(pane in panes for _, pane in candidates) else {}
    found = {}
    for m, pane in candidates:
        agent = m.agent_id or f"{m.name}@{store.name}"
        if pane in panes and runs_agent(panes[pane], agent, tree=tree):
            found[m.name] = pane
    return found


def close_teammate_panes(store: TeamStore, members: Iterable[Any], panes: dict[str, str]) -> tuple[list[str], list[str]]:
    """Close the panes the person confirmed, each checked again just before: (closed names, errors)."""
    members = list(members)
    still = teammate_panes_open(store, members, panes) or {}
    socket = team_tmux_socket(store)
    closed, errors = [], []
    for name, pane in panes.items():
        if still.get(name) != pane or socket is None:
            errors.append(f"{name}'s pane {pane} is no longer open")
            continue
        try:
            kill_pane(socket, pane)
        except Exception as exc:  # noqa: BLE001 - said on screen; the other panes still close
            errors.append(f"pane {pane} of {name} not closed: {exc}")
            continue
        closed.append(name)
    return closed, errors


def _step_rank(step: str) -> int:
    """Where a step falls in a teammate's shutdown."""
    # Claude Code's teammate_terminated and the member's removal come in either order: as read.
    order = ("asked ", "shutdown_request sent", "approved", "rejected", "still there after", ("terminated", "left the team"), "pane ")
    return next((rank for rank, start in enumerate(order) if step.startswith(start)), len(order))


class LeadAskedRun(ShutdownRun):
    """A shutdown the lead carries out: each teammate's steps as seen in the files."""

    def __init__(self, store: TeamStore, targets: Iterable[str], *, whole_team: bool, **kw: Any):
        super().__init__(store, targets, **kw)
        self.whole_team = whole_team
        self.lead = store.lead_name
        self.note = ""  # what the dashboard did, for the view
        self.steps: dict[str, list[str]] = {n: [] for n in self.teammates}
        self.panes: dict[str, str] = {}  # teammate -> its tmux pane, from config.json
        self.left: set[str] = set()  # teammates no longer in `members`
        self.left_at: dict[str, float] = {}  # when each was seen gone
        # The messages already there when the run started, by id(): kept alive here, so that no
        # message read later can be given one of their ids once the bounded history drops them.
        self._before: dict[int, InboxMessage] = {}
        self.asked: InboxMessage | None = None  # the message the lead was sent

    def start(self, known: Iterable[InboxMessage] = ()) -> None:  # type: ignore[override]
        self.started_at = self.clock()
        self._before = {id(m): m for m in known}
        text = ask_text(list(self.teammates), self.reason, self.deadline_seconds, self.whole_team)
        try:
            self.asked = self.store.send(self.lead, text, self.sender, extra={"summary": "teamtui asks for a graceful shutdown"})
        except Exception as exc:  # noqa: BLE001 - said per teammate: nothing else will happen
            for t in self.teammates.values():
                t.outcome, t.detail, t.answered_at = Outcome.ERROR, f"could not ask {self.lead}: {exc}", self.started_at
            self._maybe_finish()
            return
        self.note = f"asked {self.lead} (as {self.sender}) to shut down {', '.join(self.teammates)}"
        for name in self.teammates:
            self._step(name, f"asked {self.lead}")

    def _pane_gone(self, name: str) -> bool:
        return any(s == "pane closed" or s.endswith("closed by teamtui") for s in self.steps[name])

    def panes_to_check(self) -> bool:
        """Some teammate left and its pane (config.json's) is not known to be closed."""
        return any(self.panes.get(n) and not self._pane_gone(n) for n in self.left)

    def panes_seen(self, open_panes: set[str]) -> list[str]:
        """What tmux says of the panes of the teammates that left; returns those whose steps moved."""
        changed = []
        now = self.clock()
        for name in sorted(self.left):
            pane = self.panes.get(name)
            if not pane or self._pane_gone(name):
                continue
            if pane not in open_panes:
                self.pane_closed(name, "pane closed")
                changed.append(name)
            elif now - self.left_at.get(name, now) >= PANE_GRACE and self._step(name, "pane still open"):
                changed.append(name)  # it left the team, but its pane (and maybe its process) stays
        return changed

    def pane_closed(self, name: str, step: str) -> None:
        """A pane's last word: it replaces "pane still open"."""
        if "pane still open" in self.steps[name]:
            self.steps[name].remove("pane still open")
        self._step(name, step)

    def _step(self, name: str, step: str) -> bool:
        steps = self.steps[name]
        if step in steps:
            return False
        # In the order they happen, not the order read: a request may be read (from a transcript) after its reply.
        at = next((i for i, s in enumerate(steps) if _step_rank(s) > _step_rank(step)), len(steps))
        steps.insert(at, step)
        self.teammates[name].detail = " · ".join(steps)
        return True

    def follow(self, messages: Iterable[InboxMessage], members: set[str], departed: dict[str, Any]) -> list[str]:
        """What the files say now; returns the teammates whose state moved."""
        changed: set[str] = set()
        for m in messages:
            if id(m) in self._before:
                continue
            for name in self._concerns(m):
                # Steps are noted even after the outcome is settled: a reply may be read after its sender left.
                t, settled = self.teammates[name], self.teammates[name].outcome.final
                step, outcome = self._meaning(m)
                if step and self._step(name, step):
                    changed.add(name)
                if m.type == "shutdown_request":
                    t.request_id = getattr(m.payload, "request_id", "") or t.request_id
                if outcome is not None and not settled:
                    t.outcome, t.answered_at = outcome, self.clock()
                    changed.add(name)
        for name, t in self.teammates.items():
            member = departed.get(name)
            if member is not None and member_pane(member):
                self.panes.setdefault(name, member_pane(member) or "")
            if name in members:
                continue
            self.left.add(name)
            self.left_at.setdefault(name, self.clock())
            if self._step(name, "left the team"):
                changed.add(name)
            if not t.outcome.final:
                t.outcome, t.answered_at = Outcome.CLEAN, self.clock()
        self._maybe_finish()
        return sorted(changed)

    def _meaning(self, m: InboxMessage) -> tuple[str, Outcome | None]:
        """The step a message is in a teammate's shutdown, and the outcome it settles (if any)."""
        if m.type == "shutdown_request":
            return "shutdown_request sent", None
        if m.type == "shutdown_approved" or m.type == "shutdown_response" and getattr(m.payload, "approve", False):
            return "approved", None
        if m.type in ("shutdown_rejected", "shutdown_response"):
            return f"rejected: {getattr(m.payload, 'reason', '') or 'no reason given'}", Outcome.REJECTED
        if m.type == "teammate_terminated":
            return "terminated", Outcome.CLEAN
        return "", None

    def _concerns(self, m: InboxMessage) -> list[str]:
        """Which of the run's teammates a message is about."""
        if m.type == "shutdown_request" and m.sender == self.lead:
            return [m.recipient] if m.recipient in self.teammates else []
        if m.type in ("shutdown_approved", "shutdown_rejected", "shutdown_response") and m.recipient == self.lead:
            who = m.sender or getattr(m.payload, "from_", "")
            return [who] if who in self.teammates else []
        if m.type == "teammate_terminated":
            said = str(getattr(m.payload, "message", "") or m.content)
            return [n for n in self.teammates if said.startswith(n + " ")]
        return []

    def still_there(self) -> dict[str, str]:
        """Teammates that did not leave, or left but kept their pane, with a pane named in
        config.json: what may be closed."""
        return {
            n: self.panes[n] for n, t in self.teammates.items()
            if self.panes.get(n) and not self._pane_gone(n) and (
                t.outcome is Outcome.TIMED_OUT and n not in self.left or "pane still open" in self.steps[n])
        }

    def expire(self, now: float | None = None) -> list[str]:
        timed_out = super().expire(now)
        for name in timed_out:
            self._step(name, f"still there after {self.deadline_seconds:g}s")
        return timed_out


class AskLeadShutdown(ShutdownController):
    """`S` / `x` on a team whose store says `shutdown_via_lead`: ask the lead, follow the files."""

    # "log": a transcript read (a teammate's or the lead's) may hold a step the inbox lost.
    watches = frozenset({"inbox", "inbox_read", "delivered", "config", "member_left", "member_status", "log"})

    def __init__(
        self,
        report: Report,
        store: TeamStore,
        *,
        sender: str,
        clock: Callable[[], float],
        state: Any,
        set_timer: Callable[[float, Callable[[], None]], Any],
        whole_team: bool,
    ):
        super().__init__(report)
        self.store, self.sender, self.clock, self.state = store, sender, clock, state
        self.set_timer, self.whole_team = set_timer, whole_team
        self.run: LeadAskedRun | None = None
        self._timer = None
        self._checking_panes = False  # a look at the team's tmux panes is under way
        self._socket: str | None = None  # the team's tmux server, once known (read from the lead's environment)
        self._notices_before: dict[int, Any] = {}  # id -> notice, kept alive (see LeadAskedRun._before)
        self._since = 0.0
        # id(notice) -> (the notice, kept alive so its id is not reused; its inbox message or decode error)
        self._decoded: dict[int, tuple[Any, Any]] = {}

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        run = LeadAskedRun(
            self.store, targets, whole_team=self.whole_team, sender=self.sender, reason=reason,
            deadline_seconds=deadline, clock=self.clock,
        )
        self._learn_panes(run)
        self._notices_before = {id(n): n for _, n in self._notices()}
        self._since = time.time() - 1.0  # transcripts stamp wall-clock time; a second of slack
        run.start(list(self.state.messages))
        self.run = run
        if run.asked is not None:  # in the journal and Messages even if the lead takes it before the next read
            self.report(TeamChanged(self.state.sent([run.asked])))
        if not run.done:
            self._timer = self.set_timer(deadline, self._deadline)
        self.report(ShutdownProgress(run, [], ""))

    def _learn_panes(self, run: LeadAskedRun) -> None:
        cfg = self.state.config
        for m in cfg.members if cfg else []:
            pane = member_pane(m)
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
            self.report(ShutdownProgress(run, changed))
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

        def look() -> None:
            panes = _open_panes(socket)
            self.report(ShutdownPanesSeen(None if panes is None else set(panes)))  # post_message: thread-safe

        self._checking_panes = True
        threading.Thread(target=look, name="teamtui-shutdown-panes", daemon=True).start()

    def _team_socket(self) -> str | None:
        if self._socket is None:  # the lead's environment does not change: read once it tells
            self._socket = team_tmux_socket(self.store)
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
            offer = dict(
                offer_panes=kept, offer_title="They left the team, their panes did not: close them?",
                offer_why="Claude Code did not close these panes after their teammates left.",
            ) if kept else {}
            self.report(ShutdownProgress(run, [], **offer))
        if run.panes_to_check() and self.clock() <= run.deadline_at + FOLLOW_AFTER:
            self.set_timer(PANE_CHECK_EVERY, self._look_at_panes)

    def _notices(self) -> list[tuple[str, Any]]:
        """(recipient, notice) of every protocol message the members' transcripts hold."""
        feed = self.state.transcripts
        team = feed.team if feed is not None else None
        return [(member, n) for member, reader in (team.readers.items() if team else ()) for n in reader.notices]

    def _from_transcripts(self) -> list[InboxMessage]:
        """The shutdown messages the transcripts say arrived since the run began, as inbox
        entries: Claude Code prunes an entry within a second, and a busy machine can read the
        inbox too late; the receiver's transcript keeps it (signed ones only)."""
        out = []
        for member, n in self._notices():
            if id(n) in self._notices_before or n.payload.get("type") not in _SHUTDOWN_TYPES:
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
            self.report(ShutdownProgress(run, changed, offer_panes=run.still_there()))

    def close_panes(self, names: list[str]) -> None:
        """Close the panes of `names` (after the person confirmed) on the team's tmux server."""
        run = self.run
        if run is None:
            return
        socket = self._team_socket()
        closed, error = [], ""
        for name in names:
            pane = run.still_there().get(name)
            if pane is None:
                continue
            if socket is None:
                error = "the team's tmux server is unknown (the lead has ended and teamtui is not inside tmux)"
                break
            try:
                kill_pane(socket, pane)
            except Exception as exc:  # noqa: BLE001 - said on screen; the other panes still close
                error = f"pane {pane} of {name} not closed: {exc}"
                continue
            run.pane_closed(name, f"pane {pane} closed by teamtui")
            closed.append(name)
        self.report(ShutdownProgress(run, closed, error))

    def _finish_if_done(self) -> None:
        if self.run is not None and self.run.done:
            self.stop()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
