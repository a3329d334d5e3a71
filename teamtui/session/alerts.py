"""What needs the person, across every team, and when to call them.

One list of items per team, from what its session already knows: requests waiting in a
Claude Code team's transcripts and inboxes (permission, plan approval), a teammate stuck or
silent (the transcripts), one that disappeared (the health rule), a task held after too many
failures, a lead that ended while teammates still worked, two teammates on one file (changes.py),
two live teams of this machine on one file of one working tree (`look_fleet`: the first team's
item). `Alerts.look` compares a team's items with the last look and turns what is new into
notification events, and adds a team that just finished and a teammate that left holding a task
(crashed). What a team already had when the control room first looked is listed, never announced:
that first look waits for its transcripts to be read (before, a team shows none of its edits,
requests or tasks), and a collision between two teams is already there when either had not been
looked at. A collision the person dismisses (`dismiss`, or in the changes view) is not called
again while both stay on the file. What was said and dismissed is remembered across the room's
starts (notify/said.py), by host, team and its life, kind and item: never said twice.

Budgets (config.toml [budgets], protocol/budgets.py) are read on the same looks: a team's, each
teammate's, and every team's today. A threshold reached (80 %, 100 %) calls the person once per
period, also when the control room finds it already reached (it may not have been said yet); the
row shows the furthest (`budget_mark`) and the room's top line today's spend (`spent_today`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal

from teamtui.notify.events import NotifyEvent, NotifyKind, local_host
from teamtui.notify.said import SaidBook
from teamtui.protocol.budgets import BudgetBook, TeamBill, day_crossing, row_mark, team_crossings
from teamtui.protocol.cost import Cost
from teamtui.protocol.edits import Dismissed
from teamtui.protocol.models import MemberStatus, TaskStatus
from teamtui.protocol.store import RunsLead
from teamtui.protocol.taskmeta import blocked_by, failed_reason, held_reason
from teamtui.session.changes import changes_of, fleet_collisions
from teamtui.session.items import Need, offered
from teamtui.session.team import TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from teamtui.protocol.settings import BudgetSettings

Key = tuple[str, str, str]
_OVER = (TaskStatus.COMPLETED, TaskStatus.IN_PROGRESS)  # a task the board never shows as held

# Which notification each kind of item is.
EVENT_OF = {
    "ask": NotifyKind.NEEDS_YOU,  # a permission request a hook waits on: answered from the room
    "waiting": NotifyKind.NEEDS_YOU,  # a session said it waits for a person (a hook's Notification)
    "permission": NotifyKind.NEEDS_YOU,
    "plan": NotifyKind.NEEDS_YOU,
    "held": NotifyKind.NEEDS_YOU,
    "interrupted": NotifyKind.TEAMMATE_STUCK,
    "failed": NotifyKind.TEAMMATE_STUCK,
    "silent": NotifyKind.TEAMMATE_STUCK,
    "disappeared": NotifyKind.TEAMMATE_DISAPPEARED,
    "lead_ended": NotifyKind.LEAD_ENDED,
    "collision": NotifyKind.NEEDS_YOU,
}


def names_member(member: str, text: str) -> bool:
    """Whether `text` already starts with who it is about ("alice asks permission for Bash")."""
    return bool(member) and (text == member or text.startswith(member + " "))


def spoken(need: Need) -> str:
    """The need in one line that names its member once: "alice asks permission …" as it is, else
    "alice: no activity while holding a task"."""
    if not need.member or names_member(need.member, need.text):
        return need.text
    return f"{need.member}: {need.text}"


def needs_of(key: Key, session: TeamSession, now: float) -> list[Need]:
    """What waits for the person in one team, oldest first."""
    if not session.live:
        return []
    state, name = session.state, session.name
    out: list[Need] = []
    feed = state.transcripts
    if session.actions.answers is not None:
        out += _hook_needs(key, session, feed)
    if feed is not None and feed.started:
        out += [Need(key, name, n.kind, n.member, n.text, n.key, n.since) for n in feed.needs_you(now)]
    views = state.member_views(now)
    for v in views:
        if v.disappeared:
            out.append(
                Need(
                    key,
                    name,
                    "disappeared",
                    v.name,
                    "no activity while holding a task",
                    f"gone:{v.name}",
                    v.last_activity,
                )
            )
    # Held after failures (as the board shows it: not done, not under way, not failed for good). Only
    # a task with metadata can be, and the board keeps those: no scan of every task on every batch.
    for task in state.board.with_metadata().values():
        if (
            task.status not in _OVER
            and not failed_reason(task)
            and not blocked_by(task)  # a person already decided
            and (why := held_reason(task))
        ):
            out.append(
                Need(key, name, "held", task.owner or "", f"#{task.id} {task.subject}: {why}", f"held:{task.id}")
            )
    # Two teammates on one file: a transcript's are among the feed's items; git's and declared ones here.
    listed = {n.key for n in out}
    for c in changes_of(session).collisions():
        if c.key not in listed:
            out.append(Need(key, name, "collision", c.a.member, c.text, c.key))
    if session.lead_state() == "ended":
        working = [v.name for v in views if v.status == MemberStatus.WORKING and not v.departed]
        if working:
            out.append(
                Need(
                    key,
                    name,
                    "lead_ended",
                    state.lead,
                    f"the lead ended while {', '.join(working)} still worked",
                    "lead_ended",
                )
            )
    return out


def _hook_needs(key: Key, session: TeamSession, feed: Any) -> list[Need]:
    """What the team's hooks say: the permission requests they wait on, and a session waiting for a
    person, until its lead's transcript moves on after it (the person answered in its terminal)."""
    assert session.actions.answers is not None
    lead = feed.lead_view() if feed is not None and feed.started else None
    moved = lead.last_activity if lead is not None and lead.last_activity is not None else None
    out = []
    for item in session.actions.answers.items():
        if item.kind == "wait":
            if moved is not None and item.since is not None and moved > item.since:
                continue
            out.append(Need(key, session.name, "waiting", item.who, item.text, item.id, item.since))
        else:
            out.append(Need(key, session.name, "ask", item.who, item.text, item.id, item.since))
    return out


