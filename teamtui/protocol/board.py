"""Task board semantics of the reference designs: ready, blocked, missing dependencies,
the file-conflict filter, and dependency cycles. Pure: tasks in, answers out."""

from __future__ import annotations

import posixpath
from enum import Enum

from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.record import Record
from teamtui.protocol.taskmeta import failed_reason, held_reason, scope_files
from teamtui.protocol.touching import touch_active

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterable

    from teamtui.protocol.touching import Touch


class TaskState(str, Enum):
    """Where a task stands on the board, finer than its status."""

    COMPLETED = "completed"
    IN_PROGRESS = "in_progress"
    READY = "ready"
    BLOCKED = "blocked"  # waits on an open blocker or a missing dependency, or failed too often
    WITHHELD = "withheld"  # ready, but an in-progress task claims one of its files, or a teammate touches one
    ASSIGNED = "assigned"  # pending with an owner (assigned, not yet started)
    FAILED = "failed"  # over without success (metadata `failed` says why): nothing waits on it any more


class TaskView(Record):
    __slots__ = ("task", "state", "open_blockers", "missing", "conflicts_with", "held", "waits_on")

    def __init__(
        self,
        task: Task,
        state: TaskState,
        open_blockers: list[str] | None = None,
        missing: list[str] | None = None,
        conflicts_with: list[str] | None = None,
        held: str = "",
        waits_on: list[tuple[str, str]] | None = None,
    ):
        self.task = task
        self.state = state
        self.open_blockers: list[str] = [] if open_blockers is None else open_blockers
        self.missing: list[str] = [] if missing is None else missing
        self.conflicts_with: list[str] = [] if conflicts_with is None else conflicts_with
        self.held = held  # failed max_failures times: held until `task retry`
        # (file, who broadcast TOUCHING_FILE for it)
        self.waits_on: list[tuple[str, str]] = [] if waits_on is None else waits_on

    @property
    def blocked_reason(self) -> str:
        parts = [self.held] if self.held else []
        if self.open_blockers:  # "blocked by #3, #4, #7": the words once, however many there are
            parts.append("blocked by " + ", ".join(f"#{b}" for b in self.open_blockers))
        if self.missing:
            word = "missing dependency" if len(self.missing) == 1 else "missing dependencies"
            parts.append(f"{word} " + ", ".join(f"#{m}" for m in self.missing))
        if self.conflicts_with:
            parts.append("file conflict with " + ", ".join(f"#{c}" for c in self.conflicts_with))
        parts += [f"waits on {path} (touched by {who})" for path, who in self.waits_on]
        return ", ".join(parts)


