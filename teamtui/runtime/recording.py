"""A headless lead's team recorded in the history, as a dashboard records the team it shows: the
team read into a TeamState whose observer is the history's recorder (protocol/history/live.py),
kept current by the team's file events on the lead's own loop, and told what the lead drains
from inboxes before a file could show it. Off with TEAMTUI_HISTORY=0."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from teamtui.protocol.history.live import observer_for, recording
from teamtui.protocol.history.writer import shared_writer
from teamtui.protocol.models import Message
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.state import TeamState
from teamtui.protocol.watch import watch_dirs

# How long the end of a run waits for the history's writer to commit what it was given.
FLUSH_SECONDS = 5.0


class RunRecording:
    """The history's record of one team a lead runs, while it runs."""

    def __init__(self, root: Path, team: str, *, health_timeout: float):
        # Absolute: the watcher reports absolute paths, and a relative root would match none of them.
        store = NativeTeam(Path(os.path.abspath(root)), team)
        self.state = TeamState(store, health_timeout=health_timeout, journal=observer_for(store))  # keeps no journal
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> str:
        """Read the team as it is and follow it (on the running loop): the team must be on disk.
        Returns why it is not recorded ('' when it is): a recording never stops the lead."""
        try:
            self.state.load_all()
        except Exception as exc:  # noqa: BLE001 - said by the caller; the team runs on unrecorded
            return f"the team is not recorded in the history: {exc}"
        self._task = asyncio.get_running_loop().create_task(self._follow())
        return ""

    def ingest(self, recipient: str, messages: list[Message]) -> None:
        """Messages the lead drained from `recipient`'s inbox (on the lead's loop)."""
        if self._task is not None:
            self.state.ingest(recipient, messages)

    async def finish(self) -> None:
        """The team's last state read, the watch stopped, and what was recorded committed."""
        if self._task is None:
            return
        self._stop.set()
        await asyncio.gather(self._task, return_exceptions=True)
        self.state.resync()
        if recording():
            await asyncio.to_thread(shared_writer().flush, FLUSH_SECONDS)

    async def _follow(self) -> None:
        async for batch in watch_dirs(self.state.watch_dirs(), self._stop, flat=self.state.flat_watch_dirs()):
            if batch.rescan or batch.ready:
                self.state.resync()  # the watch (re)started: what changed meanwhile
            else:
                self.state.apply_batch(sorted(batch.paths))


__all__ = ["RunRecording"]
