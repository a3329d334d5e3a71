"""Answering what needs the person in a team on another machine (session/remote.py follows it):
what its stream's `hooks` line lists, read back as items, and an answer sent as an `answer` request
that machine carries out under its own rules (session/stream_answers.py there); its result line
says what became of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.hooks.asks import LEAD
from teamtui.session.items import Answered, Item, Need, Outcome
from teamtui.session.requests import item_of_need

ANSWERED = frozenset(a.value for a in Answered)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from teamtui.session.shutdown import Background

    Key = tuple[str, str, str]

    class HostAsks(Protocol):
        """Requests about one remote team (or its machine) over its host's connection (remote_team.py Asks)."""

        remote_key: Key | None

        @property
        def name(self) -> str: ...
        @property
        def host(self) -> Any: ...  # has hook_items(remote_key)
        def request(self, op: str, what: str, **fields: Any) -> str: ...


def hook_items(line: dict[str, Any], known: set[tuple[str, str, str]]) -> dict[tuple[str, str, str] | None, list[Item]]:
    """A `hooks` line's items by the remote's key of their team; those of a team not `known` here
    (or of none) under None."""
    from teamtui.protocol.stream_hooks import read_hooks

    found: dict[tuple[str, str, str] | None, list[Item]] = {}
    for rkey, fields in read_hooks(line):
        item = Item(
            fields["id"],
            fields["kind"],
            fields.get("team") or (rkey[2] if rkey else ""),
            fields.get("who", ""),
            fields["text"],
            fields.get("since"),
            fields["answers"],
            fields.get("note", ""),
            fields["detail"],
        )
        found.setdefault(rkey if rkey in known else None, []).append(item)
    return found


class RemoteAnswers:
    """What needs the person in a team on another machine (or that machine's requests of no team),
    as its stream's `hooks` line lists it; an answer is an `answer` request that machine carries out
    under its own rules, and its result line says what became of it."""

    def __init__(self, asks: HostAsks):
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
            else:  # a refusal's `detail` names what became of it (stream_answers.py); an older teamtui says none
                refused = detail if detail in ANSWERED else Answered.REFUSED
                report(Outcome(False, f"{self.asks.name}: {error or 'refused'}", Answered(refused)))

        fields: dict[str, Any] = {"item": item_id, "answer": decision, "message": message, "from": where}
        try:
            self.asks.request("answer", "", on_result=result, **fields)  # no `what`: the outcome is said by `report`
        except ProtocolError as exc:
            report(Outcome(False, str(exc), Answered.REFUSED))


__all__ = ["RemoteAnswers", "hook_items"]
