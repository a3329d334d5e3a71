"""What waits for the person, as the room lists it and answers it: a need of a team (session/
alerts.py finds them), the item behind it with the answers it takes (session/requests.py), and what
became of an answer (session/answers.py). Plain records, so that a team's capabilities
(session/actions.py) can name them without importing what finds or answers them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Key = tuple[str, str, str]


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
        return f"lead:{team}"


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

    def to_json(self) -> dict[str, Any]:
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


# What became of an answer, as the person is told.
TAKEN = "taken"  # carried out
MOVED = "moved"  # left to the lead's terminal (by this answer, or already)
ALREADY = "already"  # someone answered first
REFUSED = "refused"  # not taken: the text says why


@dataclass(frozen=True, slots=True)
class Outcome:
    taken: bool
    text: str
    state: str = TAKEN


__all__ = ["ALREADY", "Item", "Key", "MOVED", "Need", "Outcome", "REFUSED", "TAKEN"]
