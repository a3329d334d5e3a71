"""The lead proper: creates the team and its tasks, runs the event loop, reads its inbox and
directs the team (finish, give up, assign, scale). It wires the rest: teammates.py keeps the
teammates' runs going, assign.py hands out work under assign = "lead", board_events.py says what
the board did, stuck.py says why a team cannot finish, team_shutdown.py stops the team and ends
the run, asks.py holds the shutdowns asked through the inbox, channel.py speaks to a teammate.

Event-driven: file changes come from `watch_dirs`, process exits from the supervisor,
deadlines from loop timers. Each wake-up runs one `_step()` that settles the whole state.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.board import Board
from teamtui.protocol.models import SHUTDOWN_REPLY_TYPES, Message, TaskStatus
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.shutdown import Outcome as ShutdownOutcome, ShutdownRun, agrees
from teamtui.protocol.touching import load_touches, note_broadcasts
from teamtui.protocol.watch import watch_dirs
from teamtui.runtime.asks import Asks, parse_ask
from teamtui.runtime.assign import assign_waiting
from teamtui.runtime.board_events import BoardEvents
from teamtui.runtime.channel import InboxChannel, TeammateChannel
from teamtui.runtime.hooks import Hooks
from teamtui.runtime.jsonrpc_teammate import JsonRpcTeammate
from teamtui.runtime.ladder import Progress
from teamtui.runtime.resume import open_team, tasks as n_tasks
from teamtui.runtime.slot import Slot
from teamtui.runtime.spawn import Spawner
from teamtui.runtime.stuck import NEEDS_A_PERSON, cannot_finish, why_stuck
from teamtui.runtime.supervisor import Supervisor
from teamtui.runtime.team_shutdown import EXIT_DONE, EXIT_INTERRUPTED, EXIT_STUCK, RunResult, TeamShutdown
from teamtui.runtime.teamfile import TeamFile, TeammateSpec
from teamtui.runtime.teammates import Teammates

LEAD = "lead"


@dataclass(slots=True)
class LeadEvent:
    """A progress line. `notify` marks the ones a dashboard should pop up (crashes, failures)."""

    level: str
    text: str
    notify: bool = False
    ts: float = field(default_factory=time.time)


@dataclass(slots=True)
class _StopRequest:
    """A shutdown asked for from outside the lead's loop (a signal, the dashboard), handled by the next step."""

    reason: str
    code: int
    escalate: bool
    deadline: float | None = None
    on_progress: Progress | None = None


