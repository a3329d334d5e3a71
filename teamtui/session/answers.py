"""Answering what needs the person, from wherever the room is: a capability of each team
(TeamActions.answers) and one for this machine's requests of no team the room lists, with the same
interface whether the team is here (LocalAnswers) or on another machine (session/remote_team.py
RemoteAnswers: the answer travels in the stream and that machine carries it out).

`carry_out` is the one way an answer is carried out on this machine, whoever gave it (this room, a
browser session, a room elsewhere through `teamtui stream`): a permission request a hook waits on
through protocol/hooks/answers.py (first answer wins), anything else through session/requests.py
answer_item (a pane teammate's request pressed in the lead's own dialog, a held task, a stuck or
gone teammate); each is journaled with how (`via`) and from where.
"""

from __future__ import annotations

import time
from pathlib import Path

from teamtui.protocol.hooks.answers import MOVED as ASK_MOVED, AnswerRefused, PermissionAsk, read_ask
from teamtui.protocol.hooks.asks import DECISIONS, LEAD, is_request_id
from teamtui.protocol.store import RunsLead, TeamStore
from teamtui.session.hook_feed import HookFeed, Waiting
from teamtui.session.items import HOW, Answered, Item, Need, Outcome
from teamtui.session.requests import NotAnswered, answer_item, item_of_ask, item_of_need, parse_id, team_items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from teamtui.session.shutdown import Background
    from teamtui.session.team import TeamSession


def waiting_item(w: Waiting, lead: str) -> Item:
    who = w.who or lead
    return Item(
        f"wait:{w.team}:{who}",
        "wait",
        w.team,
        who,
        f"{who} waits for you: {w.text}",
        w.since,
        (),
        HOW["wait"],
    )


def _ask_text(ask: PermissionAsk | None, rid: str) -> str:
    return f"{ask.asker}'s {ask.summary}" if ask is not None else f"request {rid}"


def carry_out(
    item_id: str,
    decision: str,
    message: str,
    *,
    spool: Path | None,
    session: TeamSession | None,
    store: TeamStore | None,
    sender: str,
    via: str,
    where: str,
) -> Outcome:
    """Carry out `decision` on the item `item_id` of this machine (of the team of `store`, or a
    permission request of no team); slow (tmux, files): off the UI's loop. Never raises."""
    try:
        if is_request_id(item_id):
            return _permission(item_id, decision, message, spool=spool, via=via, where=where)
        return _team_item(item_id, decision, message, spool, session, store, sender, via, where)
    except Exception as exc:  # noqa: BLE001 - an answer that fails is said, never a crashed worker
        return Outcome(False, f"could not answer {item_id}: {type(exc).__name__}: {exc}", Answered.REFUSED)


def _permission(rid: str, decision: str, message: str, *, spool: Path | None, via: str, where: str) -> Outcome:
    from teamtui.protocol.hooks.answers import answer

    if spool is None:
        return Outcome(False, "this machine's hooks are not followed here", Answered.REFUSED)
    if decision not in DECISIONS:
        return Outcome(False, f"a permission request takes allow, deny or lead, not {decision!r}", Answered.REFUSED)
    try:
        answer(spool, rid, decision, message=message, via=via, where=where)
    except AnswerRefused as exc:  # another answer came first: said as what became of the request
        if exc.closed is None:
            return Outcome(False, str(exc), Answered.REFUSED)
        return Outcome(False, str(exc), Answered.MOVED if exc.closed == ASK_MOVED else Answered.ALREADY)
    about = _ask_text(read_ask(spool, rid), rid)
    if decision == LEAD:
        return Outcome(True, f"left {about} to the lead's terminal", Answered.MOVED)
    said = f"allowed {about}" if decision == "allow" else f"denied {about}"
    if decision == "deny" and message.strip():
        said += f" ({' '.join(message.split())[:200]})"
    return Outcome(True, said, Answered.TAKEN)


