"""`answer`: what needs the person in a team on another machine (or that machine's requests of no
team), answered there by its rules (first answer wins; a pane teammate's request only through the
lead's own dialog; written under the honest sender), journaled as from a host. The host lists what
waits in its `hooks` line (`hooks_items`; protocol/stream_hooks.py is the wire); the room reads it
back as items (`hook_items`, RemoteAnswers) and sends an answer; the host carries it out
(`handle`) and its result line says what became of it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.hooks.asks import LEAD
from teamtui.protocol.stream import NAME_CAP, TEXT_CAP, name
from teamtui.protocol.stream_hooks import HOOK_ITEMS_CAP, read_hooks
from teamtui.session.items import Answered, Item, Need, Outcome
from teamtui.session.ops.base import Op, background
from teamtui.session.requests import item_of_need

ANSWERED = frozenset(a.value for a in Answered)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.local import LocalSource
    from teamtui.session.ops.base import Asks, Key, Server
    from teamtui.session.shutdown import Background
    from teamtui.session.team import TeamSession


@dataclass(frozen=True, slots=True)
class Answer:
    item: str
    answer: str  # the decision: one of the item's answers
    message: str
    said_from: str = field(default="", metadata={"wire": "from"})  # the room, in its own words

    @classmethod
    def read(cls, req: dict[str, Any]) -> Answer:
        item, decision, message = req.get("item"), req.get("answer"), req.get("message")
        for what, value in (("item", item), ("answer", decision)):
            if not isinstance(value, str) or not value or len(value) > NAME_CAP:
                raise ValueError(f"{what} must be a non-empty string")
        if message is not None and not isinstance(message, str):
            raise ValueError("message must be a string")
        return cls(str(item), str(decision), (message or "")[:TEXT_CAP], name(req.get("from"), 200) or "a room")


def hooks_items(fleet: LocalSource) -> list[dict[str, Any]]:
    """What this machine's hooks say waits for the person, each item with the key of its team
    (null: a request of no team listed), at most HOOK_ITEMS_CAP: the `hooks` line's."""
    items: list[dict[str, Any]] = []
    for key, session in list(fleet.sessions.items()):
        answers = session.actions.answers
        if answers is not None and session.live:
            items += [{**i.to_json(), "key": list(key)} for i in answers.items()]
    if fleet.answers is not None:
        items += [{**i.to_json(), "key": None} for i in fleet.answers.items()]
    return items[:HOOK_ITEMS_CAP]


def handle(server: Server, rid: Any, key: Key | None, session: TeamSession | None, req: Answer) -> None:
    """Carry out an answer (its team's `session`, or None: a request of no team) off the loop."""
    fleet = server.fleet
    answers = session.actions.answers if session is not None else fleet.answers
    if answers is None:
        raise ValueError("nothing here can be answered" + (f": {session.read_only}" if session else ""))
    client = os.environ.get("SSH_CONNECTION", "").split(" ")[0]
    where = f"{req.said_from} over {server.via}" + (f" from {client}" if client and server.via == "ssh" else "")

    def report(outcome: Outcome | None) -> None:
        # A refusal's `detail` names what became of it (Answered: already, moved, refused), so the room reads no words.
        if outcome is None:
            server.result(rid, False, "the answer could not be carried out here", Answered.REFUSED.value)
        elif outcome.taken:
            server.result(rid, True, "", outcome.text)
        else:
            server.result(rid, False, outcome.text, outcome.state.value)
        asyncio.ensure_future(server.flush())

    answers.answer(
        req.item,
        req.answer,
        req.message,
        via="host",
        where=where[:NAME_CAP],
        report=report,
        background=background(lambda exc, done: done(None)),  # said as not carried out
    )


def hook_items(line: dict[str, Any], known: set[Key]) -> dict[Key | None, list[Item]]:
    """A `hooks` line's items by the remote's key of their team; those of a team not `known` here
    (or of none) under None."""
    found: dict[Key | None, list[Item]] = {}
    for rkey, f in read_hooks(line):
        item = Item(
            f["id"],
            f["kind"],
            f.get("team") or (rkey[2] if rkey else ""),
            f.get("who", ""),
            f["text"],
            f.get("since"),
            f["answers"],
            f.get("note", ""),
            f["detail"],
        )
        found.setdefault(rkey if rkey in known else None, []).append(item)
    return found


class RemoteAnswers:
    """What needs the person in a team on another machine (or that machine's requests of no team),
    as its stream's `hooks` line lists it; an answer is an `answer` request that machine carries out
    under its own rules, and its result line says what became of it."""

    def __init__(self, asks: Asks):
        self.asks = asks

    @property
    def where(self) -> str:
        return self.asks.name

    def items(self) -> list[Item]:
        return self.asks.host.hook_items(self.asks.remote_key)

    def item_for(self, need: Need) -> Item | None:
        if need.kind in ("ask", "waiting"):
            return next((i for i in self.items() if i.id == need.key), None)
        # Whether a `teamtui run` leads it there is that machine's to say: a restart it cannot do is refused there.
        return item_of_need(need, runs_lead=True)

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
        def result(ok: bool, error: str, detail: str) -> None:
            if ok:  # taken there: moved when the answer was to leave it to the lead's terminal
                state = Answered.MOVED if decision == LEAD else Answered.TAKEN
                report(Outcome(True, f"{self.asks.name}: {detail or 'done'}", state))
            else:  # a refusal's `detail` names what became of it (handle's report); an older teamtui says none
                refused = detail if detail in ANSWERED else Answered.REFUSED
                report(Outcome(False, f"{self.asks.name}: {error or 'refused'}", Answered(refused)))

        try:  # no `what`: the outcome is said by `report`
            self.asks.request("answer", "", Answer(item_id, decision, message, where), on_result=result)
        except ProtocolError as exc:
            report(Outcome(False, str(exc), Answered.REFUSED))


OPS = (Op("answer", handle, Answer.read, scope="either"),)
