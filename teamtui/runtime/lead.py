"""The lead proper: creates the team and its tasks, assigns work, handles its inbox, tracks
health, fires hooks, and decides when the team is done. Supervision (starting and ending
processes) is in supervisor.py, the shutdown ladder in ladder.py, how the lead speaks to a
teammate in channel.py.

Event-driven: file changes come from `watch_dirs`, process exits from the supervisor,
deadlines from loop timers. Each wake-up runs one `_step()` that settles the whole state.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.board import Board, TaskState
from teamtui.protocol.errors import ConflictError, NotFoundError, ProtocolError
from teamtui.protocol.leadpid import mark_lead, unmark_lead
from teamtui.protocol.models import SHUTDOWN_REPLY_TYPES, Message, Task, TaskStatus
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.taskmeta import held_reason
from teamtui.protocol.touching import load_touches, note_broadcasts
from teamtui.protocol.watch import watch_dirs
from teamtui.runtime.asks import Asks, parse_ask
from teamtui.runtime.channel import InboxChannel, TeammateChannel
from teamtui.runtime.failures import given_up
from teamtui.runtime.hooks import Hooks
from teamtui.runtime.jsonrpc_teammate import JsonRpcTeammate
from teamtui.runtime.ladder import Ladder, Progress, Rung
from teamtui.runtime.recovery import take_back
from teamtui.runtime.shutdown import Outcome as ShutdownOutcome
from teamtui.runtime.shutdown import ShutdownRun, agrees
from teamtui.runtime.slot import Slot
from teamtui.runtime.spawn import Spawner
from teamtui.runtime.supervisor import Supervisor
from teamtui.runtime.teamfile import TeamFile, TeammateSpec
from teamtui.runtime.health_check import HealthCheck

LEAD = "lead"
EXIT_DONE = 0
EXIT_STUCK = 1
EXIT_INTERRUPTED = 130


@dataclass(slots=True)
class LeadEvent:
    """A progress line. `notify` marks the ones a dashboard should pop up (crashes, failures)."""

    level: str
    text: str
    notify: bool = False
    ts: float = field(default_factory=time.time)


@dataclass(slots=True)
class RunResult:
    code: int
    reason: str
    shutdown: dict | None = None


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
    ):
        self.spec = spec
        self.settings = spec.team
        self.root = Path(root)
        self.store = NativeTeam(self.root, spec.team.name)
        self.on_event = on_event
        # The lead drains its own inbox, so a dashboard watching the file could miss what was in it.
        self.on_lead_messages = on_lead_messages
        # Likewise what the lead drains from a JSON-RPC teammate's inbox to pass on: (teammate, messages).
        self.on_teammate_messages: Callable[[str, list[Message]], None] | None = None
        self.slots = [Slot(t, self._channel(t)) for t in spec.teammates]
        self._by_name = {s.name: s for s in self.slots}
        self.health_check = HealthCheck(self.settings.health_timeout, self._say, self._on_disappeared)
        self.supervisor = Supervisor(spec, self.store, self.root, spawner, on_exit=self._exit_seen)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._stop_watch = asyncio.Event()
        self._changed: set[Path] = set()
        self._force = True  # the first step, timers and rescans look at everything
        self._exited: list[Slot] = []
        self._requests: list[_StopRequest] = []
        self._prev: dict[str, tuple[str, str]] = {}
        self._ladder: Ladder | None = None
        self._result: RunResult | None = None
        self.hooks = Hooks(spec.hook_commands, cwd=spec.base_dir, timeout=self.settings.hook_timeout, log=self._hook_log)
        self.started = threading.Event()  # set once the team exists on disk (a dashboard can open it)
        self.shutdown_started = threading.Event()  # set once the graceful shutdown has begun
        self.asks = Asks(self.store, LEAD)  # shutdowns asked of this lead through its inbox (`teamtui shutdown`)
        self._asks_timer: asyncio.TimerHandle | None = None
        self._held: set[str] = set()  # tasks held after max_failures, announced once each

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
        return self._ladder.run if self._ladder is not None else None

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
                self.root, self.store.name, spec.name, assign=self.settings.assign, say=self._say, on_drained=self._drained
            )
        return InboxChannel(self.store, spec.name)

    async def run(self) -> RunResult:
        self._loop = asyncio.get_running_loop()
        problem = self.supervisor.worktrees.problem() or self._create()
        self.started.set()
        self.hooks.fire("team-created", team_name=self.store.name)
        if problem:
            self._say("error", f"the team cannot finish: {problem}", notify=True)
            self._result = RunResult(EXIT_STUCK, problem)
            await self._finish()
            return self._result
        watcher = asyncio.create_task(self._watch())
        try:
            self._step()
            while self._result is None or any(s.alive for s in self.slots):
                await self._wake.wait()
                self._wake.clear()
                self._step()
        finally:
            # Only on an unexpected error: never leave a teammate behind.
            self.supervisor.kill(self.slots)
            self._stop_watch.set()
            await asyncio.gather(watcher, return_exceptions=True)
        await self._finish()
        assert self._result is not None
        return self._result

    # ------------------------------------------------------------------ setup
    def _create(self) -> str:
        """Team and tasks on disk; returns why the board can never finish ('' when it can)."""
        self.store.create(description=self.spec.team.description)
        # The CLI's `task fail` counts against the team file's limit; `teamtui shutdown` asks this lead.
        self.store.update_config(lambda data: data.update(max_failures=self.settings.max_failures))
        mark_lead(self.store)
        for t in self.spec.tasks:
            self.store.create_task(t.subject, description=t.description, blocked_by=[str(b) for b in t.blocked_by], files=t.files)
        self._say("info", f"team {self.store.name!r} created at {self.root} with {len(self.spec.tasks)} tasks")
        tasks, _ = self.store.list_tasks(include_internal=True)
        self._prev = {t.id: (t.status.value, t.owner) for t in tasks}
        self._held = {t.id for t in tasks if held_reason(t)}
        return _why_stuck(Board(tasks), structural_only=True)

    async def _watch(self) -> None:
        async for batch in watch_dirs(self.store.watch_dirs(), self._stop_watch):
            self._changed |= batch.paths
            if batch.rescan or batch.ready:
                self._force = True
            self._wake.set()

    def _look_again(self) -> None:
        self._force = True
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
            self._on_exit(slot)
        self._note_activity(relevant)
        if force or self.store.inbox_path(LEAD) in relevant:
            self._read_lead_inbox()
        self._pipe_teammates(relevant, force)
        tasks, errors = self.store.list_tasks(include_internal=True)
        board = Board(tasks, load_touches(self.store)[0])
        self._diff_board(board)
        self.health_check.holdings(self.slots, board)
        for slot in self._piped():
            slot.channel.board(tasks)
        self._settle_asks(tasks)
        for request in requests:
            self._start_shutdown(request.reason, request.code, request.escalate, deadline=request.deadline, on_progress=request.on_progress)
        if self._ladder is None:
            self._direct(board)
        else:
            self._ladder.settle()

    def _direct(self, board: Board) -> None:
        """Not shutting down: finish, give up, assign and scale."""
        if board.all_completed():
            done, total = board.progress()
            self._say("info", f"all {total} tasks completed")
            self._start_shutdown(f"all {total} tasks completed", EXIT_DONE, wire_reason="phase_complete")
            return
        alive = [s for s in self.slots if s.alive]
        spare = [s for s in self.slots if not s.alive and not s.retired and s.runs <= self.settings.restarts]
        stuck = _why_stuck(board)
        stuck = stuck and (self._needs_a_person(board) or stuck)
        if stuck:
            self._say("error", f"the team cannot finish: {stuck}", notify=True)
            self._start_shutdown(stuck, EXIT_STUCK)
            return
        if not alive and not spare:
            if all(s.retired for s in self.slots if s.runs):
                done, total = board.progress()
                self._start_shutdown(f"the teammates were shut down from outside the lead [{done}/{total} tasks completed]", EXIT_DONE)
                return
            reason = "all teammates are gone (crashed or exited, restarts used up)"
            self._say("error", f"the team cannot finish: {reason}", notify=True)
            self._start_shutdown(reason, EXIT_STUCK)
            return
        busy = {t.owner for t in board.tasks.values() if t.status == TaskStatus.IN_PROGRESS}
        if self.settings.assign == "lead":
            self._assign(alive, busy, board)
            tasks, _ = self.store.list_tasks(include_internal=True)
            board = Board(tasks, board.touches)
            busy = {t.owner for t in board.tasks.values() if t.status == TaskStatus.IN_PROGRESS}
        # The Teammate API patterns' dynamic dev count: start one more while ready work outnumbers free hands.
        ready = len(self._to_try(board))
        free = sum(1 for s in alive if s.name not in busy)
        running = len(alive)
        for slot in spare:
            if running >= self.settings.max_teammates or ready <= free:
                break
            if self._spawn(slot):
                running += 1
                free += 1

    def _assign(self, alive: list[Slot], busy: set[str], board: Board) -> None:
        ready = [t.id for t in self._to_try(board)]
        for slot in alive:
            if not slot.waiting or slot.name in busy:
                continue
            task = self._claim_first(ready, slot.name)
            if task is None:
                return  # nothing ready: the others wait too
            slot.waiting = False
            slot.channel.assign(task, sender=LEAD)
            busy.add(slot.name)

    def _claim_first(self, ready: list[str], owner: str) -> Task | None:
        while ready:
            tid = ready.pop(0)
            try:
                return self.store.claim_task(tid, owner)
            except ConflictError:
                continue  # its files were taken by the task just claimed
            except ProtocolError as exc:
                self._say("error", f"could not claim #{tid} for {owner}: {exc}")
                return None
        return None

    def _to_try(self, board: Board) -> list[Task]:
        """The ready tasks (one held after too many failures is blocked on the board: it waits for a person)."""
        return board.ready()

    def _needs_a_person(self, board: Board) -> str:
        """Why a stuck team waits for a person: the tasks held after failing too often ('' when none is)."""
        stuck = given_up(self.store, board.tasks.values())
        return "; ".join(stuck.values()) + ": it needs a person" if stuck else ""

    # ------------------------------------------------------------------ teammates
    def _piped(self) -> list[Slot]:
        return [s for s in self.slots if s.alive and isinstance(s.channel, JsonRpcTeammate)]

    def _drained(self, name: str, messages: list[Message]) -> None:
        if self.on_teammate_messages is not None and messages:
            try:
                self.on_teammate_messages(name, messages)
            except Exception as exc:  # noqa: BLE001 - a closing dashboard must not stop the lead
                self._say("debug", f"the dashboard did not take {name}'s messages: {exc!r}")

    def _pipe_teammates(self, relevant: set[Path], force: bool) -> None:
        """JSON-RPC teammates read no files: what lands in their inbox (a dashboard message, a
        shutdown request) goes down their pipe."""
        for slot in self._piped():
            if force or self.store.inbox_path(slot.name) in relevant:
                slot.channel.inbox_changed()

    def _spawn(self, slot: Slot) -> bool:
        restart = slot.runs > 0
        try:
            proc = self.supervisor.start(slot)
        except OSError as exc:
            slot.runs = self.settings.restarts + 1  # cannot start: never try again
            self._say("error", f"cannot start {slot.name}: {exc}", notify=True)
            return False
        slot.health = "start"
        slot.waiting = False
        slot.holds_task = False
        fields = dict(pid=proc.pid, status="idle")
        try:
            self.store.update_member(slot.name, **fields)
        except NotFoundError:
            s = slot.spec
            self.store.add_member(slot.name, agent_type=s.agent_type, color=s.color, model=s.model, command=s.command, **fields)
        self._active(slot.name)
        what = f"restarted {slot.name} ({slot.runs - 1}/{self.settings.restarts})" if restart else f"started {slot.name}"
        self._say("info", f"{what} (pid {proc.pid})")
        self.hooks.fire(
            "teammate-spawned",
            team_name=self.store.name,
            teammate_name=slot.name,
            teammate_agent_type=slot.spec.agent_type,
            teammate_pid=proc.pid,
        )
        return True

    def _exit_seen(self, slot: Slot) -> None:
        self._exited.append(slot)
        self._wake.set()

    def _on_exit(self, slot: Slot) -> None:
        code = self.supervisor.reap(slot)
        if isinstance(slot.channel, JsonRpcTeammate):
            slot.channel.detach()  # after reading what it printed last
        slot.health = "stopped"
        slot.waiting = False
        slot.holds_task = False
        self.health_check.check(slot)
        ladder = self._ladder
        run = ladder.run if ladder is not None else None
        # Lost while holding work outside a shutdown it was asked for: each in-progress task counts a failure.
        asked = slot.retired or (run is not None and slot.name in run.teammates)
        taken = take_back(self.store, slot.name, f"{slot.name} {_how(code)}", max_failures=self.settings.max_failures, count=not asked)
        released = taken.task_ids
        for level, text, notify in taken.lines(slot.name, _how(code)) if not asked else ():
            self._say(level, text, notify)
        self.store.update_member(slot.name, status="shutdown", pid=None)
        if slot.restarting and run is None:
            slot.restarting = False
            self._say("warning", f"restarting {slot.name}: it disappeared ({_how(code)})", notify=True)
            self._spawn(slot)
            return
        if run is not None and slot.name in run.teammates and not run.teammates[slot.name].outcome.final:
            # A teammate replies, then exits: under load its exit can be seen first. Read the reply
            # before concluding it left without one (the demo's ada once ended "clean", not "in progress").
            self._read_lead_inbox()
        if ladder is not None and run is not None and slot.name in run.teammates:
            ladder.exited(slot.name, code)
            tail = f"; #{', #'.join(released)} back to pending" if released else ""
            self._say("info", f"{slot.name} stopped (exit code {code}){tail}")
            return
        if slot.retired or (code == 0 and not released):
            tail = f"; #{', #'.join(released)} back to pending" if released else ""
            self._say("info", f"{slot.name} exited ({_how(code)}){tail}")
            return
        tail = f"; its task{'s' if len(released) > 1 else ''} #{', #'.join(released)} returned to pending" if released else ""
        again = " and will be restarted" if slot.runs <= self.settings.restarts else ", no restarts left"
        self._say("warning", f"{slot.name} crashed ({_how(code)}){tail}{again}", notify=True)

    # ------------------------------------------------------------------ health
    def _on_disappeared(self, slot: Slot) -> None:
        """The patterns' recovery: free its files and put its task back (release), and start it afresh (restart)."""
        policy = self.settings.on_disappeared
        if policy == "flag" or self._ladder is not None:
            return
        why = f"disappeared: no activity for {self.settings.health_timeout:g}s"
        taken = take_back(self.store, slot.name, why, max_failures=self.settings.max_failures)
        for level, text, _notify in taken.lines(slot.name, why):
            self._say(level, text)
        if taken.task_ids:
            self._say("warning", f"{slot.name}'s task #{', #'.join(taken.task_ids)} returned to the board ({policy})", notify=True)
        if policy == "restart" and slot.proc is not None:
            slot.restarting = True
            self._say("warning", f"stopping {slot.name} to restart it")
            proc = slot.proc
            self.supervisor.terminate([slot])
            assert self._loop is not None
            self._loop.call_later(self.settings.shutdown_grace, lambda: self.supervisor.kill([slot]) if slot.proc is proc else None)
        self._look_again()

    def _active(self, name: str) -> None:
        slot = self._by_name.get(name)
        if slot is not None:
            self.health_check.active(slot)

    def _note_activity(self, changed: set[Path]) -> None:
        for path in changed:
            ref = self.store.classify(path)
            if ref is not None and ref.kind == "log":
                self._active(ref.key)

    # ------------------------------------------------------------------ inbox and board
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
            self._active(msg.sender)
            if msg.type == "idle_notification":
                self._on_idle(msg)
            elif msg.type in SHUTDOWN_REPLY_TYPES:
                replies.append(msg)
            elif msg.type == "shutdown_request":
                self._on_shutdown_ask(msg)
            else:
                # Broadcasts are chatter: kept in the lead's log, not printed; a TOUCHING_FILE is remembered.
                level = "debug" if msg.type == "broadcast" else "info"
                self._say(level, f"{msg.sender} → lead: {msg.content}")
                for touch in note_broadcasts(self.store, [msg]) if msg.type == "broadcast" else ():
                    self._say("info", f"{touch.by} touches {touch.path}" + (f" (for #{touch.task})" if touch.task else ""))
        if not replies:
            return
        for t in self.asks.observe(replies):
            self._say("info", f"{t.name} answered the shutdown request: {t.outcome.value}")
        if self._ladder is None:
            self._external_replies(replies)
            return
        for name in self._ladder.observe(replies):
            t = self._ladder.run.teammates[name]
            pend = f", pending: {'; '.join(t.pending_work)}" if t.pending_work else ""
            self._say("info", f"{name} answered the shutdown request: {t.outcome.value}{pend}")
            slot = self._by_name.get(name)
            if slot and t.outcome in (ShutdownOutcome.CLEAN, ShutdownOutcome.IN_PROGRESS):
                slot.health = "stopped"

    def _external_replies(self, replies: list[Message]) -> None:
        """Someone else (the dashboard's x) asked a teammate to stop and it agreed: let it go for good."""
        for msg in replies:
            slot = self._by_name.get(msg.sender)
            if slot is not None and agrees(msg) and not slot.retired:
                slot.retired = True
                self._say("info", f"{slot.name} agreed to a shutdown request from outside the lead: it will not be restarted")

    def _on_idle(self, msg: Message) -> None:
        slot = self._by_name.get(msg.sender)
        if slot is None or not slot.alive:
            return
        slot.waiting = True
        slot.health = "idle"
        self.hooks.fire("teammate-idle", team_name=self.store.name, teammate_name=slot.name)

    def _diff_board(self, board: Board) -> None:
        now = {t.id: (t.status.value, t.owner) for t in board.tasks.values()}
        for tid, (status, owner) in sorted(now.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
            before = self._prev.get(tid)
            task = board.tasks[tid]
            if status == "in_progress" and owner and before != (status, owner):
                self._say("info", f"#{tid} {task.subject} → {owner}")
                self.hooks.fire("task-assigned", team_name=self.store.name, task_id=tid, task_owner=owner, task_subject=task.subject)
                slot = self._by_name.get(owner)
                if slot:
                    slot.waiting = False
                    if slot.alive and slot.health != "disappeared":
                        slot.health = "working"
                self._active(owner)
            elif status == "completed" and (before is None or before[0] != "completed"):
                done, total = board.progress()
                self._say("info", f"#{tid} {task.subject} completed by {owner or '?'} [{done}/{total}]")
                self.hooks.fire(
                    "task-completed",
                    team_name=self.store.name,
                    task_id=tid,
                    task_owner=owner,
                    task_subject=task.subject,
                    task_result=task.result or "",
                )
                self._active(owner)
        held = {t.id for t in board.tasks.values() if held_reason(t) and t.status != TaskStatus.COMPLETED}
        for tid in sorted(held - self._held):
            task = board.tasks[tid]
            self._say("error", f"#{tid} {task.subject} is blocked: {held_reason(task)}", notify=True)
        self._held = held
        self._prev = now

    # ------------------------------------------------------------------ shutdowns asked through the inbox
    def _on_shutdown_ask(self, msg: Message) -> None:
        """`teamtui shutdown` while this lead runs: the whole team through the ladder, some teammates on their own."""
        ask = parse_ask(msg)
        if ask is None:
            self._say("warning", f"{msg.sender} sent the lead a shutdown request without a usable request id: ignored")
            return
        alive = [s.name for s in self.slots if s.alive]
        named = [n for n in ask.teammates if n in self._by_name]
        if not ask.teammates or set(alive) <= set(named):
            self.asks.team_asks.append(ask)
            self._say("info", f"{ask.sender} asked for the team to shut down ({ask.reason})")
            self._start_shutdown(f"shutdown requested by {ask.sender}", EXIT_DONE, wire_reason=ask.reason, deadline=ask.deadline)
            return
        targets = [n for n in named if self._by_name[n].alive]
        for n in named:
            self._by_name[n].retired = True  # asked to stop: never respawned, whatever it answers
        self._say("info", f"{ask.sender} asked {', '.join(named)} to shut down ({ask.reason})")
        self.asks.start_run(ask, targets)
        self._arm_asks()

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
            slot = self._by_name.get(t.name)
            if slot is not None and slot.alive:
                self._say("warning", f"{t.name} did not answer its shutdown request: SIGTERM")
                self.supervisor.terminate([slot])
        self._look_again()

    def _settle_asks(self, tasks: list) -> None:
        if not self.asks.runs:
            return
        for run in self.asks.settle(tasks):
            outcomes = ", ".join(f"{t.name} {t.outcome.value}" for t in run.teammates.values())
            self._say("info", f"shutdown summary: {outcomes}")
        self._arm_asks()

    # ------------------------------------------------------------------ shutdown
    def _request(self, request: _StopRequest) -> None:
        if request.on_progress is not None and self._result is not None:
            request.on_progress(None)  # already stopping (or ending): the dashboard follows nothing new
            return
        self._requests.append(request)
        self._wake.set()

    def _start_shutdown(
        self,
        reason: str,
        code: int,
        escalate: bool = False,
        wire_reason: str = "",
        deadline: float | None = None,
        on_progress: Progress | None = None,
    ) -> None:
        if self._ladder is not None:
            if on_progress is not None:
                on_progress(None)
            # Asked again while shutting down (a second Ctrl-C): climb the ladder now.
            if escalate and self._ladder.rung < Rung.KILLED:
                self._ladder.climb()
            return
        self._result = RunResult(code, reason)
        targets = [s.name for s in self.slots if s.alive]
        wait = self.settings.shutdown_deadline if deadline is None else deadline
        run = ShutdownRun(self.store, targets, sender=LEAD, reason=wire_reason or reason, deadline_seconds=wait)
        self._ladder = Ladder(
            run, grace=self.settings.shutdown_grace, slots=self.slots, supervisor=self.supervisor, say=self._say, wake=self._look_again
        )
        if on_progress is not None:
            self._ladder.listen(on_progress)
        if targets:
            self._say("info", f"shutting down ({reason}): asking {', '.join(targets)} (deadline {wait:g}s)")
        self._ladder.climb()
        self.shutdown_started.set()

    async def _finish(self) -> None:
        tasks, _ = self.store.list_tasks(include_internal=True)
        board = Board(tasks)
        summary = None
        if self._ladder is not None:
            summary = self._ladder.finish(tasks, time.time())
            if self._ladder.run.teammates:
                outcomes = ", ".join(f"{t.name} {t.outcome.value}" for t in self._ladder.run.teammates.values())
                self._say("info", f"shutdown summary: {outcomes}")
        kept = []
        for end in self.supervisor.worktrees.finish():
            self._say("info" if end.removed else "warning", end.describe())
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
            reason=self._result.reason if self._result else "",
        )
        await self.hooks.drain()
        assert self._result is not None
        self._result.shutdown = summary
        self.asks.finish_team(summary)
        unmark_lead(self.store)
        self._say("info" if self._result.code == 0 else "error", f"team stopped: {self._result.reason} [{done}/{total} tasks completed]")

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


def _how(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"exit code {code}"


def _why_stuck(board: Board, structural_only: bool = False) -> str:
    """Why the unfinished tasks can never all complete ('' when they still can)."""
    cycles = board.cycles()
    if cycles:
        return "dependency cycle " + "; ".join(" → ".join(f"#{i}" for i in c) for c in cycles)
    missing = board.missing_dependencies()
    if missing:
        return "missing dependency: " + "; ".join(f"#{t} needs #{', #'.join(m)}" for t, m in missing.items())
    if structural_only or board.all_completed():
        return ""
    views = board.views()
    moving = {TaskState.READY, TaskState.IN_PROGRESS, TaskState.WITHHELD, TaskState.ASSIGNED}
    if not any(v.state in moving for v in views):
        return "no unfinished task can start"
    return ""


__all__ = ["EXIT_DONE", "EXIT_INTERRUPTED", "EXIT_STUCK", "Lead", "LeadEvent", "RunResult"]
