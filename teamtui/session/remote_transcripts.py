"""A remote team's transcripts, as its machine read them: the figures the dashboard and the room
ask of a transcript feed (each member's activity, tokens and cost, the lead's row, what needs the
person, the team's cost, the drift line, the lead's assignments), filled from the stream's
`insight` lines. The cost is priced over there, where the transcripts are.

The transcripts themselves stay on the other machine (they are its files, and large): only
what was made of them there crosses the connection (protocol/stream.py `insight_json`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from teamtui.protocol.changes import Change, MemberView
from teamtui.protocol.claude.transcripts.needs import NeedsYou
from teamtui.protocol.claude.transcripts.stats import Activity
from teamtui.protocol.cost import Cost
from teamtui.protocol.edits import Dismissed, EditLog
from teamtui.protocol.models import MemberStatus, Task


@dataclass(frozen=True, slots=True)
class StreamedTokens:
    total: int | None = None


@dataclass(frozen=True, slots=True)
class StreamedStats:
    """One member's transcript figures, as the other machine counted them."""

    activity: Activity | None = None
    tokens: StreamedTokens = field(default_factory=StreamedTokens)
    context_share: float | None = None
    last_write: float | None = None
    counted: bool = True
    cost: Cost | None = None


@dataclass(frozen=True, slots=True)
class StreamedDrift:
    text: str = ""

    def summary(self) -> str:
        return self.text


class StreamedTranscripts:
    """The answers of a transcript feed (protocol/changes.py TranscriptAnswers) a remote team has."""

    started = True  # made when the first insight arrives

    def __init__(self) -> None:
        self._stats: dict[str, StreamedStats] = {}
        self._lead: MemberView | None = None
        self._needs: list[NeedsYou] = []
        self._tokens: int | None = None
        self._cost: Cost | None = None
        self._drift = StreamedDrift()
        self._assigned: dict[str, Task] = {}
        self._assigned_new = False
        # The files each member changed, as counted there (no diffs here: a `diff` request asks for one).
        self.edits = EditLog()
        self.dismissed = Dismissed()

    def take_insight(self, insight: dict[str, Any]) -> set[str]:
        """A checked insight (stream.read_insight) in place of the last; the members whose figures changed."""
        stats = {m: _stats(u) for m, u in insight["members"].items()}
        moved = {m for m in stats.keys() | self._stats.keys() if stats.get(m) != self._stats.get(m)}
        self._stats = stats
        lead = insight["lead"]
        view = (
            MemberView(
                name=lead["name"],
                status=MemberStatus(lead.get("status", "unknown")),
                agent_type="lead",
                last_activity=lead.get("last_activity"),
                unread=lead.get("unread", 0),
            )
            if lead is not None
            else None
        )
        if view != self._lead:  # a Record: compared by value
            moved.add(view.name if view is not None else self._lead.name if self._lead is not None else "")
        self._lead = view
        needs = [
            NeedsYou(n["kind"], n.get("member", ""), n["key"], n["text"], n.get("since"), n.get("detail", ""))
            for n in insight["needs"]
        ]
        if needs != self._needs:
            moved.update(n.member for n in (*needs, *self._needs))
            self._needs = needs
        self._tokens = insight["tokens"]
        self._cost = insight.get("cost")
        self._drift = StreamedDrift(insight["drift"])
        assigned = {t.id: t for t in insight["assigned"]}
        if assigned != self._assigned:
            self._assigned, self._assigned_new = assigned, True
        self.edits.replace_counts(insight.get("changes", []))
        return moved - {""}

    # ------------------------------------------------------------------ what a feed is asked
    # Answers only (protocol/changes.py TranscriptAnswers): the files are read on the other machine.
    def stats(self, member: str) -> StreamedStats | None:
        return self._stats.get(member)

    def members(self) -> list[str]:
        return list(self._stats)

    def lead_view(self) -> MemberView | None:
        return self._lead

    def status_of(self, member: str) -> MemberStatus | None:
        st = self._stats.get(member)
        kind = st.activity.kind if st is not None and st.activity is not None else None
        return None if kind is None else MemberStatus.IDLE if kind == "idle" else MemberStatus.WORKING

    def total_tokens(self) -> int | None:
        return self._tokens

    def cost(self) -> Cost | None:
        return self._cost

    def member_cost(self, member: str) -> Cost | None:
        st = self._stats.get(member)
        return st.cost if st is not None else None

    def needs_you(self, now: float) -> list[NeedsYou]:
        return list(self._needs)

    def drift(self) -> StreamedDrift:
        return self._drift

    def drift_mark(self) -> tuple:
        return (("remote", self._drift.text, bool(self._drift.text)),) if self._drift.text else ()

    def edits_mark(self) -> int:
        return self.edits.generation

    def files_changed_since(self, mark: int) -> list[str]:
        return sorted({member for member, _ in self.edits.changed_since(mark)})

    def assignments(self, changes: Iterable[Change] = ()) -> dict[str, Task] | None:
        """The lead's assignments when they changed since the last call, else None (as the feed's)."""
        if not self._assigned_new:
            return None
        self._assigned_new = False
        return dict(self._assigned)


def _stats(usage: dict[str, Any]) -> StreamedStats:
    a = usage.get("activity")
    return StreamedStats(
        activity=Activity(a[0], a[1], a[2]) if a is not None else None,
        tokens=StreamedTokens(usage.get("tokens")),
        context_share=usage.get("context_share"),
        last_write=usage.get("last_write"),
        counted=usage.get("counted", True) is not False,
        cost=usage.get("cost"),
    )
