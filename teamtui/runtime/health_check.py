"""The lead's health check: a live teammate holding a task and silent past the timeout has
disappeared (the shared rule, protocol.health), and is back at its next sign of life. Kept in
memory for the lead's events: writing it to config.json would make every dashboard reload it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable

from teamtui.protocol.board import Board
from teamtui.protocol.health import disappears_at
from teamtui.protocol.models import TaskStatus
from teamtui.runtime.slot import Slot


class HealthCheck:
    def __init__(self, timeout: float, say: Callable[..., None], on_disappeared: Callable[[Slot], None] | None = None):
        self.timeout = timeout
        self.say = say
        self.on_disappeared = on_disappeared  # the lead's recovery (on_disappeared in the team file)

    def active(self, slot: Slot) -> None:
        """A sign of life: a log line, a message, a task claimed or completed."""
        if not slot.alive:
            return
        slot.last_activity = time.time()
        if slot.health == "disappeared":
            self.say("info", f"{slot.name} is active again")
            slot.health = "working"
        self.check(slot)

    def holdings(self, slots: Iterable[Slot], board: Board) -> None:
        """Who holds a task decides who can disappear."""
        holders = {t.owner for t in board.tasks.values() if t.status == TaskStatus.IN_PROGRESS}
        for slot in slots:
            holds = slot.alive and slot.name in holders
            if holds != slot.holds_task:
                slot.holds_task = holds
                self.check(slot)

    def check(self, slot: Slot) -> None:
        """Apply the rule now, or wake again when the teammate would cross the timeout."""
        if slot.health_timer is not None:
            slot.health_timer.cancel()
            slot.health_timer = None
        due = disappears_at(
            holds_task=slot.holds_task, stopped=not slot.alive, last_activity=slot.last_activity, timeout=self.timeout
        )
        if due is None or slot.health == "disappeared":
            return
        now = time.time()
        if now <= due:
            # A hair past `due`, so the rule's strict "later than" holds when the timer fires.
            slot.health_timer = asyncio.get_running_loop().call_later(due - now + 0.01, self.check, slot)
            return
        slot.health = "disappeared"
        self.say(
            "warning", f"{slot.name} disappeared: no activity for {self.timeout:g}s while holding a task", notify=True
        )
        if self.on_disappeared is not None:
            self.on_disappeared(slot)
