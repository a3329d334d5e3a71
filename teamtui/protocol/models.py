"""The domain models shared by both layouts: team, member, task, message, log entry.

Each model keeps the wire dict it was read from (`raw`), so that a read-modify-write
puts back every key teamtui does not know, in the spelling the file already used.
"""

from __future__ import annotations

from collections import namedtuple
from enum import Enum

from teamtui.protocol.wire import (
    WireBase,
    anything,
    exactly,
    field,
    list_of,
    model_of,
    one_of,
    optional,
    to_bool,
    to_dict,
    to_float,
    to_id,
    to_int,
    to_str,
    wire_str,
)

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any

id_list = list_of(to_id)

# The Teammate API patterns' task statuses and the board's.
PATTERN_STATUSES = {"available": "pending", "claimed": "in_progress", "complete": "completed"}


def task_status(value: Any) -> Any:
    """A task file's status as the board reads it: the patterns' `available`, `claimed`,
    `complete` become `pending`, `in_progress`, `completed`; anything else is left to the caller."""
    return PATTERN_STATUSES.get(value, value) if isinstance(value, str) else value


def _task_status(v: Any) -> TaskStatus:
    return one_of(TaskStatus)(task_status(v))


def _id_list(v: Any) -> list[str]:
    return [] if v is None else id_list(v)


