"""The lead: creates the team and its tasks, spawns teammates, assigns work, recovers crashes,
tracks health, and shuts the team down along Autohand's ladder (request, SIGTERM, SIGKILL).

Event-driven: file changes come from `watch_dirs`, process exits from a pidfd per teammate,
deadlines from loop timers. Each wake-up runs one `_step()` that settles the whole state.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.board import Board, TaskState
from teamtui.protocol.errors import NotFoundError, ProtocolError
from teamtui.protocol.models import Message, Task, TaskStatus
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.leadpid import mark_lead, unmark_lead
from teamtui.protocol.taskmeta import held_reason
from teamtui.protocol.touching import load_touches, note_broadcasts
from teamtui.protocol.watch import watch_dirs
from teamtui.runtime.asks import Asks, parse_ask
from teamtui.runtime.hooks import Hooks
from teamtui.runtime.recovery import take_back
from teamtui.runtime.shutdown import Outcome as ShutdownOutcome
from teamtui.runtime.shutdown import ShutdownRun, agrees
from teamtui.runtime.spawn import ProcessSpawner, Spawner, TeammateProcess
from teamtui.runtime.teamfile import TeamFile, TeammateSpec

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


class Slot:
    """One teammate of the team file: its process (when running), health and restart count."""

    def __init__(self, spec: TeammateSpec):
        self.spec = spec
        self.proc: TeammateProcess | None = None
        self.runs = 0
        self.health = "pending"  # pending, start, working, idle, stopped, disappeared
        self.waiting = False  # sent idle_notification and holds no task (assign = "lead")
        self.retired = False  # approved a shutdown request the lead did not send (e.g. the dashboard's): never respawned
        self.restarting = False  # stopped by the lead after disappearing (on_disappeared = "restart"): start again at exit
        self.exit_codes: list[int | None] = []
        self.timer: asyncio.TimerHandle | None = None
        self._fd: int | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def alive(self) -> bool:
        return self.proc is not None


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
        self.spawner: Spawner = spawner or ProcessSpawner()
        self.on_event = on_event
        # The lead drains its own inbox, so a dashboard watching the file could miss what was in it.
        self.on_lead_messages = on_lead_messages
        self.shutdown_started = threading.Event()  # set once the graceful shutdown has begun
        self.slots = [Slot(t) for t in spec.teammates]
        self._by_name = {s.name: s for s in self.slots}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._stop_watch = asyncio.Event()
        self._changed: set[Path] = set()
        self._force = True  # the first step, timers and rescans look at everything
        self._exited: list[Slot] = []
        self._requests: list[tuple[str, int, bool, float | None]] = []
        self._prev: dict[str, tuple[str, str]] = {}
        self._shutdown: ShutdownRun | None = None
        self._ladder = 0  # 0 none, 1 requested, 2 SIGTERM sent, 3 SIGKILL sent
        self._timer: asyncio.TimerHandle | None = None
        self._result: RunResult | None = None
        self.hooks = Hooks(spec.hook_commands, cwd=spec.base_dir, timeout=self.settings.hook_timeout, log=self._hook_log)
        self.started = threading.Event()  # set once the team exists on disk (a dashboard can open it)
        self.asks = Asks(self.store, LEAD)  # shutdowns asked of this lead through its inbox (`teamtui shutdown`)
        self._asks_timer: asyncio.TimerHandle | None = None
        self._held: set[str] = set()

    # ------------------------------------------------------------------ public
    def request_shutdown(
        self,
        reason: str = "shutdown requested",
        code: int = EXIT_INTERRUPTED,
        *,
        escalate: bool = True,
        deadline: float | None = None,
    ) -> None:
        """Thread-safe: start the graceful shutdown; when one is under way, `escalate` climbs the ladder a rung.

        `deadline` overrides the team file's shutdown deadline (the dashboard's confirm modal sets it)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._request, reason, code, escalate, deadline)
        except RuntimeError:
            pass  # the loop closed meanwhile: the team is already down

    async def run(self) -> RunResult:
        self._loop = asyncio.get_running_loop()
        problem = self._create()
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
            for s in self.slots:
                if s.alive:  # only on an unexpected error: never leave a teammate behind
                    s.proc.kill()  # type: ignore[union-attr]
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
        tasks, errors = self.store.list_tasks(include_internal=True)
        board = Board(tasks, load_touches(self.store)[0])
        self._diff_board(board)
        self._settle_asks(tasks)
        for reason, code, escalate, deadline in requests:
            self._start_shutdown(reason, code, escalate, deadline=deadline)
        if self._shutdown is None:
            self._direct(board)
        self._advance_shutdown()

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
            self._assign(board, alive, busy)
            tasks, _ = self.store.list_tasks(include_internal=True)
            board = Board(tasks, board.touches)
            busy = {t.owner for t in board.tasks.values() if t.status == TaskStatus.IN_PROGRESS}
        # The Teammate API patterns' dynamic dev count: start one more while ready work outnumbers free hands.
        ready = len(board.ready())
        free = sum(1 for s in alive if s.name not in busy)
        running = len(alive)
        for slot in spare:
            if running >= self.settings.max_teammates or ready <= free:
                break
            if self._spawn(slot):
                running += 1
                free += 1

    def _assign(self, board: Board, alive: list[Slot], busy: set[str]) -> None:
        for slot in alive:
            if not slot.waiting or slot.name in busy:
                continue
            try:
                task = self.store.claim_task(None, slot.name)
            except ProtocolError as exc:
                self._say("error", f"could not claim a task for {slot.name}: {exc}")
                return
            if task is None:
                return  # nothing ready: the others wait too
            slot.waiting = False
            self.store.send(
                slot.name,
                f"Please work on #{task.id}: {task.subject}",
                LEAD,
                type="task_assignment",
                extra={"task_id": task.id, "subject": task.subject, "description": task.description, "assigned_by": LEAD},
            )
            busy.add(slot.name)

    # ------------------------------------------------------------------ teammates
    def _spawn(self, slot: Slot) -> bool:
        restart = slot.runs > 0
        env = self._env(slot.spec)
        log_path = self.store.logs_dir / f"{slot.name}.log"
        try:
            proc = self.spawner.spawn(slot.name, slot.spec.command, cwd=self.spec.teammate_cwd(slot.spec), env=env, log_path=log_path)
        except OSError as exc:
            slot.runs = self.settings.restarts + 1  # cannot start: never try again
            self._say("error", f"cannot start {slot.name}: {exc}", notify=True)
            return False
        slot.proc = proc
        slot.runs += 1
        slot.health = "start"
        slot.waiting = False
        fields = dict(pid=proc.pid, status="idle", health="start")
        try:
            self.store.update_member(slot.name, **fields)
        except NotFoundError:
            s = slot.spec
            self.store.add_member(slot.name, agent_type=s.agent_type, color=s.color, model=s.model, command=s.command, **fields)
        self._watch_exit(slot)
        self._arm_health(slot)
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

    def _env(self, spec: TeammateSpec) -> dict[str, str]:
        env = dict(os.environ)
        env.update(spec.env)
        bindir = os.path.dirname(sys.executable)
        # So a shell teammate finds the same `teamtui` (and python) as the lead.
        if shutil.which("teamtui", path=bindir):
            env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        # Teammates written in Python import the same teamtui as the lead, installed or not.
        pkg_parent = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH", "")) if p)
        env.update(
            TEAMTUI_ROOT=str(self.root.resolve()),
            TEAMTUI_TEAM=self.store.name,
            TEAMTUI_NAME=spec.name,
            TEAMTUI_AGENT_ID=f"{spec.name}@{self.store.name}",
            TEAMTUI_ASSIGN=self.settings.assign,
            TEAMTUI_POLL=f"{self.settings.poll_interval:g}",
            TEAMTUI_PYTHON=sys.executable,
            PYTHONUNBUFFERED="1",
        )
        return env

    def _watch_exit(self, slot: Slot) -> None:
        """A pidfd turns readable when the process ends: no polling, no thread."""
        proc = slot.proc
        assert proc is not None and self._loop is not None
        loop = self._loop
        try:
            fd = os.pidfd_open(proc.pid) if proc.pid else None
        except (OSError, AttributeError):
            fd = None
        if fd is None:
            # No pidfd (old kernel, or a process that is not ours): a waiting thread instead.
            waiter = getattr(proc, "wait", None) or getattr(getattr(proc, "popen", None), "wait", None)
            if waiter is None:
                raise RuntimeError(f"cannot watch {slot.name}'s process for its exit")
            threading.Thread(target=lambda: (waiter(), loop.call_soon_threadsafe(self._exit_seen, slot, proc)), daemon=True).start()
            return
        slot._fd = fd
        loop.add_reader(fd, self._exit_seen, slot, proc)

    def _exit_seen(self, slot: Slot, proc: TeammateProcess) -> None:
        if slot._fd is not None and self._loop is not None:
            self._loop.remove_reader(slot._fd)
            os.close(slot._fd)
            slot._fd = None
        if slot.proc is proc:
            self._exited.append(slot)
            self._wake.set()

    def _on_exit(self, slot: Slot) -> None:
        proc = slot.proc
        assert proc is not None
        # Kill what the teammate left in its group before reaping it, so its pid (the group id) cannot be reused yet.
        proc.kill()
        code = proc.poll()
        slot.proc = None
        slot.exit_codes.append(code)
        slot.health = "stopped"
        slot.waiting = False
        if slot.timer:
            slot.timer.cancel()
        run = self._shutdown
        # Lost while holding work outside a shutdown it was asked for: each in-progress task counts a failure.
        asked = slot.retired or (run is not None and slot.name in run.teammates)
        taken = take_back(self.store, slot.name, f"{slot.name} {_how(code)}", max_failures=self.settings.max_failures, count=not asked)
        released = taken.task_ids
        for level, text, notify in taken.lines(slot.name, _how(code)) if not asked else ():
            self._say(level, text, notify)
        self.store.update_member(slot.name, status="shutdown", pid=None, health="stopped")
        if slot.restarting and run is None:
            slot.restarting = False
            self._say("warning", f"restarting {slot.name}: it disappeared ({_how(code)})", notify=True)
            self._spawn(slot)
            return
        if run is not None and slot.name in run.teammates and not run.teammates[slot.name].outcome.final:
            # A teammate replies, then exits: under load its exit can be seen first. Read the reply
            # before concluding it left without one (the demo's ada once ended "clean", not "in progress").
            self._read_lead_inbox()
        if run is not None and slot.name in run.teammates:
            t = run.teammates[slot.name]
            if not t.outcome.final:
                t.outcome = ShutdownOutcome.CLEAN if code == 0 else ShutdownOutcome.ERROR
                t.detail = f"exited with code {code} without replying"
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
    def _arm_health(self, slot: Slot) -> None:
        if slot.timer:
            slot.timer.cancel()
        assert self._loop is not None
        slot.timer = self._loop.call_later(self.settings.health_timeout, self._health_due, slot)

    def _health_due(self, slot: Slot) -> None:
        if not slot.alive or slot.health in ("idle", "stopped", "disappeared"):
            return
        tasks, _ = self.store.list_tasks(include_internal=True)
        if not any(t.owner == slot.name and t.status == TaskStatus.IN_PROGRESS for t in tasks):
            return
        self._set_health(slot, "disappeared")
        self._say("warning", f"{slot.name} disappeared: no activity for {self.settings.health_timeout:g}s while holding a task", notify=True)
        self._on_disappeared(slot)

    def _on_disappeared(self, slot: Slot) -> None:
        """The patterns' recovery: free its files and put its task back (release), and start it afresh (restart)."""
        policy = self.settings.on_disappeared
        if policy == "flag" or self._shutdown is not None:
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
            proc.terminate()
            assert self._loop is not None
            self._loop.call_later(self.settings.shutdown_grace, lambda: proc.kill() if slot.proc is proc else None)
        self._force = True
        self._wake.set()

    def _set_health(self, slot: Slot, health: str) -> None:
        if slot.health == health:
            return
        slot.health = health
        try:
            self.store.update_member(slot.name, health=health)
        except ProtocolError:
            pass  # the config is being rewritten by a peer: the next change sets it

    def _active(self, name: str) -> None:
        slot = self._by_name.get(name)
        if slot is None or not slot.alive:
            return
        if slot.health == "disappeared":
            self._say("info", f"{name} is active again")
            self._set_health(slot, "working")
        self._arm_health(slot)

    def _note_activity(self, changed: set[Path]) -> None:
        for path in changed:
            ref = self.store.classify(path)
            if ref is not None and ref.kind == "log":
                self._active(ref.key)

    # ------------------------------------------------------------------ inbox and board
    def _read_lead_inbox(self) -> None:
        try:
            if os.stat(self.store.inbox_path(LEAD)).st_size == 0:
                return  # draining an empty inbox would only make lock-file events
        except FileNotFoundError:
            return
        read = self.store.drain(LEAD)
        if read.messages and self.on_lead_messages is not None:
            self.on_lead_messages(read.messages)
        for err in read.errors:
            self._say("warning", f"unreadable message kept aside: {err}")
        replies = []
        for msg in read.messages:
            self._active(msg.sender)
            if msg.type == "idle_notification":
                self._on_idle(msg)
            elif msg.type in ("shutdown_response", "shutdown_approved", "shutdown_rejected"):
                replies.append(msg)
            elif msg.type == "shutdown_request":
                self._on_shutdown_ask(msg)
            else:
                if msg.type == "broadcast":
                    for touch in note_broadcasts(self.store, [msg]):
                        self._say("info", f"{touch.by} touches {touch.path}" + (f" (for #{touch.task})" if touch.task else ""))
                # Broadcasts (TOUCHING_FILE ...) are chatter: kept in the lead's log, not printed.
                level = "debug" if msg.type == "broadcast" else "info"
                self._say(level, f"{msg.sender} → lead: {msg.content}")
        for t in self.asks.observe(replies):
            self._say("info", f"{t.name} answered the shutdown request: {t.outcome.value}")
            slot = self._by_name.get(t.name)
            if slot is not None and t.outcome is not ShutdownOutcome.REJECTED:
                slot.retired = True
        if replies and self._shutdown is None:
            self._external_replies(replies)
        if replies and self._shutdown is not None:
            for name in self._shutdown.observe(replies):
                t = self._shutdown.teammates[name]
                pend = f", pending: {'; '.join(t.pending_work)}" if t.pending_work else ""
                self._say("info", f"{name} answered the shutdown request: {t.outcome.value}{pend}")
                slot = self._by_name.get(name)
                if slot and t.outcome in (ShutdownOutcome.CLEAN, ShutdownOutcome.IN_PROGRESS):
                    self._set_health(slot, "stopped")

    def _external_replies(self, replies: list[Message]) -> None:
        """Someone else (the dashboard's S or x) asked a teammate to stop and it agreed: let it go for good."""
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
        self._set_health(slot, "idle")
        self.hooks.fire("teammate-idle", team_name=self.store.name, teammate_name=slot.name)

    def _diff_board(self, board: Board) -> None:
        now = {t.id: (t.status.value, t.owner) for t in board.tasks.values()}
        for tid, (status, owner) in sorted(now.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
            before = self._prev.get(tid)
            task = board.tasks[tid]
            if status == "in_progress" and owner and before != (status, owner):
                self._say("info", f"#{tid} {task.subject} → {owner}")
                self.hooks.fire("task-assigned", team_name=self.store.name, task_id=tid, task_owner=owner, task_subject=task.subject)
                self._active(owner)
                slot = self._by_name.get(owner)
                if slot:
                    slot.waiting = False
                    self._set_health(slot, "working")
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
            if slot is not None and slot.proc is not None:
                self._say("warning", f"{t.name} did not answer its shutdown request: SIGTERM")
                slot.proc.terminate()
        self._force = True
        self._wake.set()

    def _settle_asks(self, tasks: list[Task]) -> None:
        for run in self.asks.settle(tasks):
            outcomes = ", ".join(f"{t.name} {t.outcome.value}" for t in run.teammates.values())
            self._say("info", f"shutdown summary: {outcomes}")
        self._arm_asks()

    # ------------------------------------------------------------------ shutdown ladder
    def _request(self, reason: str, code: int, escalate: bool, deadline: float | None = None) -> None:
        self._requests.append((reason, code, escalate, deadline))
        self._wake.set()

    @property
    def shutdown_run(self) -> ShutdownRun | None:
        return self._shutdown

    def _start_shutdown(
        self, reason: str, code: int, escalate: bool = False, wire_reason: str = "", deadline: float | None = None
    ) -> None:
        if self._shutdown is not None:
            # Asked again while shutting down (a second Ctrl-C): climb the ladder now.
            if escalate and self._ladder < 3:
                self._climb()
            return
        self._result = RunResult(code, reason)
        targets = [s.name for s in self.slots if s.alive]
        wait = self.settings.shutdown_deadline if deadline is None else deadline
        self._shutdown = ShutdownRun(self.store, targets, sender=LEAD, reason=wire_reason or reason, deadline_seconds=wait)
        self._ladder = 1
        if targets:
            self._say("info", f"shutting down ({reason}): asking {', '.join(targets)} (deadline {wait:g}s)")
        self._shutdown.start()
        self.shutdown_started.set()
        self._set_timer(wait)

    def _set_timer(self, delay: float) -> None:
        if self._timer:
            self._timer.cancel()
        assert self._loop is not None
        self._timer = self._loop.call_later(delay, self._timer_due)

    def _timer_due(self) -> None:
        self._timer = None
        self._force = True
        if any(s.alive for s in self.slots):
            self._climb()
        self._wake.set()

    def _climb(self) -> None:
        """Autohand's ladder, one rung: past the deadline SIGTERM, past the grace SIGKILL."""
        alive = [s for s in self.slots if s.alive]
        if self._ladder <= 1:
            self._ladder = 2
            assert self._shutdown is not None
            self._shutdown.expire(self._shutdown.deadline_at)
            if alive:
                self._say("warning", f"sending SIGTERM to {', '.join(s.name for s in alive)}")
            for s in alive:
                s.proc.terminate()  # type: ignore[union-attr]
            self._set_timer(self.settings.shutdown_grace)
        elif self._ladder == 2:
            self._ladder = 3
            if alive:
                self._say("warning", f"sending SIGKILL to {', '.join(s.name for s in alive)}")
            for s in alive:
                s.proc.kill()  # type: ignore[union-attr]

    def _advance_shutdown(self) -> None:
        if self._shutdown is not None and not any(s.alive for s in self.slots) and self._timer:
            self._timer.cancel()
            self._timer = None

    async def _finish(self) -> None:
        tasks, _ = self.store.list_tasks(include_internal=True)
        board = Board(tasks)
        summary = None
        if self._shutdown is not None:
            self._shutdown.finished_at = self._shutdown.finished_at or time.time()
            self._shutdown.write_results(tasks)
            summary = self._shutdown.summary(tasks)
            if self._shutdown.teammates:
                outcomes = ", ".join(f"{t.name} {t.outcome.value}" for t in self._shutdown.teammates.values())
                self._say("info", f"shutdown summary: {outcomes}")
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


def run_lead(lead: Lead) -> RunResult:
    """Run the lead in this thread's own event loop (used by the dashboard's background thread)."""
    return asyncio.run(lead.run())


__all__ = ["Lead", "LeadEvent", "RunResult", "Slot", "Task", "run_lead"]
