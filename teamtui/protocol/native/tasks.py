"""Native tasks: `.tasks/task_<id>.json` as peers write them, plus teamtui's sidecar of extra fields,
each write under the tasks lock."""

from __future__ import annotations

import time
from pathlib import Path

from teamtui.protocol.errors import ConflictError, NotFoundError, ParseError, ReadError
from teamtui.protocol.fsio import ensure_dir, ensure_inside, load_json_file, write_json_atomic
from teamtui.protocol.locks import FileLock
from teamtui.protocol.models import PATTERN_STATUSES, Task, TaskStatus
from teamtui.protocol.names import check_name
from teamtui.protocol.native.layout import SIDECAR_FILE, TASK_FILE, NativeLayout, is_task_id
from teamtui.protocol.store import validation_reason
from teamtui.protocol.store.files import TaskReader
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The eight keys learn-claude-code builds a task from; anything else goes to the sidecar.
CORE_TASK_KEYS = ("id", "subject", "description", "status", "active_form", "owner", "blocks", "blocked_by")
CAMEL = {"active_form": "activeForm", "blocked_by": "blockedBy"}
SIDECAR_KEYS = ("files", "created_at", "claimed_at", "completed_at", "result", "metadata", "plan_id")
_PATTERN_WORD = {board: word for word, board in PATTERN_STATUSES.items()}


def decode_task_dict(d: Any, path: Path) -> Task:
    """Map a task file's dict (snake_case or camelCase) to a Task, remembering the dict."""
    if not isinstance(d, dict):
        raise ParseError(ReadError(path, f"expected a JSON object, got {type(d).__name__}"))
    data = dict(d)
    for snake, camel in CAMEL.items():
        if camel in data and snake not in data:
            data[snake] = data.pop(camel)
    if "id" not in data:
        m = TASK_FILE.fullmatch(path.name)
        if m:
            data["id"] = m.group(1)
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        raise ParseError(ReadError(path, validation_reason(exc))) from None
    task._raw = d
    return task


class SidecarTasks(TaskReader):
    """Task files with teamtui's fields in a sidecar beside each: each read alone, merged when either changes."""

    store: NativeTasks

    def __init__(self, store: NativeTasks):
        super().__init__(store)
        self.core: dict[str, Task] = {}
        self.side: dict[str, dict[str, Any]] = {}

    def read(self, path: Path) -> Task | ReadError:
        return self.store.read_task_core(path)

    def keep(self, task: Task) -> Task:
        self.core[task.id] = task
        return self.store.merge_sidecar(task, self.side.get(task.id))

    def forget(self, task_id: str) -> None:
        self.core.pop(task_id, None)

    def sidecar_paths(self) -> list[Path]:
        return self.store.sidecar_paths()

    def read_sidecar(self, path: Path, task_id: str) -> tuple[Task | None, list[ReadError]]:
        side = self.store.read_sidecar(task_id)  # gone or unusable: the task file's fields alone
        if isinstance(side, dict):
            self.side[task_id] = side
        else:
            self.side.pop(task_id, None)
        core = self.core.get(task_id)
        merged = self.store.merge_sidecar(core, self.side.get(task_id)) if core is not None else None
        return merged, [side] if isinstance(side, ReadError) else []