class Board:
    def __init__(self, tasks: Iterable[Task], touches: Iterable[Touch] = ()):
        self.tasks: dict[str, Task] = {t.id: t for t in tasks}
        # Specflow's TOUCHING_FILE broadcasts: a file stays touched until its sender's task completes.
        self.touches: list[Touch] = list(touches)
        # Derived indexes, built on first use and kept through put(): a live board of 10,000
        # tasks must not re-sort or re-scan everything for one changed task.
        self._ordered: list[Task] | None = None
        self._position: dict[str, int] = {}
        self._done: int | None = None
        self._claimed: dict[str, str] | None = None
        self._current: dict[str, Task] | None = None
        # In-progress tasks with an owner that declare files (id -> the files): what the changes
        # view counts as declared, asked on every batch; kept through put() and remove().
        self._declared: dict[str, tuple[str, ...]] | None = None
        self._with_metadata: dict[str, Task] | None = None  # the tasks with any metadata (held is one)
        # Which tasks each task blocks: kept through put() and remove(), built once here (~2 ms
        # at 10,000 tasks, paid by the first live update when it was built on first use).
        self._dependents: dict[str, set[str]] = {}
        for t in self.tasks.values():
            self._link(t)

    def _link(self, task: Task) -> None:
        for b in task.blocked_by:
            self._dependents.setdefault(b, set()).add(task.id)

    def _unlink(self, task: Task) -> None:
        for b in task.blocked_by:
            users = self._dependents.get(b)
            if users is not None:
                users.discard(task.id)
                if not users:
                    del self._dependents[b]

    def put(self, task: Task) -> None:
        """Add or replace one task, keeping whichever indexes the change leaves valid."""
        old = self.tasks.get(task.id)
        self.tasks[task.id] = task
        if old is None:
            self._ordered = self._current = None
        elif self._ordered is not None:
            self._ordered[self._position[task.id]] = task  # same id, same place in the order
        if self._done is not None:
            self._done += (task.status == TaskStatus.COMPLETED) - (
                old is not None and old.status == TaskStatus.COMPLETED
            )
        if TaskStatus.IN_PROGRESS in (task.status, old.status if old else None):
            self._claimed = None
            kept = old is not None and (old.status, old.owner) == (task.status, task.owner)
            owner = task.owner or ""
            current = self._current.get(owner) if self._current is not None else None
            if kept and self._current is not None and current is not None and current.id == task.id:
                self._current[owner] = task  # the same task under way (a new subject, say): same place, by id
            elif not kept:
                self._current = None
        if old is None or old.blocked_by != task.blocked_by:
            if old is not None:
                self._unlink(old)
            self._link(task)
        if self._declared is not None:
            self._declare(task)
        if self._with_metadata is not None:
            if task.metadata:
                self._with_metadata[task.id] = task
            else:
                self._with_metadata.pop(task.id, None)

    def remove(self, task_id: str) -> None:
        old = self.tasks.pop(task_id, None)
        if old is not None:
            self._unlink(old)
            self._ordered = self._done = self._claimed = self._current = None
            if self._declared is not None:
                self._declared.pop(task_id, None)
            if self._with_metadata is not None:
                self._with_metadata.pop(task_id, None)

    def _sorted(self) -> list[Task]:
        if self._ordered is None:
            self._ordered = sorted(self.tasks.values(), key=Task.sort_key)
            self._position = {t.id: i for i, t in enumerate(self._ordered)}
        return self._ordered

    def ordered(self) -> list[Task]:
        return list(self._sorted())

    def current_tasks(self) -> dict[str, Task]:
        """owner -> the first (in board order) in-progress task it holds."""
        if self._current is None:
            self._current = {}
            for t in self._sorted():
                if t.owner and t.status == TaskStatus.IN_PROGRESS:
                    self._current.setdefault(t.owner, t)
        return self._current

    def declared_files(self) -> dict[str, tuple[str, ...]]:
        """id -> the files it declares, of each in-progress task with an owner that declares any."""
        if self._declared is None:
            self._declared = {}
            for t in self.tasks.values():
                self._declare(t)
        return self._declared

    def with_metadata(self) -> dict[str, Task]:
        """id -> task, of the tasks that carry metadata (only those can be held or failed)."""
        if self._with_metadata is None:
            self._with_metadata = {t.id: t for t in self.tasks.values() if t.metadata}
        return self._with_metadata

    def _declare(self, task: Task) -> None:
        assert self._declared is not None
        files = scope_files(task) if task.owner and task.status == TaskStatus.IN_PROGRESS else ()
        if files:
            self._declared[task.id] = tuple(files)
        else:
            self._declared.pop(task.id, None)

    def affected_by(self, task_ids: Iterable[str], claimed_before: dict[str, str]) -> set[str]:
        """Tasks whose view may differ after `task_ids` changed: those tasks, the tasks they
        block, and tasks using a file whose claimant changed since `claimed_before`."""
        ids = set(task_ids)
        deps = self._dependents
        out = {i for i in ids if i in self.tasks}
        for i in ids:
            out.update(deps.get(i, ()))
        claimed = self.claimed_files()
        moved = {f for f in claimed.keys() | claimed_before.keys() if claimed.get(f) != claimed_before.get(f)}
        if self.touches:
            # A TOUCHING_FILE lasts while its sender's task runs: a change to that task frees or holds its file.
            owners = {self.tasks[i].owner for i in ids if i in self.tasks}
            moved |= {t.path for t in self.touches if t.task in ids or t.by in owners}
        if moved:
            moved |= {posixpath.normpath(f) for f in moved}
            out.update(
                t.id
                for t in self.tasks.values()
                if (t.files or t.metadata) and any(f in moved or posixpath.normpath(f) in moved for f in scope_files(t))
            )
        return out

    def open_blockers(self, task: Task) -> tuple[list[str], list[str]]:
        """(blockers not yet completed, blocker ids that name no task)."""
        open_, missing = [], []
        for b in task.blocked_by:
            dep = self.tasks.get(b)
            if dep is None:
                missing.append(b)
            elif dep.status != TaskStatus.COMPLETED:
                open_.append(b)
        return open_, missing

    def claimed_files(self) -> dict[str, str]:
        """file -> id of the in-progress task that claims it."""
        if self._claimed is None:
            self._claimed = {}
            for t in self.tasks.values():
                if t.status == TaskStatus.IN_PROGRESS:
                    for f in scope_files(t):
                        self._claimed.setdefault(f, t.id)
        return dict(self._claimed)

    def touched_files(self) -> dict[str, str]:
        """Normalised file -> who touches it, for each TOUCHING_FILE whose sender's task is not completed."""
        out: dict[str, str] = {}
        for touch in self.touches:
            if self.touch_active(touch):
                out.setdefault(posixpath.normpath(touch.path), touch.by)
        return out

    def touch_active(self, touch: Touch) -> bool:
        return touch_active(touch, self.tasks)

    def view(
        self, task: Task, claimed: dict[str, str] | None = None, touched: dict[str, str] | None = None
    ) -> TaskView:
        if task.status == TaskStatus.COMPLETED:
            return TaskView(task, TaskState.COMPLETED)
        if task.status == TaskStatus.IN_PROGRESS:
            return TaskView(task, TaskState.IN_PROGRESS)
        failed = failed_reason(task) if task.metadata else ""
        if failed:
            return TaskView(task, TaskState.FAILED, held=f"failed: {failed}")
        open_, missing = self.open_blockers(task)
        held = held_reason(task) if task.metadata else ""
        if open_ or missing or held:
            return TaskView(task, TaskState.BLOCKED, open_, missing, held=held)
        if task.owner:
            return TaskView(task, TaskState.ASSIGNED)
        claimed = self.claimed_files() if claimed is None else claimed
        files = scope_files(task) if task.metadata else task.files
        conflicts = sorted({claimed[f] for f in files if f in claimed and claimed[f] != task.id})
        waits: list[tuple[str, str]] = []
        if self.touches and files:
            touched = self.touched_files() if touched is None else touched
            waits = [(f, touched[n]) for f in files if (n := posixpath.normpath(f)) in touched]
        if conflicts or waits:
            return TaskView(task, TaskState.WITHHELD, conflicts_with=conflicts, waits_on=waits)
        return TaskView(task, TaskState.READY)

    def views(self) -> list[TaskView]:
        claimed = self.claimed_files()
        touched = self.touched_files() if self.touches else {}
        return [self.view(t, claimed, touched) for t in self._sorted()]

    def ready(self, respect_files: bool = True) -> list[Task]:
        claimed = self.claimed_files() if respect_files else {}
        touched = self.touched_files() if respect_files and self.touches else {}
        return [t for t in self.ordered() if self.view(t, claimed, touched).state == TaskState.READY]

    def next_ready(self, respect_files: bool = True) -> Task | None:
        r = self.ready(respect_files)
        return r[0] if r else None

    def why_not_claimable(self, task_id: str) -> str:
        """'' when the task can be claimed, else the reason in words."""
        t = self.tasks[task_id]
        v = self.view(t)
        if v.state == TaskState.READY:
            return ""
        if v.state == TaskState.COMPLETED:
            return "it is already completed"
        if v.state == TaskState.IN_PROGRESS:
            return f"it is in progress (owner {t.owner or 'none'})"
        if v.state == TaskState.ASSIGNED:
            return f"it is assigned to {t.owner}"
        return v.blocked_reason

    def progress(self) -> tuple[int, int]:
        if self._done is None:
            self._done = sum(1 for t in self.tasks.values() if t.status == TaskStatus.COMPLETED)
        return self._done, len(self.tasks)

    def all_completed(self) -> bool:
        return all(t.status == TaskStatus.COMPLETED for t in self.tasks.values())

    def dependents(self, task_id: str) -> list[str]:
        return sorted(self._dependents.get(task_id, ()), key=lambda i: self.tasks[i].sort_key())

    def missing_dependencies(self) -> dict[str, list[str]]:
        out = {}
        for t in self.ordered():
            if t.status != TaskStatus.COMPLETED:
                _, missing = self.open_blockers(t)
                if missing:
                    out[t.id] = missing
        return out

    def cycles(self) -> list[list[str]]:
        """Dependency cycles among unfinished tasks (each as a list of ids)."""
        graph = {
            t.id: [b for b in t.blocked_by if b in self.tasks and self.tasks[b].status != TaskStatus.COMPLETED]
            for t in self.tasks.values()
            if t.status != TaskStatus.COMPLETED
        }
        color: dict[str, int] = {}
        found: list[list[str]] = []
        for start in sorted(graph, key=lambda i: (len(i), i)):
            if color.get(start):
                continue
            stack: list[tuple[str, int]] = [(start, 0)]
            path: list[str] = []
            while stack:
                node, i = stack.pop()
                if i == 0:
                    color[node] = 1
                    path.append(node)
                deps = graph.get(node, [])
                if i < len(deps):
                    stack.append((node, i + 1))
                    nxt = deps[i]
                    if color.get(nxt) == 1 and nxt in path:
                        found.append(path[path.index(nxt) :] + [nxt])
                    elif not color.get(nxt):
                        stack.append((nxt, 0))
                else:
                    color[node] = 2
                    path.pop()
        return found
