"""The native layout: `.teams/<team>/` and `.tasks/` inside a project root (learn-claude-code's protocol)."""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from teamtui.protocol.board import Board
from teamtui.protocol.errors import ConflictError, NotFoundError, ParseError, ProtocolError, ReadError
from teamtui.protocol.fsio import (
    append_bytes,
    ensure_dir,
    ensure_inside,
    open_regular,
    load_json_file,
    parse_json_bytes,
    write_json_atomic,
)
from teamtui.protocol.locks import FileLock
from teamtui.protocol.models import (
    Member,
    Message,
    Task,
    TaskStatus,
    TeamConfig,
    decode_payload,
    normalize_status,
)
from teamtui.protocol.names import check_name
from teamtui.protocol.plan import PATTERN_STATUSES
from teamtui.protocol.store import FileRef, InboxRead, TeamStore, validation_reason
from teamtui.protocol.tail import TailReader
from teamtui.protocol.touching import load_touches

# The eight keys learn-claude-code builds a task from; anything else goes to the sidecar.
CORE_TASK_KEYS = ("id", "subject", "description", "status", "active_form", "owner", "blocks", "blocked_by")
CAMEL = {"active_form": "activeForm", "blocked_by": "blockedBy"}
SIDECAR_KEYS = ("files", "created_at", "claimed_at", "completed_at", "result", "metadata", "plan_id")
# [0-9], not \d: \d matches non-ASCII digits, which int() folds into another task's id.
_TASK_FILE = re.compile(r"task_([0-9]{1,18})\.json")
_SIDECAR_FILE = re.compile(r"([0-9]{1,18})\.json")
_INBOX_FILE = re.compile(r"(.+)_inbox\.jsonl")
_ENVELOPE_KEYS = ("sender", "content", "timestamp")
_PATTERN_WORD = {board: word for word, board in PATTERN_STATUSES.items()}


def _as_float(v: Any) -> float:
    if isinstance(v, bool):
        return 0.0
    if isinstance(v, (int, float)):
        try:
            return float(v)
        except OverflowError:  # an int too large for a float (e.g. 10**400)
            return 0.0
    if isinstance(v, str):
        try:
            return float(v)
        except (ValueError, OverflowError):
            try:
                return datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()
            except ValueError:
                return 0.0
    return 0.0


def decode_task_dict(d: Any, path: Path) -> Task:
    """Map a task file's dict (snake_case or camelCase) to a Task, remembering the dict."""
    if not isinstance(d, dict):
        raise ParseError(ReadError(path, f"expected a JSON object, got {type(d).__name__}"))
    data = dict(d)
    for snake, camel in CAMEL.items():
        if camel in data and snake not in data:
            data[snake] = data.pop(camel)
    if "id" not in data:
        m = _TASK_FILE.fullmatch(path.name)
        if m:
            data["id"] = m.group(1)
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        raise ParseError(ReadError(path, validation_reason(exc))) from None
    task._raw = d
    return task


def decode_message_dict(d: Any, path: Path, recipient: str, line: int | None = None) -> Message | ReadError:
    if not isinstance(d, dict):
        return ReadError(path, f"expected a JSON object, got {type(d).__name__}", line)
    kind = d.get("type", "message")
    if not isinstance(kind, str):
        return ReadError(path, "'type' must be a string", line)
    try:
        # The envelope (sender, content, timestamp) is the message's, not the protocol payload's.
        payload = decode_payload({k: v for k, v in d.items() if k not in _ENVELOPE_KEYS})
        content = d.get("content", "")
        msg = Message(
            type=kind,
            sender=str(d.get("sender") or d.get("from") or ""),
            recipient=recipient,
            content=content if isinstance(content, str) else "" if content is None else json.dumps(content),
            timestamp=_as_float(d.get("timestamp")),
            payload=payload,
        )
    except ValidationError as exc:
        return ReadError(path, validation_reason(exc), line)
    msg._raw = d
    return msg


