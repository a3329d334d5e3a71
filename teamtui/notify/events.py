"""What a notification is about: one small record per event, whatever channel carries it."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from enum import StrEnum

from teamtui.notify.text import MAX_NAME, MAX_TEXT, plain


class NotifyKind(StrEnum):
    NEEDS_YOU = "needs_you"  # a new item in the "Needs you" strip
    TEAM_FINISHED = "team_finished"
    LEAD_ENDED = "lead_ended"  # the lead ended while teammates were still working
    TEAMMATE_STUCK = "teammate_stuck"
    TEAMMATE_CRASHED = "teammate_crashed"
    TEAMMATE_DISAPPEARED = "teammate_disappeared"
    BUDGET = "budget"  # a budget reached 80 % or 100 % (protocol/budgets.py): said once per threshold and period


# How each kind reads in a notification's body.
LABELS: dict[NotifyKind, str] = {
    NotifyKind.NEEDS_YOU: "needs you",
    NotifyKind.TEAM_FINISHED: "finished",
    NotifyKind.LEAD_ENDED: "lead ended with teammates still working",
    NotifyKind.TEAMMATE_STUCK: "teammate stuck",
    NotifyKind.TEAMMATE_CRASHED: "teammate crashed",
    NotifyKind.TEAMMATE_DISAPPEARED: "teammate disappeared",
    NotifyKind.BUDGET: "budget",
}


def local_host() -> str:
    return socket.gethostname()


@dataclass(frozen=True, slots=True)
class NotifyEvent:
    kind: NotifyKind
    team: str
    text: str = ""
    # The machine the team runs on; "" when unknown.
    host: str = field(default_factory=local_host)
    # Epoch seconds.
    at: float = field(default_factory=time.time)
    # The id of the item it is about (`teamtui requests` lists it), "" when none; the answers
    # `teamtui answer ID ANSWER` takes for it (on the team's machine), and how it is answered when none.
    request_id: str = ""
    answers: tuple[str, ...] = ()
    how: str = ""

    def cleaned(self) -> NotifyEvent:
        """The event with every field safe to show and bounded: team names and texts come from
        files other programs write, and every channel passes them on."""
        return NotifyEvent(
            NotifyKind(self.kind),
            plain(self.team, MAX_NAME),
            plain(self.text, MAX_TEXT),
            plain(self.host, MAX_NAME),
            float(self.at),
            plain(self.request_id, 200),  # KIND:TEAM:WHAT, or 32 hex
            tuple(plain(a, 20) for a in self.answers[:10]),
            plain(self.how, MAX_TEXT),
        )

    def to_json(self) -> str:
        """One line of JSON, as a `command` reads it on stdin."""
        record: dict[str, object] = {
            "kind": str(self.kind),
            "team": self.team,
            "host": self.host,
            "text": self.text,
            "at": self.at,
        }
        if self.request_id:
            record["id"] = self.request_id
            record["answers"] = list(self.answers)
            if self.how:
                record["how"] = self.how
        return json.dumps(record, separators=(",", ":")) + "\n"

    def headline(self) -> tuple[str, str]:
        """(title, body) as a notification shows them: "teamtui: TEAM[ on HOST]", "LABEL: TEXT"."""
        where = f" on {self.host}" if self.host and self.host != local_host() else ""
        label = LABELS[NotifyKind(self.kind)]
        return f"teamtui: {self.team}{where}", f"{label}: {self.text}" if self.text else label