def _team_item(
    item_id: str,
    decision: str,
    message: str,
    spool: Path | None,
    session: TeamSession | None,
    store: TeamStore | None,
    sender: str,
    via: str,
    where: str,
) -> Outcome:
    if session is None or store is None:
        return Outcome(False, f"{item_id} is no request of a team here", Answered.REFUSED)
    try:
        kind, team, target = parse_id(item_id)
    except ValueError as exc:
        return Outcome(False, str(exc), Answered.REFUSED)
    if team != session.name:
        return Outcome(False, f"{item_id} is not a request of {session.name}", Answered.REFUSED)
    key = ("", str(store.root), session.name)
    items = team_items(session, store, key, time.time(), screen=kind in ("perm", "pane"))
    if kind == "perm":  # a pane teammate's request: answerable while the lead's dialog shows this very one
        item = next((i for i in items if i.kind == "pane" and i.detail.get("request_id") == target), None)
        if item is None:
            return Outcome(
                False,
                "the lead's dialog does not show this request now (or the lead is in no tmux pane teamtui "
                "can reach): answer it in the lead's terminal (enter on it jumps to the lead's pane)",
                Answered.REFUSED,
            )
    else:
        item = next((i for i in items if i.id == item_id), None)
        if item is None:
            return Outcome(False, f"{item_id} waits no more (it was answered, or it went)", Answered.ALREADY)
    try:
        taken = answer_item(store, sender, item, decision, message, spool=spool, via=via, where=where)
    except NotAnswered as exc:
        return Outcome(False, str(exc), Answered.REFUSED)
    return Outcome(True, taken.text, Answered.TAKEN)


class LocalAnswers:
    """Answers carried out on this machine: a team's (`store`), or, with no store, the permission
    requests of no team the room lists (`loose`)."""

    where = ""  # this machine

    def __init__(
        self,
        hooks: HookFeed | None,
        store: TeamStore | None,
        sender: str,
        *,
        loose: Callable[[], list[PermissionAsk]] | None = None,
    ):
        self.hooks, self.store, self.sender, self.loose = hooks, store, sender, loose
        self.session: TeamSession | None = None  # bound once the team's session is made (open_local)
        self._root = ""

    def items(self) -> list[Item]:
        """The permission requests hooks wait on for this team, and its sessions waiting for a person."""
        hooks, store = self.hooks, self.store
        if hooks is None:
            return []
        if store is None:
            return [item_of_ask(a) for a in (self.loose() if self.loose is not None else [])]
        if not store.asks_through_hooks:
            return []
        if not self._root:
            self._root = hooks.real(str(store.root))
        lead = self.session.state.lead if self.session is not None else "team-lead"
        asks = [item_of_ask(a) for a in hooks.asks_of(store.name, self._root)]
        return asks + [waiting_item(w, lead) for w in hooks.waiting_of(store.name)]

    def item_for(self, need: Need) -> Item | None:
        """The item behind a need, with the answers it takes here (None: nothing to answer)."""
        if need.kind in ("ask", "waiting"):
            return next((i for i in self.items() if i.id == need.key), None)
        store = self.store
        return item_of_need(need, runs_lead=isinstance(store, RunsLead) and store.running_lead() is not None)

    def answer(
        self,
        item_id: str,
        decision: str,
        message: str,
        *,
        via: str,
        where: str,
        report: Callable[[Outcome], None],
        background: Background,
    ) -> None:
        """Carry it out off the caller's loop (`background`), then `report` the outcome on it."""
        background(lambda: self.carry_out(item_id, decision, message, via=via, where=where), report)

    def carry_out(self, item_id: str, decision: str, message: str, *, via: str, where: str) -> Outcome:
        return carry_out(
            item_id,
            decision,
            message,
            spool=self.hooks.spool if self.hooks is not None else None,
            session=self.session,
            store=self.store,
            sender=self.sender,
            via=via,
            where=where,
        )


__all__ = ["Answered", "LocalAnswers", "Outcome", "carry_out", "waiting_item"]