def finished(session: TeamSession, now: float) -> bool:
    """Every task completed; or, without tasks, every teammate idle after working (a Claude Code
    team whose teammates all went idle with their results)."""
    state = session.state
    done, total = state.board.progress()
    if total:
        return done == total
    views = [v for v in state.member_views(now) if not v.departed]
    return bool(views) and all(v.status == MemberStatus.IDLE for v in views)


@dataclass
class _Seen:
    needs: set[str] = field(default_factory=set)
    finished: bool = False
    heads: bool = False  # its transcripts' heads were still to be read
    holding: dict[str, str] = field(default_factory=dict)  # member -> the in-progress task it held


class Alerts:
    """Per team, what was there at the last look: what is new since is announced once."""

    def __init__(
        self,
        host: str = "",
        budgets: BudgetSettings | None = None,
        book: BudgetBook | None = None,
        said: SaidBook | None = None,
    ):
        self.host = host  # "" : this machine's name (NotifyEvent's default)
        self._seen: dict[Key, _Seen] = {}
        self.said = said or SaidBook()  # what earlier rooms said and the person dismissed
        self._scopes: dict[Key, str] = {}  # each team's scope in `said` (host, key, life), at its last look
        self._dismissals: dict[Key, int] = {}  # each team's dismissed collisions, as many as were kept
        self.budgets = budgets  # config.toml's [budgets]; None: none are read
        self.book = book or BudgetBook()
        self._costs: dict[Key, Cost | None] = {}  # each team's cost at its last look (the day's sum)
        self._marks: dict[Key, str] = {}
        self.spent_today = Decimal(0)
        # Two live teams on one file of one working tree: each pair a need of the first team's row.
        self.fleet: dict[Key, list[Need]] = {}
        self.fleet_dismissed = Dismissed()
        self._fleet_mark: tuple = ()

    def look(self, key: Key, session: TeamSession, now: float) -> tuple[list[Need], list[NotifyEvent]]:
        scope = self._scopes[key] = self._scope(key, session)
        self._keep_dismissals(key, scope, session)
        needs = needs_of(key, session, now) + self.fleet.get(key, [])
        record_needs(session, needs, now)
        if not _read(session):  # its edits, requests and tasks not known yet: not its first look either
            self.said.save()
            return needs, self._budgets(key, session, now)
        # What its transcripts' heads held (read after their ends) was there at the first look too.
        heads = _heads_pending(session)
        first = key not in self._seen or (self._seen[key].heads and not heads)
        name = session.name
        host = session.panes_on  # another machine's team: its events name that machine
        events = self.announce(key, name, needs, now, quiet=first, runs_lead=lambda: _runs_lead(session), host=host)
        seen = self._seen[key]
        seen.heads = heads
        done = session.live and finished(session, now)
        if not first and done and not seen.finished and self._new(scope, NotifyKind.TEAM_FINISHED, "finished"):
            events.append(self._event(NotifyKind.TEAM_FINISHED, name, _finished_text(session), now, host=host))
        seen.finished = done
        holding = _holding(session)
        if not first:
            for member, task in seen.holding.items():
                if (
                    member not in holding
                    and _left(session, member)
                    and not _completed(session, task)
                    and self._new(scope, NotifyKind.TEAMMATE_CRASHED, f"{member}#{task}")
                ):
                    said = f"{member} left holding #{task}"
                    events.append(self._event(NotifyKind.TEAMMATE_CRASHED, name, said, now, host=host))
        seen.holding = holding
        self.said.save()
        return needs, events + self._budgets(key, session, now)

    def _scope(self, key: Key, session: TeamSession) -> str:
        """What a thing said is about: the host, the team, and its life (a team made again is another)."""
        cfg = session.state.config
        life = cfg.created_at if cfg is not None and cfg.created_at else ""
        return f"{self.host or local_host()}|{'/'.join(key)}@{life}"

    def _new(self, scope: str, kind: NotifyKind, item: str, ever: bool = False) -> bool:
        """Not said by an earlier room (`ever`: nor by this one: a collision is called once per file
        and pair, however often it goes and comes back); remembered as said now."""
        said = f"{scope}|{kind.value}|{item}"
        if self.said.said_before(said) or (ever and self.said.said(said)):
            return False
        self.said.say(said)
        return True

    def _keep_dismissals(self, key: Key, scope: str, session: TeamSession) -> None:
        """The team's collisions dismissed in an earlier room dismissed again; those dismissed in
        this one (here, or in its changes view) remembered."""
        changes = changes_of(session)
        if key not in self._dismissals:
            for dismissed in self.said.dismissed(scope):
                changes.dismiss(dismissed)
        if len(changes.dismissed.keys) != self._dismissals.get(key):
            for dismissed in changes.dismissed.keys:
                self.said.dismiss(scope, dismissed)
            self._dismissals[key] = len(changes.dismissed.keys)

    def look_fleet(self, sessions: Mapping[Key, TeamSession]) -> set[Key]:
        """The collisions between teams of this machine again (what each team changed moves
        them); the teams whose list of them changed, to be looked at."""
        teams = {k: s for k, s in sessions.items() if s.live and s.here is not None}
        mark = (
            tuple((k, changes_of(s).mark(), len(s.state.board.tasks)) for k, s in teams.items()),
            tuple((k, frozenset(changes_of(s).present())) for k, s in teams.items()),
            len(self.fleet_dismissed.keys),
        )
        if mark == self._fleet_mark:
            return set()
        self._fleet_mark = mark
        label = _labels(teams)
        key_of = {label[k]: k for k in teams}
        found: dict[Key, list[Need]] = {}
        for c in fleet_collisions((label[k], changes_of(s)) for k, s in teams.items()):
            key, other = key_of[c.a.team], key_of[c.b.team]
            scope = self._scopes.get(key) or self._scope(key, teams[key])
            if c.key in self.fleet_dismissed or self.said.is_dismissed(scope, c.key):
                continue
            known = self._seen.get(other)
            if key in self._seen and (known is None or known.heads):  # there before the other team's first look
                self._seen[key].needs.add(c.key)
            found.setdefault(key, []).append(Need(key, teams[key].name, "collision", c.a.member, c.text, c.key))
        moved = {k for k in found.keys() | self.fleet.keys() if found.get(k) != self.fleet.get(k)}
        self.fleet = found
        return moved

    def dismiss(self, need: Need, session: TeamSession | None) -> bool:
        """The person dismissed a collision: it is not called again while both stay on the file.
        False when the item is no collision (nothing else is dismissed: it clears when answered)."""
        if need.kind != "collision":
            return False
        if any(n.key == need.key for n in self.fleet.get(need.team, ())):
            self.fleet_dismissed.add(need.key)
            scope = self._scopes.get(need.team)
            if scope is not None:
                self.said.dismiss(scope, need.key)
                self.said.save()
            self._fleet_mark = ()
            self.fleet[need.team] = [n for n in self.fleet[need.team] if n.key != need.key]
        elif session is not None:
            changes_of(session).dismiss(need.key)
        return True

    def announce(
        self,
        key: Key,
        name: str,
        needs: list[Need],
        now: float,
        *,
        quiet: bool = False,
        runs_lead: Callable[[], bool] | None = None,
        host: str = "",
    ) -> list[NotifyEvent]:
        """The needs new since the last look at `key` (none at the first, or when `quiet`: they were
        there already), each with its id and the answers `teamtui answer` takes for it (`runs_lead`:
        whether a `teamtui run` leads the team, so a teammate can be restarted; asked only when it
        matters; `host`: the machine the team is on, "" for this one)."""
        first = quiet or key not in self._seen
        seen = self._seen.setdefault(key, _Seen())
        scope = self._scopes.get(key) or f"{self.host or local_host()}|{'/'.join(key)}"
        events = []
        for n in needs if not first else ():
            kind = EVENT_OF.get(n.kind, NotifyKind.NEEDS_YOU)
            if n.key in seen.needs or not self._new(scope, kind, n.key, ever=n.kind == "collision"):
                continue
            rid = n.answer_id
            restarts = runs_lead is not None and rid.startswith(("stuck:", "gone:")) and runs_lead()
            answers, how = offered(rid, runs_lead=restarts)
            event = self._event(kind, name, spoken(n), now, rid, host=host)
            events.append(replace(event, answers=answers, how=how))
        seen.needs = {n.key for n in needs}
        return events

    def forget(self, key: Key) -> None:
        self._seen.pop(key, None)
        self._scopes.pop(key, None)
        self._dismissals.pop(key, None)
        self._marks.pop(key, None)  # its cost stays in today's sum: what it spent was spent

    def budget_mark(self, key: Key) -> str:
        """The furthest budget the team (or one of its teammates) reached: `team 80%`, `alice 100%`; or ""."""
        return self._marks.get(key, "")

    def _budgets(self, key: Key, session: TeamSession, now: float) -> list[NotifyEvent]:
        """This team's budget calls (its own, its teammates'), and the day's (every team's spend)."""
        feed = session.state.transcripts
        if feed is None or self.budgets is None:
            return []
        self._costs[key] = cost = feed.cost()
        self.spent_today, day = day_crossing(self.budgets, self._costs.values(), now)
        cfg = session.state.config
        life = f"{'/'.join(key)}@{cfg.created_at if cfg is not None and cfg.created_at else ''}"  # a new team: a new period
        members = {m: feed.member_cost(m) for m in feed.members()}
        crossings = team_crossings(self.budgets, TeamBill(life, session.name, cost, members))
        self._marks[key] = row_mark(crossings)
        # A team that ended is not called about: what it spent is final (its row still says it).
        called = [(session.name, c) for c in self.book.first_time(crossings if session.live else [], now)]
        called += [("every team", c) for c in self.book.first_time([day] if day is not None else [], now)]
        return [self._event(NotifyKind.BUDGET, team, c.text(), now) for team, c in called]

    def _event(
        self, kind: NotifyKind, team: str, text: str, now: float, request_id: str = "", *, host: str = ""
    ) -> NotifyEvent:
        host = host or self.host
        if host:
            return NotifyEvent(kind, team, text, host=host, at=now, request_id=request_id)
        return NotifyEvent(kind, team, text, at=now, request_id=request_id)