class NativeTasks(NativeLayout):
    """The task board's files: reading with the sidecar merged in, and every write under the tasks lock."""

    def task_reader(self) -> SidecarTasks:
        return SidecarTasks(self)

    def task_paths(self) -> list[Path]:
        try:
            return [p for p in self.tasks_dir.iterdir() if TASK_FILE.fullmatch(p.name)]
        except OSError:
            return []

    def read_task_core(self, path: Path) -> Task | ReadError:
        m = TASK_FILE.fullmatch(path.name)
        if m and m.group(1) != str(int(m.group(1))):
            # task_03.json would be written back as task_3.json: another task's file.
            return ReadError(path, "task file name has a leading zero (peers and teamtui write task_<id>.json)")
        data = load_json_file(path)
        if isinstance(data, ReadError):
            return data
        try:
            task = decode_task_dict(data, path)
        except ParseError as exc:
            return exc.error
        m = TASK_FILE.fullmatch(path.name)
        if m and task.id != m.group(1):
            # A write goes to task_<id>.json: never let it land on another task's file.
            return ReadError(path, f"id {task.id!r} does not match the file name")
        return task

    def sidecar_paths(self) -> list[Path]:
        try:
            return [p for p in self.sidecar_dir.iterdir() if SIDECAR_FILE.fullmatch(p.name)]
        except OSError:
            return []

    def read_sidecar(self, task_id: str) -> dict[str, Any] | ReadError | None:
        path = self.sidecar_path(task_id)
        if not path.exists():
            return None
        data = load_json_file(path)
        if isinstance(data, ReadError):
            return data
        if not isinstance(data, dict):
            return ReadError(path, "expected a JSON object")
        problem = self.sidecar_problem(data)
        return ReadError(path, problem) if problem else data

    @staticmethod
    def sidecar_problem(side: dict[str, Any]) -> str | None:
        """Why the sidecar's task fields cannot be used (wrong types), or None."""
        try:
            Task.model_validate({"id": "0", **{k: side[k] for k in SIDECAR_KEYS if k in side}})
        except ValidationError as exc:
            return validation_reason(exc)
        return None

    @staticmethod
    def merge_sidecar(task: Task, side: dict[str, Any] | None) -> Task:
        """Task fields teamtui keeps beside the task file; `files` may also be in the task file."""
        if not side:
            return task
        update: dict[str, Any] = {}
        for key in SIDECAR_KEYS:
            if key in side and (key != "files" or not task.files):
                update[key] = side[key]
        if not update:
            return task
        try:
            merged = Task.model_validate({**task.model_dump(), **update})
        except ValidationError:
            return task
        merged._raw = task._raw
        return merged

    def read_task(self, path: Path) -> Task | ReadError:
        task = self.read_task_core(path)
        if isinstance(task, ReadError):
            return task
        side = self.read_sidecar(task.id) if is_task_id(task.id) else None
        return self.merge_sidecar(task, side if isinstance(side, dict) else None)

    def _tasks_lock(self) -> FileLock:
        ensure_dir(self.tasks_dir, self.root)
        return FileLock(self.tasks_dir / ".lock")

    def _write_task(self, task: Task, changes: dict[str, Any], side_changes: dict[str, Any]) -> Task:
        raw = dict(task.raw)
        if "status" in changes and raw.get("status") in PATTERN_STATUSES:
            # A task file in the patterns' words (available, claimed, complete) keeps them.
            changes = {**changes, "status": _PATTERN_WORD.get(changes["status"], changes["status"])}
        for key, value in changes.items():
            wire_key = key
            if key in CAMEL and CAMEL[key] in raw and key not in raw:
                wire_key = CAMEL[key]
            raw[wire_key] = value
        path = ensure_inside(self.task_path(task.id), self.root)
        current = self.read_sidecar(task.id) if side_changes else None
        if isinstance(current, ReadError):
            raise ParseError(current)  # a sidecar we cannot read is never rewritten
        write_json_atomic(path, raw)
        if side_changes:
            side_path = ensure_inside(self.sidecar_path(task.id), self.root)
            ensure_dir(self.sidecar_dir, self.root)
            side = dict(current) if isinstance(current, dict) else {}
            side.update(side_changes)
            write_json_atomic(side_path, side)
        result = self.read_task(path)
        if isinstance(result, ReadError):
            raise ParseError(result)
        return result

    def _load_for_write(self, task_id: str) -> Task:
        path = self.task_path(task_id)
        if not path.exists():
            raise NotFoundError(f"no task #{task_id} in {self.tasks_dir}")
        task = self.read_task(path)
        if isinstance(task, ReadError):
            raise ParseError(task)
        return task

    def _next_id(self) -> str:
        ids = [int(m.group(1)) for p in self.task_paths() if (m := TASK_FILE.fullmatch(p.name))]
        return str(max(ids, default=0) + 1)

    def create_task(
        self,
        subject: str,
        *,
        description: str = "",
        blocked_by: list[str] | None = None,
        files: list[str] | None = None,
        owner: str = "",
    ) -> Task:
        ensure_dir(self.tasks_dir, self.root)
        deps = [self._task_id(b) for b in blocked_by or []]
        with self._tasks_lock():
            tid = self._next_id()
            raw = {
                "id": tid,
                "subject": subject,
                "description": description,
                "status": "pending",
                "active_form": f"Working on: {subject}",
                "owner": owner,
                "blocks": [],
                "blocked_by": deps,
            }
            write_json_atomic(ensure_inside(self.task_path(tid), self.root), raw)
            side: dict[str, Any] = {"created_at": time.time()}
            if files:
                side["files"] = list(files)
            ensure_dir(self.sidecar_dir, self.root)
            write_json_atomic(self.sidecar_path(tid), side)
            # Keep the reverse edges (`blocks`) as peers do.
            for dep in deps:
                dpath = self.task_path(dep)
                if dpath.exists():
                    dtask = self.read_task_core(dpath)
                    if isinstance(dtask, Task) and tid not in dtask.blocks:
                        self._write_task(dtask, {"blocks": [*dtask.blocks, tid]}, {})
        task = self.read_task(self.task_path(tid))
        assert isinstance(task, Task)
        return task

    def claim_task(self, task_id: str | None, owner: str) -> Task | None:
        """Claim one task (or the next ready one) for `owner`, exactly once across processes.

        Returns None when no task is ready; raises ConflictError when the named task is not claimable.
        """
        from teamtui.protocol.board import Board  # here: of the task commands, claiming alone needs the board
        from teamtui.protocol.touching import load_touches

        check_name(owner, "owner")
        with self._tasks_lock():
            tasks, _errors = self.list_tasks(include_internal=True)
            board = Board(tasks, load_touches(self)[0])
            if task_id is None:
                task = board.next_ready()
                if task is None:
                    return None
            else:
                tid = self._task_id(task_id)
                task = board.tasks.get(tid)
                if task is None:
                    self._load_for_write(tid)  # says whether it is missing or unreadable
                    raise NotFoundError(f"no task #{tid} in {self.tasks_dir}")
                reason = board.why_not_claimable(tid)
                if reason:
                    raise ConflictError(f"task #{tid} cannot be claimed: {reason}")
            return self._write_task(
                task, {"owner": owner, "status": TaskStatus.IN_PROGRESS.value}, {"claimed_at": time.time()}
            )

    def complete_task(self, task_id: str, result: str | None = None) -> Task:
        with self._tasks_lock():
            task = self._load_for_write(self._task_id(task_id))
            side: dict[str, Any] = {"completed_at": time.time()}
            if result is not None:
                side["result"] = result
            return self._write_task(task, {"status": TaskStatus.COMPLETED.value}, side)

    def release_task(self, task_id: str) -> Task:
        with self._tasks_lock():
            task = self._load_for_write(self._task_id(task_id))
            if task.status == TaskStatus.COMPLETED:
                raise ConflictError(f"task #{task.id} is already completed")
            return self._write_task(task, {"owner": "", "status": TaskStatus.PENDING.value}, {})

    def release_owner(self, owner: str) -> list[str]:
        """Return every unfinished task of `owner` to pending with no owner (crash recovery)."""
        released = []
        with self._tasks_lock():
            tasks, _ = self.list_tasks(include_internal=True)
            for task in tasks:
                if task.owner == owner and task.status != TaskStatus.COMPLETED:
                    self._write_task(task, {"owner": "", "status": TaskStatus.PENDING.value}, {})
                    released.append(task.id)
        return released

    def update_task(self, task_id: str, **fields: Any) -> Task:
        return self.change_task(task_id, lambda _task: fields)

    def change_task(self, task_id: str, change: Callable[[Task], dict[str, Any] | None]) -> Task:
        """Read-modify-write one task under the board's lock: `change` sees the task as it is now and
        returns the fields to set (the eight core keys into the task file, the rest beside it) or None."""
        with self._tasks_lock():
            task = self._load_for_write(self._task_id(task_id))
            fields = change(task)
            if not fields:
                return task
            core = {k: v for k, v in fields.items() if k in CORE_TASK_KEYS and k != "id"}
            side = {k: v for k, v in fields.items() if k not in CORE_TASK_KEYS}
            if "status" in core:
                core["status"] = TaskStatus(core["status"]).value
            return self._write_task(task, core, side)

    def import_tasks(self, build: Callable[[int], list[dict[str, Any]]]) -> list[Task]:
        """Create several tasks at once under the board's lock: `build(first_id)` returns their dicts
        (ids from `first_id`, as plan.task_dicts makes them); core keys go to the task files, the rest beside."""
        with self._tasks_lock():
            dicts = build(int(self._next_id()))
            now = time.time()
            for d in dicts:
                tid = self._task_id(d["id"])
                raw = {k: d[k] for k in CORE_TASK_KEYS if k in d}
                raw.setdefault("active_form", f"Working on: {d.get('subject', '')}")
                write_json_atomic(ensure_inside(self.task_path(tid), self.root), raw)
                side = {k: v for k, v in d.items() if k in SIDECAR_KEYS}
                side.setdefault("created_at", now)
                ensure_dir(self.sidecar_dir, self.root)
                write_json_atomic(ensure_inside(self.sidecar_path(tid), self.root), side)
        out = [self.read_task(self.task_path(str(d["id"]))) for d in dicts]
        return [t for t in out if isinstance(t, Task)]
