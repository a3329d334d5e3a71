"""The dashboard's messages: what threads and workers tell the screen, instead of calling it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from teamtui.protocol.changes import Change
from teamtui.protocol.models import Message as InboxMessage
from teamtui.session.fleet import FleetBatch
from teamtui.session.shutdown import ShutdownNews
from teamtui.tmux.api import PaneNews

if TYPE_CHECKING:
    from teamtui.protocol.claude.transcripts.reader import HeadCount


@dataclass
class TeamChanged(Message):
    """One batch of the file feed, already applied to TeamState: the widgets it concerns redraw."""

    changes: list[Change]
    full: bool = False  # a rescan: every panel redraws
    read_seconds: float = 0.0  # spent reading the changed files, for the benchmarks' on_batch


@dataclass
class PanesChanged(Message):
    """From the panes' worker thread: who has no pane until selected, or a tmux problem."""

    news: PaneNews


@dataclass
class LeadMessagesDrained(Message):
    """What the lead of `teamtui run` drained from its own inbox (or a JSON-RPC teammate's, for it):
    the watcher would never see it."""

    messages: list[InboxMessage] = field(default_factory=list)
    recipient: str = ""  # whose inbox they were drained from; "" for the lead's


@dataclass
class ShutdownProgress(Message):
    """From a shutdown controller (any thread): the run as it stands, and what to tell of it."""

    news: ShutdownNews

    def can_replace(self, message: Message) -> bool:
        # Textual asks the older message: a newer snapshot makes it moot, unless it has news to tell.
        return isinstance(message, ShutdownProgress) and self.news.routine


@dataclass
class TranscriptsCounted(Message):
    """From the transcript-sums worker: the heads a first read from the end left, counted."""

    heads: dict[str, HeadCount]


@dataclass
class FleetChanged(Message):
    """From the fleet's feed: a batch of file events, applied to the sessions it concerns."""

    batch: FleetBatch
