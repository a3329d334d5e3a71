"""The shutdown ladder (Autohand's): ask every live teammate to stop, past the deadline SIGTERM,
past the grace SIGKILL. One ladder drives one ShutdownRun and tells its listeners every change."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from enum import IntEnum

from teamtui.protocol.shutdown import Outcome, ShutdownRun
from teamtui.runtime.slot import Slot
from teamtui.runtime.supervisor import Supervisor

Progress = Callable[[ShutdownRun | None], None]


class Rung(IntEnum):
    NONE = 0  # no shutdown yet
    REQUESTED = 1  # requests sent: replies are awaited until the deadline
    TERMINATED = 2  # past the deadline: SIGTERM sent, the grace runs
    KILLED = 3  # past the grace: SIGKILL sent, nothing left to climb


def snapshot(run: ShutdownRun) -> ShutdownRun:
    """A copy the ladder no longer mutates; the store and the clock are shared, not copied."""
    return copy.deepcopy(run, memo={id(run.store): run.store, id(run.clock): run.clock})


class Ladder:
    def __init__(
        self,
        run: ShutdownRun,
        *,
        grace: float,
        slots: list[Slot],
        supervisor: Supervisor,
        say: Callable[[str, str], None],
        wake: Callable[[], None],
    ):
        self.run = run
        self.grace = grace
        self.slots = slots
        self.supervisor = supervisor
        self.say = say
        self.wake = wake  # the lead re-reads everything when a rung's wait ends
        self.rung = Rung.NONE
        self._timer: asyncio.TimerHandle | None = None
        self._listeners: list[Progress] = []

    def listen(self, on_progress: Progress) -> None:
        """Hear of every change from now on, starting with the run as it stands."""
        self._listeners.append(on_progress)
        if self.rung is not Rung.NONE:
            self._tell(on_progress, snapshot(self.run))

    def climb(self) -> None:
        """The one place the ladder climbs: one rung, its action, and the wait before the next."""
        if self.rung is Rung.KILLED:
            return
        self.rung = Rung(self.rung + 1)
        alive = [s for s in self.slots if s.alive]
        wait: float | None = None
        if self.rung is Rung.REQUESTED:
            self.run.start()
            wait = self.run.deadline_seconds
        elif self.rung is Rung.TERMINATED:
            self.run.expire(self.run.deadline_at)
            if alive:
                self.say("warning", f"sending SIGTERM to {', '.join(s.name for s in alive)}")
            self.supervisor.terminate(alive)
            wait = self.grace
        else:
            if alive:
                self.say("warning", f"sending SIGKILL to {', '.join(s.name for s in alive)}")
            self.supervisor.kill(alive)
        self._set_timer(wait)
        self.changed()

    def observe(self, replies: list) -> list[str]:
        """Replies from the lead's inbox; returns the teammates whose outcome they settled."""
        settled = self.run.observe(replies)
        if settled:
            self.changed()
        return settled

    def exited(self, name: str, code: int | None) -> None:
        """A teammate of the run ended; without a reply its exit code is its answer."""
        t = self.run.teammates.get(name)
        if t is None or t.outcome.final:
            return
        t.outcome = Outcome.CLEAN if code == 0 else Outcome.ERROR
        t.detail = f"exited with code {code} without replying"
        self.run.observe(())  # settles finished_at once everyone has answered
        self.changed()

    def settle(self) -> None:
        """Nobody is left to wait for: no further rung."""
        if not any(s.alive for s in self.slots):
            self._set_timer(None)

    def finish(self, tasks: list, finished_at: float) -> dict:
        """Close the run: its results beside the team, the last snapshot to listeners, the summary."""
        self._set_timer(None)
        self.run.finished_at = self.run.finished_at or finished_at
        self.run.write_results(tasks)
        self.changed()
        return self.run.summary(tasks)

    def changed(self) -> None:
        for listener in self._listeners:
            self._tell(listener, snapshot(self.run))

    def _tell(self, listener: Progress, snap: ShutdownRun) -> None:
        try:
            listener(snap)
        except Exception as exc:  # noqa: BLE001 - a listener's failure must not stop the shutdown
            self.say("debug", f"a shutdown listener failed: {exc!r}")

    def _set_timer(self, delay: float | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if delay is not None:
            self._timer = asyncio.get_running_loop().call_later(delay, self._wait_over)

    def _wait_over(self) -> None:
        self._timer = None
        if any(s.alive for s in self.slots):
            self.climb()
        self.wake()