class TaskStatus(str, Enum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


class WireModel(WireBase):
    """A model read from a file: unknown keys allowed and kept, original dict remembered (`_raw`,
    set by the layout that read it)."""

    def _fill(self, data: dict[str, Any]) -> None:
        super()._fill(data)
        self._raw: dict[str, Any] = {}

    @property
    def raw(self) -> dict[str, Any]:
        return self._raw


class Task(WireModel):
    id: str = field(to_id)
    subject: str = field(wire_str, "")
    description: str = field(wire_str, "")
    # The Teammate API patterns' `available`, `claimed`, `complete` read as the board's statuses.
    status: TaskStatus = field(_task_status, TaskStatus.PENDING)
    active_form: str = field(wire_str, "")
    owner: str = field(wire_str, "")
    blocks: list[str] = field(_id_list, factory=list)
    blocked_by: list[str] = field(_id_list, factory=list)
    files: list[str] = field(list_of(to_str), factory=list)
    metadata: dict[str, Any] = field(to_dict, factory=dict)
    created_at: float | None = field(optional(to_float), None)
    claimed_at: float | None = field(optional(to_float), None)
    completed_at: float | None = field(optional(to_float), None)
    result: str | None = field(optional(to_str), None)

    @property
    def internal(self) -> bool:
        return bool(self.metadata.get("_internal")) if isinstance(self.metadata, dict) else False

    def sort_key(self) -> tuple[int, int | str, int]:
        # ASCII digits only, and short: int() refuses '²' and strings over 4300 digits.
        tid = self.id
        if tid.isascii() and tid.isdigit() and len(tid) <= 18:
            return (0, int(tid), 0)
        # A prefix and a number (a Claude Code lead's assignments: a1, a2, ... a10): by the number.
        head = tid.rstrip("0123456789")
        digits = len(tid) - len(head)
        return (1, head, int(tid[len(head) :])) if head and 0 < digits <= 18 else (1, tid, -1)


class MemberStatus(str, Enum):
    WORKING = "working"
    IDLE = "idle"
    SHUTDOWN = "shutdown"
    UNKNOWN = "unknown"


def normalize_status(value: Any) -> MemberStatus:
    """`active` and `working` both mean working (peers use either)."""
    if value in ("active", "working"):
        return MemberStatus.WORKING
    if value == "idle":
        return MemberStatus.IDLE
    if value in ("shutdown", "stopped", "exited"):
        return MemberStatus.SHUTDOWN
    return MemberStatus.UNKNOWN


class Member(WireModel):
    name: str = field(to_str)
    agent_id: str = field(wire_str, "")
    status: MemberStatus = field(one_of(MemberStatus), MemberStatus.UNKNOWN)
    agent_type: str = field(wire_str, "")
    color: str = field(wire_str, "")
    model: str = field(wire_str, "")
    pid: int | None = field(optional(to_int), None)
    command: str = field(wire_str, "")
    tmux_pane_id: str = field(wire_str, "")
    backend_type: str = field(wire_str, "")
    joined_at: float | None = field(optional(to_float), None)
    last_seen: float | None = field(optional(to_float), None)


class TeamConfig(WireModel):
    name: str = field(to_str)
    description: str = field(wire_str, "")
    created_at: float | None = field(optional(to_float), None)
    lead: str = field(wire_str, "lead")
    members: list[Member] = field(list_of(model_of(Member)), factory=list)

    def member(self, name: str) -> Member | None:
        return next((m for m in self.members if m.name == name), None)


# ---------------------------------------------------------------- protocol payloads


class Payload(WireBase):
    """A structured protocol message; field names are snake_case, camelCase accepted."""

    type: str = field(to_str)


class ShutdownRequest(Payload):
    type: str = field(exactly("shutdown_request"), "shutdown_request")
    request_id: str = field(wire_str, "", alias="requestId")
    from_: str = field(wire_str, "", alias="from")
    reason: str = field(wire_str, "")
    deadline_seconds: float = field(to_float, 30.0)


def _as_items(v: Any) -> list[str]:
    # The patterns leave pending_work's items open: a string stays, anything else is kept as its JSON.
    if v is None:
        return []
    if isinstance(v, str):
        return [str.__str__(v)]  # a str enum member becomes its text, as a list[str] field makes it
    if isinstance(v, list):
        import json

        return [str.__str__(x) if isinstance(x, str) else json.dumps(x, ensure_ascii=False, sort_keys=True) for x in v]
    return list_of(to_str)(v)


class ShutdownResponse(Payload):
    """Native two-phase reply. The Teammate API patterns' own schema has neither `request_id` nor
    `approve` (`{type, status, pending_work, artifacts_committed}`); teamtui writes both."""

    type: str = field(exactly("shutdown_response"), "shutdown_response")
    request_id: str = field(wire_str, "", alias="requestId")
    approve: bool | None = field(optional(to_bool), None)
    status: str = field(to_str, "clean")  # "clean", "in_progress" or "error"; other words kept as written
    pending_work: list[str] = field(_as_items, factory=list, alias="pendingWork")
    artifacts_committed: bool | None = field(optional(to_bool), None, alias="artifactsCommitted")

    @property
    def approves(self) -> bool:
        """An explicit `approve` wins; without one, answering at all is agreeing (the patterns' schema)."""
        return True if self.approve is None else self.approve


class ShutdownApproved(Payload):
    type: str = field(exactly("shutdown_approved"), "shutdown_approved")
    request_id: str = field(wire_str, "", alias="requestId")
    from_: str = field(wire_str, "", alias="from")
    pane_id: str = field(wire_str, "", alias="paneId")
    backend_type: str = field(wire_str, "", alias="backendType")


class ShutdownRejected(Payload):
    type: str = field(exactly("shutdown_rejected"), "shutdown_rejected")
    request_id: str = field(wire_str, "", alias="requestId")
    from_: str = field(wire_str, "", alias="from")
    reason: str = field(wire_str, "")


class IdleNotification(Payload):
    type: str = field(exactly("idle_notification"), "idle_notification")
    from_: str = field(wire_str, "", alias="from")
    idle_reason: str = field(wire_str, "", alias="idleReason")
    summary: str = field(wire_str, "")
    completed_task_id: str = field(to_id, "", alias="completedTaskId")
    completed_status: str = field(wire_str, "", alias="completedStatus")
    failure_reason: str = field(wire_str, "", alias="failureReason")


class TaskAssignment(Payload):
    type: str = field(exactly("task_assignment"), "task_assignment")
    task_id: str = field(to_id, "", alias="taskId")
    subject: str = field(wire_str, "")
    description: str = field(wire_str, "")
    assigned_by: str = field(wire_str, "", alias="assignedBy")


class PlanApprovalRequest(Payload):
    type: str = field(exactly("plan_approval_request"), "plan_approval_request")
    from_: str = field(wire_str, "", alias="from")
    plan_file_path: str = field(wire_str, "", alias="planFilePath")
    plan_content: str = field(wire_str, "", alias="planContent")
    request_id: str = field(wire_str, "", alias="requestId")


class PlanApprovalResponse(Payload):
    type: str = field(exactly("plan_approval_response"), "plan_approval_response")
    request_id: str = field(wire_str, "", alias="requestId")
    approved: bool = field(to_bool, False)
    feedback: str = field(wire_str, "")


class PermissionRequest(Payload):
    type: str = field(exactly("permission_request"), "permission_request")
    request_id: str = field(wire_str, "")
    agent_id: str = field(wire_str, "")
    tool_name: str = field(wire_str, "")
    tool_use_id: str = field(wire_str, "")
    description: str = field(wire_str, "")
    input: Any = field(anything, None)
    permission_suggestions: Any = field(anything, None)


class OtherPayload(Payload):
    """A protocol message of a type teamtui does not know: shown raw."""


PAYLOAD_TYPES: dict[str, type[Payload]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        ShutdownRequest,
        ShutdownResponse,
        ShutdownApproved,
        ShutdownRejected,
        IdleNotification,
        TaskAssignment,
        PlanApprovalRequest,
        PlanApprovalResponse,
        PermissionRequest,
    )
}


