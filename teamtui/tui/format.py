"""How domain things read on screen: status icons, relative times, messages by meaning."""

from __future__ import annotations

import json
import math
import time

from teamtui.protocol.models import (
    IdleNotification,
    MemberStatus,
    Message,
    OtherPayload,
    PermissionRequest,
    PlanApprovalRequest,
    PlanApprovalResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    ShutdownResponse,
    TaskAssignment,
)

STATUS_ICON = {
    MemberStatus.WORKING: "●",
    MemberStatus.IDLE: "○",
    MemberStatus.SHUTDOWN: "×",
    MemberStatus.UNKNOWN: "?",
}


def ago(then: float | None, now: float) -> str:
    if not then or not math.isfinite(then):  # a peer's 1e400 reads as inf
        return "—"
    s = max(0, int(now - then))
    if s < 60:
        return f"{s}s ago"
    if s < 3600:
        return f"{s // 60}m ago"
    if s < 86400:
        return f"{s // 3600}h ago"
    return f"{s // 86400}d ago"


def short_ago(then: float | None, now: float) -> str:
    """`5s`, `3m`, `2h`, `4d`: how long ago, in at most three cells."""
    return ago(then, now).removesuffix(" ago")


def compact_count(n: int) -> str:
    """`950`, `12k`, `1.2M`: a token count in at most four cells (the team panel's Tok column)."""
    if n < 1000:
        return str(n)
    for size, unit in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "G")):
        v = n / size
        if v < 9.95:  # rounds to at most 9.9: one decimal fits
            return f"{v:.1f}{unit}"
        if v < 999.5:  # rounds to at most 999: else it is the next unit's 1.0
            return f"{round(v)}{unit}"
    return f"{round(n / 1_000_000_000)}G"


def clock_time(ts: float | None) -> str:
    try:
        return time.strftime("%H:%M:%S", time.localtime(ts)) if ts else "--:--:--"
    except (OverflowError, OSError, ValueError):  # inf, nan, or beyond time_t: from a peer's file
        return "--:--:--"


def describe(msg: Message) -> tuple[str, str]:
    """(kind, text) of a message, by meaning: protocol messages are never shown as raw JSON
    unless teamtui does not know their type."""
    p = msg.payload
    if p is None:
        return (msg.type if msg.type in ("message", "broadcast") else msg.type or "message"), msg.content
    if isinstance(p, ShutdownRequest):
        reason = p.reason or msg.raw.get("reason", "")
        deadline = msg.raw.get("deadline_seconds")
        extra = f", {deadline:g}s" if isinstance(deadline, (int, float)) else ""
        return "shutdown", f"shutdown requested ({reason or 'no reason'}{extra})"
    if isinstance(p, ShutdownResponse):
        verdict = "approved" if p.approves else "rejected"
        text = f"shutdown {verdict}: {p.status}"
        if p.pending_work:
            text += " · pending: " + "; ".join(p.pending_work)
        if p.artifacts_committed:
            text += " · artifacts committed"
        return "shutdown", text
    if isinstance(p, ShutdownApproved):
        return "shutdown", "shutdown approved"
    if isinstance(p, ShutdownRejected):
        return "shutdown", f"shutdown rejected: {p.reason or 'no reason given'}"
    if isinstance(p, IdleNotification):
        text = f"idle ({p.idle_reason or 'available'})"
        if p.completed_task_id:
            text += f" · finished #{p.completed_task_id}" + (f" {p.completed_status}" if p.completed_status else "")
        if p.summary:
            text += f" · {p.summary}"
        if p.failure_reason:
            text += f" · {p.failure_reason}"
        result = getattr(p, "result", None)  # Claude Code 2.1.178+: what the teammate's turn ended with
        if isinstance(result, str) and result:
            text += f" · result: {result}"
        return "idle", text
    if isinstance(p, TaskAssignment):
        return "assign", f"assigned #{p.task_id} {p.subject}".rstrip()
    if isinstance(p, PlanApprovalRequest):
        return "plan", f"plan approval requested {p.plan_file_path}".rstrip()
    if isinstance(p, PlanApprovalResponse):
        return "plan", ("plan approved" if p.approved else "plan rejected") + (f": {p.feedback}" if p.feedback else "")
    if isinstance(p, PermissionRequest):
        return "permission", f"permission for {p.tool_name}: {p.description}".rstrip(": ")
    if p.type == "teammate_terminated":
        said = getattr(p, "message", "")
        return "terminated", said if isinstance(said, str) and said else "a teammate has shut down"
    if isinstance(p, OtherPayload):
        return p.type, json.dumps(p.model_dump(mode="json", by_alias=True), ensure_ascii=False)
    return p.type, msg.content
