"""The dashboard's messages: what threads and workers tell the screen, instead of calling it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.state import Change
from teamtui.runtime.shutdown import ShutdownRun
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
    """A shutdown run as it stands (None: the lead did not start one)."""

    run: ShutdownRun | None
    changed: list[str] = field(default_factory=list)  # teammates whose outcome changed, to announce
    error: str = ""  # what went wrong along the way, to tell the user
    # Teammates still there at the deadline whose tmux panes may be closed (name -> pane), to offer.
    offer_panes: dict[str, str] = field(default_factory=dict)
    offer_title: str = ""  # the offer's own words, when not the deadline's
    offer_why: str = ""

    def can_replace(self, message: Message) -> bool:
        # Textual asks the older message: a newer snapshot makes it moot, unless it has news to tell.
        return isinstance(message, ShutdownProgress) and not self.changed and not self.error and not self.offer_panes


@dataclass
class TranscriptsCounted(Message):
    """From the transcript-sums worker: the heads a first read from the end left, counted."""

    heads: dict[str, HeadCount]


@dataclass
class OrphanPanesFound(Message):
    """From a thread: with the lead ended, which teammates' panes still run them (None: unknown)."""

    only: str | None  # the teammate `x` was pressed on; None for `S`
    members: list
    panes: dict[str, str] | None


@dataclass
class ShutdownPanesSeen(Message):
    """From a thread: the panes open on the team's tmux server (None: tmux could not be asked)."""

    open_panes: set[str] | None
