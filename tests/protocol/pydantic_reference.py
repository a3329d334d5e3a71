"""The wire models as they were on pydantic (before teamtui.protocol.wire), kept for the test only:
test_wire_equivalence checks the plain-Python models accept and refuse what these did, with the
same values. The enums are the real ones so that values compare equal."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr

from teamtui.protocol.models import MemberStatus, TaskStatus
from teamtui.protocol.plan import task_status


def _to_str(v: Any) -> Any:
    # Peers write ids as ints or strings; teamtui compares them as strings.
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    return v


def _none_to_empty(v: Any) -> Any:
    return "" if v is None else v


def _none_to_list(v: Any) -> Any:
    return [] if v is None else v


Id = Annotated[str, BeforeValidator(_to_str)]
# A string field a peer may also write as null (read as "").
WireStr = Annotated[str, BeforeValidator(_none_to_empty)]
IdList = Annotated[list[Id], BeforeValidator(_none_to_list)]


class WireModel(BaseModel):
    """A model read from a file: unknown keys allowed and kept, original dict remembered."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, arbitrary_types_allowed=True, defer_build=True)
    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def raw(self) -> dict[str, Any]:
        return self._raw


class Task(WireModel):
    id: Id
    subject: WireStr = ""
    description: WireStr = ""
    status: Annotated[TaskStatus, BeforeValidator(task_status)] = TaskStatus.PENDING
    active_form: WireStr = ""
    owner: WireStr = ""
    blocks: IdList = Field(default_factory=list)
    blocked_by: IdList = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: float | None = None
    claimed_at: float | None = None
    completed_at: float | None = None
    result: str | None = None


class Member(WireModel):
    name: str
    agent_id: WireStr = ""
    status: MemberStatus = MemberStatus.UNKNOWN
    agent_type: WireStr = ""
    color: WireStr = ""
    model: WireStr = ""
    pid: int | None = None
    command: WireStr = ""
    tmux_pane_id: WireStr = ""
    backend_type: WireStr = ""
    joined_at: float | None = None
    last_seen: float | None = None


class TeamConfig(WireModel):
    name: str
    description: WireStr = ""
    created_at: float | None = None
    lead: WireStr = "lead"
    members: list[Member] = Field(default_factory=list)


# ---------------------------------------------------------------- protocol payloads


class Payload(BaseModel):
    """A structured protocol message; field names are snake_case, camelCase accepted."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)
    type: str


class ShutdownRequest(Payload):
    type: Literal["shutdown_request"] = "shutdown_request"
    request_id: WireStr = Field("", alias="requestId")
    from_: WireStr = Field("", alias="from")
    reason: WireStr = ""
    deadline_seconds: float = 30.0


def _as_items(v: Any) -> Any:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        import json

        return [x if isinstance(x, str) else json.dumps(x, ensure_ascii=False, sort_keys=True) for x in v]
    return v


class ShutdownResponse(Payload):
    """Native two-phase reply (Teammate API patterns)."""

    type: Literal["shutdown_response"] = "shutdown_response"
    request_id: WireStr = Field("", alias="requestId")
    approve: bool | None = None
    status: Literal["clean", "in_progress", "error"] | str = "clean"
    pending_work: Annotated[list[str], BeforeValidator(_as_items)] = Field(default_factory=list, alias="pendingWork")
    artifacts_committed: bool | None = Field(None, alias="artifactsCommitted")


class ShutdownApproved(Payload):
    type: Literal["shutdown_approved"] = "shutdown_approved"
    request_id: WireStr = Field("", alias="requestId")
    from_: WireStr = Field("", alias="from")
    pane_id: WireStr = Field("", alias="paneId")
    backend_type: WireStr = Field("", alias="backendType")


class ShutdownRejected(Payload):
    type: Literal["shutdown_rejected"] = "shutdown_rejected"
    request_id: WireStr = Field("", alias="requestId")
    from_: WireStr = Field("", alias="from")
    reason: WireStr = ""


class IdleNotification(Payload):
    type: Literal["idle_notification"] = "idle_notification"
    from_: WireStr = Field("", alias="from")
    idle_reason: WireStr = Field("", alias="idleReason")
    summary: WireStr = ""
    completed_task_id: Id = Field("", alias="completedTaskId")
    completed_status: WireStr = Field("", alias="completedStatus")
    failure_reason: WireStr = Field("", alias="failureReason")


class TaskAssignment(Payload):
    type: Literal["task_assignment"] = "task_assignment"
    task_id: Id = Field("", alias="taskId")
    subject: WireStr = ""
    description: WireStr = ""
    assigned_by: WireStr = Field("", alias="assignedBy")


class PlanApprovalRequest(Payload):
    type: Literal["plan_approval_request"] = "plan_approval_request"
    from_: WireStr = Field("", alias="from")
    plan_file_path: WireStr = Field("", alias="planFilePath")
    plan_content: WireStr = Field("", alias="planContent")
    request_id: WireStr = Field("", alias="requestId")


class PlanApprovalResponse(Payload):
    type: Literal["plan_approval_response"] = "plan_approval_response"
    request_id: WireStr = Field("", alias="requestId")
    approved: bool = False
    feedback: WireStr = ""


class PermissionRequest(Payload):
    type: Literal["permission_request"] = "permission_request"
    request_id: WireStr = ""
    agent_id: WireStr = ""
    tool_name: WireStr = ""
    tool_use_id: WireStr = ""
    description: WireStr = ""
    input: Any = None
    permission_suggestions: Any = None


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

    Raises pydantic.ValidationError when a known type has fields of the wrong type.
    """
    kind = data.get("type")
    if not isinstance(kind, str) or kind in ("message", "broadcast"):
        return None
    cls = PAYLOAD_TYPES.get(kind, OtherPayload)
    return cls.model_validate(data)


class Message(WireModel):
    """One inbox entry. `content` is the human text (or, for Claude protocol messages, the JSON text)."""

    type: str = "message"
    sender: WireStr = ""
    recipient: WireStr = ""
    content: WireStr = ""
    timestamp: float = 0.0
    # Native: None until the recipient drains its inbox. Claude Code: the `read` flag.
    read: bool | None = None
    # Claude Code 2.1.178+: the entry left its inbox (the recipient took it): today's read receipt.
    delivered: bool = False
    summary: WireStr = ""
    color: WireStr = ""
    payload: Payload | None = None
