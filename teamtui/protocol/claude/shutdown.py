"""A shutdown of a Claude Code team, asked of its lead: the model, without any UI or tmux.

Claude Code's lead signs its shutdown requests; one written by anyone else is refused. So
whoever wants the team stopped sends the lead one plain message under its own name, and follows
what really happens in the files: the lead's `shutdown_request`s, the `shutdown_approved` replies
in its inbox, members leaving `members`, `teammate_terminated`, and the panes config.json names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from teamtui.protocol.claude.config import member_pane
from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.shutdown import Outcome, ShutdownRun
from teamtui.protocol.store import TeamStore

# The protocol messages a shutdown's steps are made of.
SHUTDOWN_TYPES = frozenset(
    {"shutdown_request", "shutdown_approved", "shutdown_rejected", "shutdown_response", "teammate_terminated"}
)
# A pane is said to be still open once it outlives its teammate's leaving by this long.
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


def _step_rank(step: str) -> int:
    """Where a step falls in a teammate's shutdown."""
    # Claude Code's teammate_terminated and the member's removal come in either order: as read.
    order: tuple[str | tuple[str, ...], ...] = (
        "asked ",
        "shutdown_request sent",
        "approved",
        "rejected",
        "still there after",
        ("terminated", "left the team"),
        "pane ",
    )
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

    def start(self, known: Iterable[InboxMessage] = ()) -> None:
        self.started_at = self.clock()
        self._before = {id(m): m for m in known}
        text = ask_text(list(self.teammates), self.reason, self.deadline_seconds, self.whole_team)
        assert self.store is not None  # asked here, of the lead, through its inbox
        try:
            self.asked = self.store.send(
                self.lead, text, self.sender, extra={"summary": "teamtui asks for a graceful shutdown"}
            )
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
            n: self.panes[n]
            for n, t in self.teammates.items()
            if self.panes.get(n)
            and not self._pane_gone(n)
            and (t.outcome is Outcome.TIMED_OUT and n not in self.left or "pane still open" in self.steps[n])
        }

    def expire(self, now: float | None = None) -> list[str]:
        timed_out = super().expire(now)
        for name in timed_out:
            self._step(name, f"still there after {self.deadline_seconds:g}s")
        return timed_out