def record_needs(session: TeamSession, needs: list[Need], now: float) -> None:
    """What needs the person in the team now, into its history (recorder.py: each item opened once,
    closed when it is gone); nothing for a team this machine does not record."""
    from teamtui.protocol.history.live import recorder_of

    recorder = recorder_of(session.state)
    if recorder is not None:
        recorder.needs(needs, now)


def _labels(teams: Mapping[Key, TeamSession]) -> dict[Key, str]:
    """Each team as a collision names it: its name, with its folder when two share a name."""
    names = [s.name for s in teams.values()]
    return {k: s.name if names.count(s.name) == 1 else f"{s.name} in {k[1]}" for k, s in teams.items()}


def _runs_lead(session: TeamSession) -> bool:
    """A `teamtui run` leads the team (on this machine): a teammate of it can be restarted."""
    store = getattr(session.actions.answers, "store", None)
    try:
        return isinstance(store, RunsLead) and store.running_lead() is not None
    except OSError:
        return False


def _read(session: TeamSession) -> bool:
    """A live team's transcripts were read once, and taken (or it has none): what it has is known.
    (`started` alone is not: a first read sets it on its thread, before its edits are taken.)"""
    feed = session.state.transcripts
    return not session.live or feed is None or bool(feed.started and getattr(feed, "ready", True))


def _heads_pending(session: TeamSession) -> bool:
    return bool(getattr(session.state.transcripts, "heads_pending", False))


def _holding(session: TeamSession) -> dict[str, str]:
    """Each owner's in-progress task of the task list (the board's kept index, not a scan)."""
    state = session.state
    if not state.tasks:  # the board shows the lead's assignments, not a task list
        return {}
    return {owner: t.id for owner, t in state.board.current_tasks().items()}


def _left(session: TeamSession, member: str) -> bool:
    """Gone from the team (or shut down) rather than done with its task."""
    state = session.state
    if member in state.departed:
        return True
    m = state.config.member(member) if state.config is not None else None
    return m is None or m.status == MemberStatus.SHUTDOWN


def _completed(session: TeamSession, task_id: str) -> bool:
    task = session.state.tasks.get(task_id)
    return task is not None and task.status == TaskStatus.COMPLETED


def _finished_text(session: TeamSession) -> str:
    done, total = session.state.board.progress()
    return f"all {total} tasks done" if total else "every teammate went idle with its result"
