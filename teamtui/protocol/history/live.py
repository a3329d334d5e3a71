"""Recording a live team: where a session (or a stream) gets its recorder.

`observer_for(store, journal)` is the one call a team's source makes when it opens a team: the
team's journal (where its layout keeps one) and its history recorder, told of every batch
together. Off when `TEAMTUI_HISTORY=0` (a benchmark's "without", a person who wants none).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from teamtui.protocol.history.recorder import HistoryRecorder, ident_of
from teamtui.protocol.history.writer import shared_writer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.model import TeamModel
    from teamtui.protocol.store import TeamStore


def recording() -> bool:
    """History is recorded unless TEAMTUI_HISTORY=0."""
    return os.environ.get("TEAMTUI_HISTORY", "1") != "0"


def recorder_for(store: TeamStore, host: str = "") -> HistoryRecorder:
    """A recorder of the team `store` opens, writing through this process's one writer."""
    return HistoryRecorder(ident_of(store, host), shared_writer())


class Observers:
    """Several observers told of every batch, in order (the journal, then the history)."""

    def __init__(self, *observers: Any):
        self.observers = [o for o in observers if o is not None]

    def observe(self, state: TeamModel, changes: Iterable[object]) -> None:
        changes = changes if isinstance(changes, list) else list(changes)
        for o in self.observers:
            o.observe(state, changes)

    def assignments(self, assigned: dict[str, object]) -> None:
        for o in self.observers:
            o.assignments(assigned)

    def note_cost(self, state: TeamModel, force: bool = False) -> None:
        """The feed's word after every read (what the team cost): each observer that keeps a cost."""
        for o in self.observers:
            note = getattr(o, "note_cost", None)
            if note is not None:
                note(state, force)

    def note_edits(self, edits: list[object]) -> None:
        for o in self.observers:
            note = getattr(o, "note_edits", None)
            if note is not None:
                note(edits)

    @property
    def recorder(self) -> HistoryRecorder | None:
        return next((o for o in self.observers if isinstance(o, HistoryRecorder)), None)


def recorder_of(state: TeamModel) -> HistoryRecorder | None:
    """The recorder a team's model tells (for what only its caller knows: the needs, changes, cost)."""
    observer = state.journal
    if isinstance(observer, HistoryRecorder):
        return observer
    return observer.recorder if isinstance(observer, Observers) else None


def observer_for(store: TeamStore, journal: object = None, host: str = "") -> Any:
    """What TeamState(journal=...) is given: the journal and the recorder, or just the journal
    when history is off."""
    if not recording():
        return journal
    return Observers(journal, recorder_for(store, host))
