"""The dashboard's messages: what threads and workers tell the screen, instead of calling it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from textual.message import Message

from teamtui.protocol.models import Message as InboxMessage
from teamtui.session.alerts import Need
from teamtui.session.shutdown import ShutdownNews
from teamtui.session.source import FleetBatch
from teamtui.tmux.api import PaneNews


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
class FleetChanged(Message):
    """From the fleet's feed: a batch of news, applied to the sessions it concerns. `shown` is set
    once the screen drew it: the feed then asks for the next (it never runs ahead of the screen)."""

    batch: FleetBatch
    shown: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class AnswerRequested(Message):
    """`a` on a need (the room's list, a team's strip): the app's answering flow shows it and its answers."""

    need: Need