class Lead:
    def __init__(
        self,
        spec: TeamFile,
        root: Path,
        *,
        spawner: Spawner | None = None,
        on_event: Callable[[LeadEvent], None] | None = None,
        on_lead_messages: Callable[[list[Message]], None] | None = None,
        fresh: bool = False,
    ):
        self.spec = spec
        self.fresh = fresh  # remove the team on disk first, instead of resuming it
        self.settings = spec.team
        # Absolute: the watcher reports absolute paths, which a relative root's files never match.
        self.root = Path(os.path.abspath(root))
        self.store = NativeTeam(self.root, spec.team.name)
        self.on_event = on_event
        # The lead drains its own inbox, so a dashboard watching the file could miss what was in it.
        self.on_lead_messages = on_lead_messages
        # Likewise what the lead drains from a JSON-RPC teammate's inbox to pass on: (teammate, messages).
        self.on_teammate_messages: Callable[[str, list[Message]], None] | None = None
        self.slots = [Slot(t, self._channel(t)) for t in spec.teammates]
        self.supervisor = Supervisor(spec, self.store, self.root, spawner, on_exit=self._exit_seen)
        self.hooks = Hooks(
            spec.hook_commands, cwd=spec.base_dir, timeout=self.settings.hook_timeout, log=self._hook_log
        )
        self.asks = Asks(self.store, LEAD)  # shutdowns asked of this lead through its inbox (`teamtui shutdown`)
        self.team_shutdown = TeamShutdown(
            self.store,
            self.settings,
            self.slots,
            self.supervisor,
            self.hooks,
            self.asks,
            sender=LEAD,
            say=self._say,
            wake=self._look_again,
        )
        self.teammates = Teammates(
            self.slots,
            self.settings,
            self.store,
            self.supervisor,
            self.hooks,
            self._say,
            ladder=lambda: self.team_shutdown.ladder,
            read_replies=self._read_lead_inbox,
            wake=self._look_again,
        )
        self.board_events = BoardEvents(
            self.store.name, self.teammates.by_name, self.teammates.active, self.hooks, self._say
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._stop_watch = asyncio.Event()
        self._changed: set[Path] = set()
        self._force = True  # the first step, timers and rescans look at everything
        self._exited: list[Slot] = []
        self._requests: list[_StopRequest] = []
        self.started = threading.Event()  # set once the team exists on disk (a dashboard can open it)
        self._asks_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ public, thread-safe
    def stop(self, reason: str = "shutdown requested", code: int = EXIT_INTERRUPTED, *, escalate: bool = True) -> None:
        """Start the graceful shutdown; when one is under way, `escalate` climbs the ladder a rung (a second Ctrl-C)."""
        self._call_soon(self._request, _StopRequest(reason, code, escalate))

    def request_shutdown(self, reason: str, deadline: float, on_progress: Progress) -> None:
        """The dashboard's S: start the team shutdown with `deadline` seconds for replies, and return at once.

        `on_progress` gets a snapshot of the run (a copy the lead no longer mutates) from the lead's
        thread when it starts and after every change; None when the lead starts none (already
        stopping, or ended). It is never called on the caller's thread."""
        request = _StopRequest(reason or "shutdown from the dashboard", EXIT_DONE, False, deadline, on_progress)
        if not self._call_soon(self._request, request):
            # The lead has ended: say so from a thread of our own, as a live lead would.
            threading.Thread(target=on_progress, args=(None,), name="teamtui-lead-ended", daemon=True).start()

    @property
    def shutdown_run(self) -> ShutdownRun | None:
        """The lead's live run (mutated on the lead's thread); `request_shutdown` hands out snapshots."""
        ladder = self.team_shutdown.ladder
        return ladder.run if ladder is not None else None

    def _call_soon(self, fn: Callable, *args: object) -> bool:
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:
            return False  # the loop closed meanwhile: the team is already down
        return True

    def _channel(self, spec: TeammateSpec) -> TeammateChannel:
        if spec.protocol == "jsonrpc":
            return JsonRpcTeammate(
                self.root,
                self.store.name,
                spec.name,
                assign=self.settings.assign,
                say=self._say,
                on_drained=self._drained,
            )
        return InboxChannel(self.store, spec.name)

    async def run(self) -> RunResult:
        self._loop = asyncio.get_running_loop()
        problem = self.supervisor.worktrees.problem()
        if not problem:
            problem = self._open()
        self.started.set()
        if problem:
            self._say("error", f"the team cannot finish: {problem}", notify=True)
            self.team_shutdown.result = RunResult(EXIT_STUCK, problem)
            return await self.team_shutdown.wind_up()
        watcher = asyncio.create_task(self._watch())
        try:
            self._step()
            while self.team_shutdown.result is None or any(s.alive for s in self.slots):
                await self._wake.wait()
                self._wake.clear()
                self._step()
        finally:
            # Only on an unexpected error: never leave a teammate behind.
            self.supervisor.kill(self.slots)
            self._stop_watch.set()
            await asyncio.gather(watcher, return_exceptions=True)
        return await self.team_shutdown.wind_up()

    # ------------------------------------------------------------------ setup
    def _open(self) -> str:
        """Team and tasks on disk (made, or resumed as the last run left them); returns why the
        board can never finish ('' when it can)."""
        opened = open_team(self.store, self.spec, fresh=self.fresh, say=self._say)
        if not opened.resumed:
            self.hooks.fire("team-created", team_name=self.store.name)
        self.receive(opened.leftovers)
        tasks, _ = self.store.list_tasks(include_internal=True)
        self.board_events.start(tasks)
        return why_stuck(Board(tasks), structural_only=True)

    async def _watch(self) -> None:
        async for batch in watch_dirs(self.store.watch_dirs(), self._stop_watch):
            self._changed |= batch.paths
            if batch.rescan or batch.ready:
                self._force = True
            self._wake.set()

    def _look_again(self) -> None:
        self._force = True
        self._wake.set()

    def _exit_seen(self, slot: Slot) -> None:
        self._exited.append(slot)
        self._wake.set()

    # ------------------------------------------------------------------ the step
    def _step(self) -> None:
        changed, self._changed = self._changed, set()
        exited, self._exited = self._exited, []
        requests, self._requests = self._requests, []
        force, self._force = self._force, False
        # Lock files come and go with every inbox check: they alone change nothing.
        relevant = {p for p in changed if self.store.classify(p) is not None}
        if not (relevant or exited or requests or force):
            return
        for slot in exited:
            self.teammates.ended(slot)
        self._note_activity(relevant)
        if force or self.store.inbox_path(LEAD) in relevant:
            self._read_lead_inbox()
        self._pipe_teammates(relevant, force)
        tasks, errors = self.store.list_tasks(include_internal=True)
        board = Board(tasks, load_touches(self.store)[0])
        self.board_events.diff(board)
        self.teammates.health.holdings(self.slots, board)
        for channel in self._piped():
            channel.board(tasks)
        self._settle_asks(tasks)
        for request in requests:
            self.team_shutdown.start(
                request.reason,
                request.code,
                request.escalate,
                deadline=request.deadline,
                on_progress=request.on_progress,
            )
        ladder = self.team_shutdown.ladder
        if ladder is None:
            self._direct(board)
        else:
            ladder.settle()

    def _direct(self, board: Board) -> None:
        """Not shutting down: finish, give up, assign and scale."""
        if board.all_completed():
            done, total = board.progress()
            said = f"all {total} tasks completed" if total != 1 else "the 1 task completed"
            self._say("info", said)
            self.team_shutdown.start(said, EXIT_DONE, wire_reason="phase_complete")
            return
        alive = [s for s in self.slots if s.alive]
        spare = [s for s in self.slots if not s.alive and not s.retired and s.runs <= self.settings.restarts]
        stuck = cannot_finish(self.store, board)
        if stuck:
            self._say("error", f"the team cannot finish: {stuck}", notify=True)
            if stuck.endswith(NEEDS_A_PERSON):
                self._say("info", "to go on: fix the cause, `teamtui task retry ID`, then run the team file again")
            self.team_shutdown.start(stuck, EXIT_STUCK)
            return
        if not alive and not spare:
            if all(s.retired for s in self.slots if s.runs):
                done, total = board.progress()
                self.team_shutdown.start(
                    f"the teammates were shut down from outside the lead [{done}/{n_tasks(total)} completed]", EXIT_DONE
                )
                return
            reason = "all teammates are gone (crashed or exited, restarts used up)"
            self._say("error", f"the team cannot finish: {reason}", notify=True)
            self.team_shutdown.start(reason, EXIT_STUCK)
            return
        busy = {t.owner for t in board.tasks.values() if t.status == TaskStatus.IN_PROGRESS}
        if self.settings.assign == "lead":
            assign_waiting(self.store, alive, busy, board.ready(), self._say, sender=LEAD)
            tasks, _ = self.store.list_tasks(include_internal=True)
            board = Board(tasks, board.touches)
            busy = {t.owner for t in board.tasks.values() if t.status == TaskStatus.IN_PROGRESS}
        # The Teammate API patterns' dynamic dev count: start one more while ready work outnumbers free hands.
        ready = len(board.ready())  # a task held after too many failures is blocked: not ready
        free = sum(1 for s in alive if s.name not in busy)
        running = len(alive)
        for slot in spare:
            if running >= self.settings.max_teammates:
                break
            if ready <= free and not (self.settings.start_all and slot.runs == 0):
                continue  # start_all: one never started goes on; a crashed one still waits for work
            if self.teammates.start(slot):
                running += 1
                free += 1

    # ------------------------------------------------------------------ JSON-RPC teammates
    def _piped(self) -> list[JsonRpcTeammate]:
        """The channels of the live teammates that speak JSON-RPC over a pipe."""
        return [s.channel for s in self.slots if s.alive and isinstance(s.channel, JsonRpcTeammate)]

    def _drained(self, name: str, messages: list[Message]) -> None:
        if self.on_teammate_messages is not None and messages:
            try:
                self.on_teammate_messages(name, messages)
            except Exception as exc:  # noqa: BLE001 - a closing dashboard must not stop the lead
                self._say("debug", f"the dashboard did not take {name}'s messages: {exc!r}")

    def _pipe_teammates(self, relevant: set[Path], force: bool) -> None:
        """JSON-RPC teammates read no files: what lands in their inbox (a dashboard message, a
        shutdown request) goes down their pipe."""
        for channel in self._piped():
            if force or self.store.inbox_path(channel.name) in relevant:
                channel.inbox_changed()

    def _note_activity(self, changed: set[Path]) -> None:
        for path in changed:
            ref = self.store.classify(path)
            if ref is not None and ref.kind == "log":
                self.teammates.active(ref.key)

    # ------------------------------------------------------------------ inbox
    def _read_lead_inbox(self) -> None:
        """The file transport's way in: drain the lead's inbox and hand what was in it to `receive`."""
        try:
            if os.stat(self.store.inbox_path(LEAD)).st_size == 0:
                return  # draining an empty inbox would only make lock-file events
        except FileNotFoundError:
            return
        read = self.store.drain(LEAD)
        for err in read.errors:
            self._say("warning", f"unreadable message kept aside: {err}")
        self.receive(read.messages)

    def receive(self, messages: list[Message]) -> None:
        """Messages from teammates, whatever their transport (called on the lead's loop)."""
        if not messages:
            return
        if self.on_lead_messages is not None:
            try:
                self.on_lead_messages(messages)
            except Exception as exc:  # noqa: BLE001 - a closing dashboard must not stop the lead
                self._say("debug", f"the dashboard did not take the lead's messages: {exc!r}")
        replies = []
        for msg in messages:
            self.teammates.active(msg.sender)
            if msg.type == "idle_notification":
                self._on_idle(msg)
            elif msg.type in SHUTDOWN_REPLY_TYPES:
                replies.append(msg)
            elif msg.type == "shutdown_request":
                self._on_shutdown_ask(msg)
            elif msg.type == "restart_request":
                self._on_restart_ask(msg)
            else:
                # Broadcasts are chatter: kept in the lead's log, not printed; a TOUCHING_FILE is remembered.
                level = "debug" if msg.type == "broadcast" else "info"
                self._say(level, f"{msg.sender} → lead: {msg.content}")
                for touch in note_broadcasts(self.store, [msg]) if msg.type == "broadcast" else ():
                    self._say(
                        "info", f"{touch.by} touches {touch.path}" + (f" (for #{touch.task})" if touch.task else "")
                    )
        if not replies:
            return
        for t in self.asks.observe(replies):
            self._say("info", f"{t.name} answered the shutdown request: {t.outcome.said}")
        ladder = self.team_shutdown.ladder
        if ladder is None:
            self._external_replies(replies)
            return
        for name in ladder.observe(replies):
            t = ladder.run.teammates[name]
            pend = f", pending: {'; '.join(t.pending_work)}" if t.pending_work else ""
            self._say("info", f"{name} answered the shutdown request: {t.outcome.said}{pend}")
            slot = self.teammates.by_name.get(name)
            if slot and t.outcome in (ShutdownOutcome.CLEAN, ShutdownOutcome.IN_PROGRESS):
                slot.health = "stopped"

    def _external_replies(self, replies: list[Message]) -> None:
        """Someone else (the dashboard's x) asked a teammate to stop and it agreed: let it go for good."""
        for msg in replies:
            slot = self.teammates.by_name.get(msg.sender)
            if slot is not None and agrees(msg) and not slot.retired:
                slot.retired = True
                self._say(
                    "info", f"{slot.name} agreed to a shutdown request from outside the lead: it will not be restarted"
                )

    def _on_idle(self, msg: Message) -> None:
        slot = self.teammates.by_name.get(msg.sender)
        if slot is None or not slot.alive:
            return
        slot.waiting = True  # assign = "lead": the next step gives it a task
        slot.health = "idle"
        self.hooks.fire("teammate-idle", team_name=self.store.name, teammate_name=slot.name)

    # ------------------------------------------------------------------ shutdowns asked through the inbox
    def _on_shutdown_ask(self, msg: Message) -> None:
        """`teamtui shutdown` while this lead runs: the whole team through the ladder, some teammates on their own."""
        ask = parse_ask(msg)
        if ask is None:
            self._say("warning", f"{msg.sender} sent the lead a shutdown request without a usable request id: ignored")
            return
        by_name = self.teammates.by_name
        alive = [s.name for s in self.slots if s.alive]
        named = [n for n in ask.teammates if n in by_name]
        if not ask.teammates or set(alive) <= set(named):
            self.asks.team_asks.append(ask)
            self._say("info", f"{ask.sender} asked for the team to shut down ({ask.reason})")
            self.team_shutdown.start(
                f"shutdown requested by {ask.sender}", EXIT_DONE, wire_reason=ask.reason, deadline=ask.deadline
            )
            return
        targets = [n for n in named if by_name[n].alive]
        for n in named:
            by_name[n].retired = True  # asked to stop: never respawned, whatever it answers
        self._say("info", f"{ask.sender} asked {', '.join(named)} to shut down ({ask.reason})")
        self.asks.start_run(ask, targets)
        self._arm_asks()

    def _on_restart_ask(self, msg: Message) -> None:
        """`teamtui answer ... restart`: a person asks, in the lead's inbox, to restart one teammate."""
        name, reason = msg.raw.get("teammate"), msg.raw.get("reason")
        slot = self.teammates.by_name.get(name) if isinstance(name, str) else None
        if slot is None:
            self._say("warning", f"{msg.sender} asked to restart {name!r}, who is no teammate of this team")
            return
        why = f" ({reason})" if isinstance(reason, str) and reason else ""
        self._say("info", f"{msg.sender} asked to restart {slot.name}{why}: {self.teammates.restart(slot)}")
        self._look_again()

    def _arm_asks(self) -> None:
        due = self.asks.next_deadline()
        if self._asks_timer is not None:
            self._asks_timer.cancel()
            self._asks_timer = None
        if due is not None:
            assert self._loop is not None
            self._asks_timer = self._loop.call_later(max(0.0, due - time.time()), self._asks_due)

    def _asks_due(self) -> None:
        self._asks_timer = None
        for t in self.asks.expire():
            slot = self.teammates.by_name.get(t.name)
            if slot is not None and slot.alive:
                self._say("warning", f"{t.name} did not answer its shutdown request: SIGTERM")
                self.supervisor.terminate([slot])
        self._look_again()

    def _settle_asks(self, tasks: list) -> None:
        if not self.asks.runs:
            return
        for run in self.asks.settle(tasks):
            outcomes = ", ".join(f"{t.name} {t.outcome.said}" for t in run.teammates.values())
            self._say("info", f"shutdown summary: {outcomes}")
        self._arm_asks()

    # ------------------------------------------------------------------ shutdown requests from other threads
    def _request(self, request: _StopRequest) -> None:
        if request.on_progress is not None and self.team_shutdown.result is not None:
            request.on_progress(None)  # already stopping (or ending): the dashboard follows nothing new
            return
        self._requests.append(request)
        self._wake.set()

    # ------------------------------------------------------------------ output
    def _say(self, level: str, text: str, notify: bool = False) -> None:
        try:
            self.store.log(LEAD, text, level)
        except OSError:
            pass  # the progress line below still says it
        if self.on_event is not None and level != "debug":
            self.on_event(LeadEvent(level, text, notify))

    def _hook_log(self, level: str, text: str) -> None:
        self._say(level, text, notify=level == "error")


__all__ = ["Lead", "LeadEvent"]
