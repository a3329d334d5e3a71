"""The teammates' runs as the lead keeps them going: start one (its member entry, the
teammate-spawned hook), see a run end (take its work back, then restart it or say how it ended),
and recover one that disappeared (the team file's on_disappeared). The processes themselves are
the supervisor's; what counts as disappeared is health_check.py's."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Any

from teamtui.protocol.errors import NotFoundError
from teamtui.protocol.native import NativeTeam
from teamtui.runtime.health_check import HealthCheck
from teamtui.runtime.hooks import Hooks
from teamtui.runtime.jsonrpc_teammate import JsonRpcTeammate
from teamtui.runtime.ladder import Ladder
from teamtui.runtime.recovery import take_back
from teamtui.runtime.slot import Slot
from teamtui.runtime.supervisor import Supervisor
from teamtui.runtime.teamfile import TeamSection


class Teammates:
    def __init__(
        self,
        slots: list[Slot],
        settings: TeamSection,
        store: NativeTeam,
        supervisor: Supervisor,
        hooks: Hooks,
        say: Callable[..., None],
        *,
        ladder: Callable[[], Ladder | None],
        read_replies: Callable[[], None],
        wake: Callable[[], None],
    ):
        self.slots = slots
        self.by_name = {s.name: s for s in slots}
        self.settings = settings
        self.store = store
        self.supervisor = supervisor
        self.hooks = hooks
        self.say = say
        self.ladder = ladder  # the team's shutdown, once one has started
        self.read_replies = read_replies  # the lead's inbox, read now
        self.wake = wake  # the lead looks at everything again
        self.health = HealthCheck(settings.health_timeout, say, self.disappeared)

    def active(self, name: str) -> None:
        """A sign of life from `name` (a log line, a message, a task claimed or completed)."""
        slot = self.by_name.get(name)
        if slot is not None:
            self.health.active(slot)

    def start(self, slot: Slot) -> bool:
        """Start a run of `slot`; False when it cannot start (it is never tried again)."""
        restart = slot.runs > 0
        try:
            proc = self.supervisor.start(slot)
        except OSError as exc:
            slot.runs = self.settings.restarts + 1  # cannot start: never try again
            self.say("error", f"cannot start {slot.name}: {exc}", notify=True)
            return False
        slot.health = "start"
        slot.waiting = False
        slot.holds_task = False
        fields: dict[str, Any] = {"pid": proc.pid, "status": "idle"}
        try:
            self.store.update_member(slot.name, **fields)
        except NotFoundError:
            s = slot.spec
            self.store.add_member(
                slot.name, agent_type=s.agent_type, color=s.color, model=s.model, command=s.command, **fields
            )
        self.active(slot.name)
        what = (
            f"restarted {slot.name} ({slot.runs - 1}/{self.settings.restarts})" if restart else f"started {slot.name}"
        )
        self.say("info", f"{what} (pid {proc.pid})")
        self.hooks.fire(
            "teammate-spawned",
            team_name=self.store.name,
            teammate_name=slot.name,
            teammate_agent_type=slot.spec.agent_type,
            teammate_pid=proc.pid,
        )
        return True

    def ended(self, slot: Slot) -> None:
        """A run of `slot` ended: its work back to the board, then a restart, the ladder's news, or a line."""
        code = self.supervisor.reap(slot)
        if isinstance(slot.channel, JsonRpcTeammate):
            slot.channel.detach()  # after reading what it printed last
        slot.health = "stopped"
        slot.waiting = False
        slot.holds_task = False
        self.health.check(slot)
        ladder = self.ladder()
        run = ladder.run if ladder is not None else None
        # Lost while holding work outside a shutdown it was asked for: each in-progress task counts a failure.
        person = slot.restart_asked
        slot.restart_asked = False
        asked = slot.retired or person or (run is not None and slot.name in run.teammates)
        taken = take_back(
            self.store, slot.name, f"{slot.name} {how(code)}", max_failures=self.settings.max_failures, count=not asked
        )
        released = taken.task_ids
        for level, text, notify in taken.lines(slot.name, how(code)) if not asked else ():
            self.say(level, text, notify)
        self.store.update_member(slot.name, status="shutdown", pid=None)
        if slot.restarting and run is None:
            slot.restarting = False
            why = "a person asked for it" if person else f"it disappeared ({how(code)})"
            self.say("warning", f"restarting {slot.name}: {why}", notify=True)
            self.start(slot)
            return
        if run is not None and slot.name in run.teammates and not run.teammates[slot.name].outcome.final:
            # A teammate replies, then exits: under load its exit can be seen first. Read the reply
            # before concluding it left without one (the demo's ada once ended "clean", not "in progress").
            self.read_replies()
        if ladder is not None and run is not None and slot.name in run.teammates:
            ladder.exited(slot.name, code)
            tail = f"; #{', #'.join(released)} back to pending" if released else ""
            self.say("info", f"{slot.name} stopped (exit code {code}){tail}")
            return
        if slot.retired or (code == 0 and not released):
            tail = f"; #{', #'.join(released)} back to pending" if released else ""
            self.say("info", f"{slot.name} exited ({how(code)}){tail}")
            return
        tail = (
            f"; its task{'s' if len(released) > 1 else ''} #{', #'.join(released)} returned to pending"
            if released
            else ""
        )
        again = " and will be restarted" if slot.runs <= self.settings.restarts else ", no restarts left"
        self.say("warning", f"{slot.name} crashed ({how(code)}){tail}{again}", notify=True)

    def disappeared(self, slot: Slot) -> None:
        """The patterns' recovery: free its files and put its task back (release), and start it afresh (restart)."""
        policy = self.settings.on_disappeared
        if policy == "flag" or self.ladder() is not None:
            return
        why = f"disappeared: no activity for {self.settings.health_timeout:g}s"
        taken = take_back(self.store, slot.name, why, max_failures=self.settings.max_failures)
        for level, text, _notify in taken.lines(slot.name, why):
            self.say(level, text)
        if taken.task_ids:
            self.say(
                "warning",
                f"{slot.name}'s task #{', #'.join(taken.task_ids)} returned to the board ({policy})",
                notify=True,
            )
        if policy == "restart" and slot.proc is not None:
            slot.restarting = True
            self.say("warning", f"stopping {slot.name} to restart it")
            proc = slot.proc
            self.supervisor.terminate([slot])
            # Killed after the grace unless this run has ended by then.
            asyncio.get_running_loop().call_later(
                self.settings.shutdown_grace, lambda: self.supervisor.kill([slot]) if slot.proc is proc else None
            )
        self.wake()

    def restart(self, slot: Slot) -> str:
        """A person asked (through the lead's inbox) to restart `slot`: its run is stopped, its work
        goes back to the board without counting a failure, and a new run starts. What was done."""
        if slot.retired:
            return "it was shut down for good and is not restarted"
        if self.ladder() is not None:
            return "the team is shutting down"
        if slot.proc is None:
            return "started again" if self.start(slot) else "it could not be started"
        slot.restarting = True
        slot.restart_asked = True
        proc = slot.proc
        self.supervisor.terminate([slot])
        asyncio.get_running_loop().call_later(
            self.settings.shutdown_grace, lambda: self.supervisor.kill([slot]) if slot.proc is proc else None
        )
        return "stopping it to start it again"


def how(code: int | None) -> str:
    """How a run ended, for a person: the signal that killed it, or its exit code."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"exit code {code}"