# The replies a teammate may give a shutdown request: the native layout's, then Claude Code's two.
SHUTDOWN_REPLY_TYPES: tuple[str, ...] = tuple(
    cls.model_fields["type"].default for cls in (ShutdownResponse, ShutdownApproved, ShutdownRejected)
)


def decode_payload(data: dict[str, Any]) -> Payload | None:
    """Decode a protocol dict by its `type`; None when it is not a protocol message.

    Raises ValidationError when a known type has fields of the wrong type.
    """
    kind = data.get("type")
    if not isinstance(kind, str) or kind in ("message", "broadcast"):
        return None
    cls = PAYLOAD_TYPES.get(kind, OtherPayload)
    return cls.model_validate(data)


class Message(WireModel):
    """One inbox entry. `content` is the human text (or, for Claude protocol messages, the JSON text)."""

    type: str = field(to_str, "message")
    sender: str = field(wire_str, "")
    recipient: str = field(wire_str, "")
    content: str = field(wire_str, "")
    timestamp: float = field(to_float, 0.0)
    # Native: None until the recipient drains its inbox. Claude Code: the `read` flag.
    read: bool | None = field(optional(to_bool), None)
    # Claude Code 2.1.178+: the entry left its inbox (the recipient took it): today's read receipt.
    delivered: bool = field(to_bool, False)
    summary: str = field(wire_str, "")
    color: str = field(wire_str, "")
    payload: Payload | None = field(optional(model_of(Payload)), None)


class LogLevel(str, Enum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


def normalize_level(value: Any) -> LogLevel:
    if isinstance(value, str):
        v = value.lower()
        if v in ("warn", "warning"):
            return LogLevel.WARNING
        if v in ("err", "error", "critical", "fatal"):
            return LogLevel.ERROR
        if v == "debug":
            return LogLevel.DEBUG
    return LogLevel.INFO


# One log line: member (str), ts (float | None), level (LogLevel), text (str), line (int | None).
# A tuple, not a model: one is built for every line read, and cheaply (LogBuffer keeps the
# buffered ones as plain tuples the garbage collector does not track). collections', not
# typing's NamedTuple: typing costs every CLI call ~2 ms.
LogEntry = namedtuple("LogEntry", ("member", "ts", "level", "text", "line"), defaults=(None, LogLevel.INFO, "", None))
