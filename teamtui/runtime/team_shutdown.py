"""The lead's own shutdown of the whole team and how the run ends: started once (all done,
stuck, asked, a signal, the dashboard), a rung higher on a second ask, and wound up once every
teammate is gone (the shutdown summary, the worktrees, the team-shutdown hook, the asks' answers).
The ladder itself is ladder.py's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from teamtui.protocol.board import Board
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.native.leadpid import unmark_lead
from teamtui.protocol.shutdown import ShutdownRun
from teamtui.runtime.asks import Asks
from teamtui.runtime.hooks import Hooks
from teamtui.runtime.ladder import Ladder, Progress, Rung
from teamtui.runtime.slot import Slot
from teamtui.runtime.supervisor import Supervisor
from teamtui.runtime.teamfile import TeamSection

EXIT_DONE = 0
EXIT_STUCK = 1
EXIT_INTERRUPTED = 130


@dataclass(slots=True)
class RunResult:
    code: int
    reason: str
    shutdown: dict | None = None


class TeamShutdown:
    def __init__(
        self,
        store: NativeTeam,
        settings: TeamSection,
        slots: list[Slot],
        supervisor: Supervisor,
        hooks: Hooks,
        asks: Asks,
        *,
        sender: str,
        say: Callable[..., None],
        wake: Callable[[], None],
    ):
        self.store = store
        self.settings = settings
        self.slots = slots
        self.supervisor = supervisor
        self.hooks = hooks
        self.asks = asks
        self.sender = sender
        self.say = say
        self.wake = wake
        self.ladder: Ladder | None = None
        self.result: RunResult | None = None  # set once the team is stopping: how the run ends
        self.begun = threading.Event()  # set once the graceful shutdown has begun

    def start(
        self,
        reason: str,
        code: int,
        escalate: bool = False,
        wire_reason: str = "",
        deadline: float | None = None,
        on_progress: Progress | None = None,
    ) -> None:
        if self.ladder is not None:
            if on_progress is not None:
                on_progress(None)
            # Asked again while shutting down (a second Ctrl-C): climb the ladder now.
            if escalate and self.ladder.rung < Rung.KILLED:
                self.ladder.climb()
            return
        self.result = RunResult(code, reason)
        targets = [s.name for s in self.slots if s.alive]
        wait = self.settings.shutdown_deadline if deadline is None else deadline
        run = ShutdownRun(self.store, targets, sender=self.sender, reason=wire_reason or reason, deadline_seconds=wait)
        self.ladder = Ladder(
            run,
            grace=self.settings.shutdown_grace,
            slots=self.slots,
            supervisor=self.supervisor,
            say=self.say,
            wake=self.wake,
        )
        if on_progress is not None:
            self.ladder.listen(on_progress)
        if targets:
            self.say("info", f"shutting down ({reason}): asking {', '.join(targets)} (deadline {wait:g}s)")
        self.ladder.climb()
        self.begun.set()

    async def wind_up(self) -> RunResult:
        """Every teammate is gone: close the run, say and hook how the team ended, answer the asks."""
        tasks, _ = self.store.list_tasks(include_internal=True)
        board = Board(tasks)
        summary = None
        if self.ladder is not None:
            summary = self.ladder.finish(tasks, time.time())
            if self.ladder.run.teammates:
                outcomes = ", ".join(f"{t.name} {t.outcome.said}" for t in self.ladder.run.teammates.values())
                self.say("info", f"shutdown summary: {outcomes}")
        kept = []
        for end in self.supervisor.worktrees.finish():
            self.say("info" if end.removed else "warning", end.describe())
            if not end.removed:
                wt = end.worktree
                kept.append({"teammate": wt.name, "path": str(wt.path), "branch": wt.branch, "why": end.detail})
        if summary is not None:
            summary["worktrees_kept"] = kept
        done, total = board.progress()
        started = sum(1 for s in self.slots if s.runs)
        self.hooks.fire(
            "team-shutdown",
            team_name=self.store.name,
            member_count=started,
            tasks_completed=done,
            tasks_total=total,
            reason=self.result.reason if self.result else "",
        )
        await self.hooks.drain()
        assert self.result is not None
        self.result.shutdown = summary
        self.asks.finish_team(summary)
        unmark_lead(self.store)
        self.say(
            "info" if self.result.code == 0 else "error",
            f"team stopped: {self.result.reason} [{done}/{total} task{'s' if total != 1 else ''} completed]",
        )
        return self.result