class NativeTeam(TeamStore):
    layout = "native"
    writes_tasks = True
    default_lead = "lead"

    def __init__(self, root: Path, name: str):
        super().__init__(root, check_name(name, "team name"))

    # ------------------------------------------------------------------ paths
    @property
    def team_dir(self) -> Path:
        return self.root / ".teams" / self.name

    @property
    def tasks_dir(self) -> Path:
        return self.root / ".tasks"

    @property
    def sidecar_dir(self) -> Path:
        return self.tasks_dir / ".teamtui"

    @property
    def logs_dir(self) -> Path:
        return self.team_dir / "logs"

    @property
    def shutdown_dir(self) -> Path:
        return self.team_dir / "shutdown"

    def inbox_path(self, member: str) -> Path:
        return self.team_dir / f"{check_name(member, 'teammate name')}_inbox.jsonl"

    def inbox_lock_path(self, member: str) -> Path:
        return self.team_dir / f"{check_name(member, 'teammate name')}_inbox.lock"

    def log_paths(self, member: str) -> list[Path]:
        check_name(member, "teammate name")
        return [self.logs_dir / f"{member}.jsonl", self.logs_dir / f"{member}.log"]

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / f"task_{self._task_id(task_id)}.json"

    def sidecar_path(self, task_id: str) -> Path:
        return self.sidecar_dir / f"{self._task_id(task_id)}.json"

    @staticmethod
    def _task_id(task_id: object) -> str:
        tid = str(task_id)
        if not (tid.isascii() and tid.isdigit()) or len(tid) > 18:
            raise ProtocolError(f"task id {tid!r} is not a number")
        return str(int(tid))

    def classify(self, path: Path) -> FileRef | None:
        path = Path(path)
        parent = path.parent
        name = path.name
        if parent == self.tasks_dir:
            m = _TASK_FILE.fullmatch(name)
            return FileRef("task", str(int(m.group(1)))) if m else None
        if parent == self.sidecar_dir:
            m = _SIDECAR_FILE.fullmatch(name)
            return FileRef("task_sidecar", str(int(m.group(1)))) if m else None
        if parent == self.team_dir:
            if name == "config.json":
                return FileRef("config")
            m = _INBOX_FILE.fullmatch(name)
            return FileRef("inbox", m.group(1)) if m else None
        if parent == self.logs_dir and (name.endswith(".jsonl") or name.endswith(".log")):
            return FileRef("log", name.rsplit(".", 1)[0])
        if parent == self.shutdown_dir and name.endswith(".json"):
            return FileRef("shutdown", name[:-5])
        return None

    # ----------------------------------------------------------------- config
    def decode_config(self, data: Any, path: Path) -> TeamConfig:
        if not isinstance(data, dict):
            raise ParseError(ReadError(path, f"expected a JSON object, got {type(data).__name__}"))
        raw_members = data.get("members", [])
        if raw_members is None:
            raw_members = []
        if not isinstance(raw_members, list):
            raise ParseError(ReadError(path, "'members' must be a list"))
        members = []
        for i, rm in enumerate(raw_members):
            if not isinstance(rm, dict):
                raise ParseError(ReadError(path, f"members[{i}] must be an object"))
            md = dict(rm)
            md["status"] = normalize_status(rm.get("status"))
            try:
                m = Member.model_validate(md)
            except ValidationError as exc:
                raise ParseError(ReadError(path, f"members[{i}].{validation_reason(exc)}")) from None
            m._raw = rm
            members.append(m)
        td = {k: v for k, v in data.items() if k != "members"}
        td.setdefault("name", self.name)
        if not td.get("lead"):
            td["lead"] = "lead"
        try:
            cfg = TeamConfig.model_validate({**td, "members": []})
        except ValidationError as exc:
            raise ParseError(ReadError(path, validation_reason(exc))) from None
        cfg.members = members
        cfg._raw = data
        return cfg

    def _config_lock(self) -> FileLock:
        return FileLock(self.team_dir / "config.lock")

    def update_config(self, change: Callable[[dict[str, Any]], None]) -> TeamConfig:
        """Read-modify-write the config under a lock; an unparsable config is never rewritten."""
        if not self.team_dir.is_dir():
            raise NotFoundError(f"no team {self.name!r} at {self.team_dir}")
        ensure_inside(self.config_path, self.root)  # the lock and the rewrite both land beside it
        with self._config_lock():
            data = load_json_file(self.config_path)
            if isinstance(data, ReadError):
                raise ParseError(data)
            self.decode_config(data, self.config_path)  # refuse to rewrite what we cannot understand
            change(data)
            write_json_atomic(self.config_path, data)
            return self.decode_config(data, self.config_path)

    def create(self, description: str = "", lead: str = "lead") -> TeamConfig:
        check_name(lead, "lead name")
        ensure_dir(self.team_dir, self.root)
        ensure_dir(self.tasks_dir, self.root)
        with self._config_lock():
            if self.config_path.exists():
                raise ConflictError(f"team {self.name!r} already exists at {self.team_dir}")
            data: dict[str, Any] = {"name": self.name, "created_at": time.time(), "members": []}
            if description:
                data["description"] = description
            if lead != "lead":
                data["lead"] = lead
            write_json_atomic(self.config_path, data)
        return self.read_config()

    def add_member(self, name: str, *, status: str = "idle", **fields: Any) -> Member:
        check_name(name, "teammate name")
        if name == self.lead_name:
            raise ConflictError(f"{name!r} is the team's lead")

        def change(data: dict[str, Any]) -> None:
            members = data.setdefault("members", [])
            for m in members:
                if m.get("name") == name:
                    raise ConflictError(f"{name!r} is already a member of {self.name!r}")
            entry = {"name": name, "agent_id": f"{name}@{self.name}", "status": status}
            entry.update({k: v for k, v in fields.items() if v not in (None, "")})
            entry.setdefault("joined_at", time.time())
            members.append(entry)

        cfg = self.update_config(change)
        member = cfg.member(name)
        assert member is not None
        return member

    def update_member(self, name: str, **fields: Any) -> Member:
        """Set fields on one member entry (e.g. status, pid, last_seen), keeping every other key."""

        def change(data: dict[str, Any]) -> None:
            for m in data.get("members", []):
                if m.get("name") == name:
                    for k, v in fields.items():
                        if v is None:
                            m.pop(k, None)
                        else:
                            m[k] = v
                    return
            raise NotFoundError(f"no member {name!r} in team {self.name!r}")

        cfg = self.update_config(change)
        member = cfg.member(name)
        assert member is not None
        return member

    # ----------------------------------------------------------------- inboxes
    def inbox_owners(self) -> list[str]:
        try:
            names = [m.group(1) for p in self.team_dir.iterdir() if (m := _INBOX_FILE.fullmatch(p.name))]
        except OSError:
            return []
        return sorted(n for n in names if _safe(n))

    def decode_inbox_line(self, member: str, line: bytes, line_no: int | None) -> Message | ReadError:
        path = self.inbox_path(member)
        data = parse_json_bytes(path, line, line_no)
        if isinstance(data, ReadError):
            return data
        return decode_message_dict(data, path, member, line_no)

    def peek(self, member: str) -> InboxRead:
        reader = TailReader(self.inbox_path(member))
        batch = reader.read_all()
        out = InboxRead([], [])
        if batch.error:
            out.errors.append(ReadError(reader.path, batch.error))
        for line_no, size in batch.overlong:
            out.errors.append(ReadError(reader.path, f"line is {size} bytes, over the limit", line_no))
        for line, no in zip(batch.lines, batch.line_numbers):
            item = self.decode_inbox_line(member, line, no)
            (out.errors if isinstance(item, ReadError) else out.messages).append(item)
        return out

    def _append_line(self, member: str, obj: dict[str, Any]) -> None:
        ensure_dir(self.team_dir, self.root)
        path = ensure_inside(self.inbox_path(member), self.root)
        line = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        with FileLock(self.inbox_lock_path(member)):
            append_bytes(path, line)

    def send(self, to, content, sender, *, type="message", extra=None) -> Message:
        check_name(to, "recipient")
        check_name(sender, "sender")
        obj: dict[str, Any] = {"type": type, "sender": sender, "content": content, "timestamp": time.time()}
        if extra:
            obj.update({k: v for k, v in extra.items() if k not in obj})
        self._append_line(to, obj)
        msg = decode_message_dict(obj, self.inbox_path(to), to)
        assert isinstance(msg, Message)
        return msg

    def drain(self, member: str) -> InboxRead:
        """Read-and-clear the member's own inbox under its lock (learn-claude-code's read_inbox)."""
        path = self.inbox_path(member)
        out = InboxRead([], [])
        if not path.exists():
            return out
        ensure_inside(path, self.root)  # draining truncates: never a file outside the team
        with FileLock(self.inbox_lock_path(member)):
            try:
                # Non-blocking and regular files only: a FIFO or device here must not hang the drain.
                fd = open_regular(path, os.O_RDWR)
            except OSError as exc:
                out.errors.append(ReadError(path, f"cannot read: {exc.strerror or exc}"))
                return out
            except ProtocolError:
                out.errors.append(ReadError(path, "not a regular file"))
                return out
            with os.fdopen(fd, "r+b") as fh:
                data = fh.read()
                if data:
                    self._drain_lines(member, data, out)
                    fh.truncate(0)
        return out

    def _drain_lines(self, member: str, data: bytes, out: InboxRead) -> None:
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        bad: list[bytes] = []
        for no, line in enumerate(lines, 1):
            item = self.decode_inbox_line(member, line, no)
            if isinstance(item, ReadError):
                out.errors.append(item)
                bad.append(line)
            else:
                out.messages.append(item)
        if bad:
            self._keep_rejected(member, bad)

    def _keep_rejected(self, member: str, lines: list[bytes]) -> None:
        # A drained line that did not parse is kept aside, never thrown away.
        d = ensure_dir(self.team_dir / ".rejected", self.root)
        path = ensure_inside(d / f"{check_name(member, 'teammate name')}_inbox.jsonl", self.root)
        append_bytes(path, b"".join(line + b"\n" for line in lines))

    def send_shutdown_request(self, to: str, sender: str, reason: str, deadline_seconds: float) -> str:
        request_id = secrets.token_hex(4)
        self.send(
            to,
            reason or "Please finish up and shut down.",
            sender,
            type="shutdown_request",
            extra={"request_id": request_id, "reason": reason or "phase_complete", "deadline_seconds": deadline_seconds},
        )
        return request_id

    def send_shutdown_response(
        self, sender, request_id, *, approve, status="clean", pending_work=None, artifacts_committed=False, reason=""
    ) -> None:
        self.send(
            self.lead_name,
            reason or ("Shutting down." if approve else "Not shutting down yet."),
            sender,
            type="shutdown_response",
            extra={
                "request_id": request_id,
                "approve": approve,
                "status": status,
                "pending_work": list(pending_work or []),
                "artifacts_committed": artifacts_committed,
            },
        )

    def write_shutdown_result(self, request_id: str, result: dict[str, Any]) -> Path:
        check_name(request_id, "request id")
        d = ensure_dir(self.shutdown_dir, self.root)
        path = d / f"{request_id}.json"
        write_json_atomic(path, result)
        return path

    # -------------------------------------------------------------------- logs
    def log(self, member: str, text: str, level: str = "info") -> None:
        path = ensure_inside(self.log_paths(member)[0], self.root)
        ensure_dir(self.logs_dir, self.root)
        line = json.dumps({"ts": time.time(), "level": level, "text": text}, ensure_ascii=False) + "\n"
        append_bytes(path, line.encode("utf-8"))

    # ------------------------------------------------------------------- tasks
    def task_paths(self) -> list[Path]:
        try:
            return [p for p in self.tasks_dir.iterdir() if _TASK_FILE.fullmatch(p.name)]
        except OSError:
            return []

    def read_task_core(self, path: Path) -> Task | ReadError:
        m = _TASK_FILE.fullmatch(path.name)
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
        m = _TASK_FILE.fullmatch(path.name)
        if m and task.id != m.group(1):
            # A write goes to task_<id>.json: never let it land on another task's file.
            return ReadError(path, f"id {task.id!r} does not match the file name")
        return task

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
        side = self.read_sidecar(task.id) if task.id.isascii() and task.id.isdigit() and len(task.id) <= 18 else None
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
        ids = [int(m.group(1)) for p in self.task_paths() if (m := _TASK_FILE.fullmatch(p.name))]
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


def _safe(name: str) -> bool:
    try:
        check_name(name)
    except ProtocolError:
        return False
    return True

