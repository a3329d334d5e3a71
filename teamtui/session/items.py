"""What waits for the person, as the room lists it and answers it: a need of a team (session/
alerts.py finds them), the item behind it with the answers it takes (session/requests.py), and what
became of an answer (session/answers.py). Plain records, so that a team's capabilities
(session/actions.py) can name them without importing what finds or answers them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from teamtui.protocol.hooks.asks import is_request_id

Key = tuple[str, str, str]

# The answers each kind of item takes (`teamtui answer ID ANSWER`); "restart" is added to stuck and
# gone where a `teamtui run` leads the team.
ANSWERS: dict[str, tuple[str, ...]] = {
    "permission": ("allow", "deny", "lead"),
    "pane": ("allow", "deny"),
    "held": ("retry", "block"),
    "stuck": ("message",),
    "gone": ("release", "message"),
}

# How the person answers a kind that takes no answer from outside the room: one line each.
HOW: dict[str, str] = {
    "perm": "answer it in the lead's terminal (while the lead's dialog shows it, `teamtui answer ID allow|deny` presses it there)",
    "plan": "approve or reject the plan in the lead's terminal",
    "wait": "it waits in the lead's terminal: answer it there",
    "lead": "nothing to answer: the lead ended while teammates worked; start the lead again in its terminal",
    "collision": "nothing to answer: two teammates changed one file; tell one of them (`teamtui send`), or press d on it in the room",
}


@dataclass(frozen=True, slots=True)
class Need:
    """One thing waiting for the person, in one team."""

    team: Key
    team_name: str
    kind: str  # a key of session/alerts.py EVENT_OF
    member: str
    text: str
    key: str  # stable while it waits
    since: float | None = None

    @property
    def answer_id(self) -> str:
        """The id `teamtui answer` (and a notification's JSON) names it by: see session/requests.py."""
        team, rest = self.team_name, self.key.split(":", 1)[-1]
        if self.kind in ("ask", "waiting"):
            return self.key  # the item's own id (session/answers.py)
        if self.kind == "held":
            return f"held:{team}:{rest}"
        if self.kind in ("interrupted", "failed", "silent"):
            return f"stuck:{team}:{self.member}"
        if self.kind == "disappeared":
            return f"gone:{team}:{self.member}"
        if self.kind in ("permission", "plan"):
            return f"{'perm' if self.kind == 'permission' else 'plan'}:{team}:{rest}"
        if self.kind == "collision":  # one per file and pair: its key holds paths, its id a digest of it
            return f"collision:{team}:{hashlib.sha256(self.key.encode()).hexdigest()[:12]}"
        return f"lead:{team}"


def host_of(key: Key) -> str:
    """The machine a team's key names (session/stream_reader.py host_key: "ssh:HOST", "nats:HOST");
    "" for a team of this machine."""
    where, sep, host = key[0].partition(":")
    return host if sep and where in ("ssh", "nats") else ""


def kind_of_id(item_id: str) -> str:
    """The kind of item an id names: "permission" for a hook's (32 hex), else its first part."""
    if is_request_id(item_id):
        return "permission"
    return item_id.split(":", 1)[0]


def offered(item_id: str, *, runs_lead: bool) -> tuple[tuple[str, ...], str]:
    """(the answers `teamtui answer` takes for the item `item_id`, how it is answered when it takes none)."""
    kind = kind_of_id(item_id)
    answers = ANSWERS.get(kind, ())
    if kind in ("stuck", "gone") and runs_lead:
        answers += ("restart",)
    return answers, "" if answers else HOW.get(kind, "")


@dataclass
class Item:
    """One thing waiting for the person, with the id that answers it."""

    id: str
    kind: str  # permission | pane | held | stuck | gone | perm | plan | lead | wait
    team: str
    who: str
    text: str
    since: float | None = None
    answers: tuple[str, ...] = ()
    note: str = ""  # why it cannot be answered from here, or how
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "team": self.team,
            "who": self.who,
            "text": self.text,
            "since": self.since,
            "answers": list(self.answers),
            "note": self.note,
            **({"detail": self.detail} if self.detail else {}),
        }


class Answered(StrEnum):
    """What became of an answer, as the person is told (its value is what a stream's `result` says)."""

    TAKEN = "taken"  # carried out
    MOVED = "moved"  # left to the lead's terminal (by this answer, or already)
    ALREADY = "already"  # someone answered first
    REFUSED = "refused"  # not taken: the text says why


@dataclass(frozen=True, slots=True)
class Outcome:
    """An answer's result: whether it was taken, the words the person reads, and what became of it."""

    taken: bool
    text: str
    state: Answered = Answered.TAKEN


__all__ = [
    "ANSWERS",
    "Answered",
    "HOW",
    "Item",
    "Key",
    "Need",
    "Outcome",
    "kind_of_id",
    "offered",
]
