"""One Claude Code transcript line made readable: the model's text, tool calls with their most
telling argument, results marked ok or error, teammate messages, idle and compaction markers.

Everything taken from the line is data: it passes through `inert` (no escapes, no control
characters, no newlines) and is cut to a bounded length.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from datetime import datetime
from enum import Enum
from typing import NamedTuple

from teamtui.protocol.models import LogEntry, LogLevel
from teamtui.protocol.text import inert

# A rendered entry is one screen line: longer text is cut here (the panel wraps what is left).
MAX_TEXT = 240
# Tool-use ids remembered to name the tool a result belongs to.
_TOOL_NAMES_KEPT = 256

# The one argument that says most about a call, by tool name; the first key present wins.
TOOL_ARGS: dict[str, tuple[str, ...]] = {
    "Bash": ("command",),
    "BashOutput": ("bash_id",),
    "KillShell": ("shell_id",),
    "Read": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "Write": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("pattern",),
    "Grep": ("pattern",),
    "WebFetch": ("url",),
    "WebSearch": ("query",),
    "Agent": ("name", "description", "subagent_type"),
    "Task": ("description", "subagent_type"),
    "SendMessage": ("to", "recipient"),
    "TaskCreate": ("subject",),
    "TaskGet": ("taskId",),
    "Skill": ("skill", "command"),
    "ToolSearch": ("query",),
    "TodoWrite": (),
}
# Keys tried for a tool not in the table.
_FALLBACK_ARGS = ("file_path", "path", "command", "pattern", "query", "url", "name", "description")

_TEAMMATE_MESSAGE = re.compile(r"<teammate-message\b([^>]*)>(.*?)(?:</teammate-message>|\Z)", re.S)
_ATTR = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')


class EntryKind(str, Enum):
    TEXT = "text"  # the model's words
    TOOL = "tool"  # a tool call
    RESULT = "result"  # a tool's result, ok or error
    MESSAGE = "message"  # a teammate message received
    PROMPT = "prompt"  # a person's prompt
    IDLE = "idle"  # the turn ended
    COMPACT = "compact"  # the context was compacted
    PROBLEM = "problem"  # an API error, or a line that could not be read


class TranscriptEntry(NamedTuple):
    ts: float | None
    kind: EntryKind
    text: str
    line: int | None = None
    error: bool = False

    def as_log_entry(self, member: str) -> LogEntry:
        """The entry as a log line, for a LogBuffer."""
        return LogEntry(member, self.ts, LogLevel.ERROR if self.error else LogLevel.INFO, self.text, self.line)


class Notice(NamedTuple):
    """A protocol message a teammate received (an idle notice, a permission request...)."""

    sender: str
    payload: dict[str, object]
    ts: float | None


class Receipt(NamedTuple):
    """A plain message a teammate received, as its transcript shows it: the proof it was delivered
    when its inbox entry was taken before anyone read the file."""

    sender: str
    body: str
    ts: float | None
    key: str  # the same receipt read again (a transcript re-read) has the same key


def parse_ts(value: object) -> float | None:
    """An ISO-8601 timestamp as epoch seconds; None when absent or unreadable."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def one_line(value: object, limit: int = MAX_TEXT) -> str:
    """The first non-blank line of `value`, inert and at most `limit` characters."""
    s = value if isinstance(value, str) else ("" if value is None else str(value))
    first = next((part.strip() for part in s.split("\n") if part.strip()), "")
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    return inert(first)


def tool_label(name: object, args: object) -> str:
    """`Bash: pytest -q`, `Edit: src/auth.py`, `TaskUpdate: #3 completed`: a call in one line."""
    tool = one_line(name, 60) or "tool"
    arg = _telling_arg(tool, args if isinstance(args, dict) else {})
    return f"{tool}: {arg}" if arg else tool


def _telling_arg(tool: str, args: dict[str, object]) -> str:
    if tool == "TaskUpdate":
        parts = [f"#{one_line(args.get('taskId'), 20)}" if args.get("taskId") is not None else ""]
        for key in ("status", "owner"):
            if isinstance(args.get(key), str) and args[key]:
                parts.append(one_line(args[key], 40) if key == "status" else f"→ {one_line(args[key], 40)}")
        return " ".join(p for p in parts if p)
    keys = TOOL_ARGS.get(tool, _FALLBACK_ARGS)
    for key in keys:
        value = args.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
            return one_line(value)
    return ""


def describe_payload(payload: dict[str, object]) -> str:
    """A protocol message in words: `idle (available): done`, `shutdown request: reason`."""
    kind = one_line(payload.get("type"), 40)
    if kind == "idle_notification":
        reason = one_line(payload.get("idleReason") or payload.get("idle_reason"), 40)
        extra = payload.get("summary") or payload.get("failureReason") or payload.get("result") or ""
        head = f"idle ({reason})" if reason else "idle"
        return f"{head}: {one_line(extra)}" if extra else head
    if kind == "task_assignment":
        return f"task #{one_line(payload.get('taskId'), 20)} assigned: {one_line(payload.get('subject'))}"
    if kind == "permission_request":
        tool = one_line(payload.get("tool_name"), 60)
        return f"asks permission for {tool}: {one_line(payload.get('description'))}".rstrip(": ")
    for key in ("reason", "description", "message", "feedback"):
        if isinstance(payload.get(key), str) and payload[key]:
            return f"{kind.replace('_', ' ')}: {one_line(payload[key])}"
    return kind.replace("_", " ")


def teammate_messages(text: str) -> list[tuple[str, str, bool]]:
    """Each `<teammate-message teammate_id=…>body</teammate-message>` in `text`: (sender, body,
    verified). Claude Code marks `verified="false"` a message that claims a name it cannot prove."""
    out = []
    for m in _TEAMMATE_MESSAGE.finditer(text):
        attrs = dict(_ATTR.findall(m.group(1)))
        out.append((attrs.get("teammate_id", ""), m.group(2).strip(), attrs.get("verified") != "false"))
    return out


_PAYLOAD = json.JSONDecoder()


def _as_payload(body: str) -> dict[str, object] | None:
    """The protocol message a body starts with. Claude Code follows some (a shutdown request)
    with instructions for the model, so text after the JSON object is allowed."""
    if not body.startswith("{"):
        return None
    try:
        data, _end = _PAYLOAD.raw_decode(body)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("type"), str) else None


def notices_in(rec: dict[str, object]) -> list[Notice]:
    """The protocol messages (idle notices, requests...) a user record delivers from teammates."""
    msg = rec.get("message")
    if rec.get("type") != "user" or not isinstance(msg, dict):
        return []
    content = msg.get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        texts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        texts = []
    ts = parse_ts(rec.get("timestamp"))
    out = []
    for text in texts:
        for sender, body, verified in teammate_messages(text) if "<teammate-message" in text else []:
            payload = _as_payload(body)
            if payload is not None and verified:  # a forged request or notice is shown, never acted on
                out.append(Notice(sender, payload, parse_ts(payload.get("timestamp")) or ts))
    return out


def receipts_in(rec: dict[str, object]) -> list[Receipt]:
    """The plain (not protocol) messages a user record delivers from teammates, each proven from
    whom: each was in the recipient's inbox."""
    msg = rec.get("message")
    if rec.get("type") != "user" or not isinstance(msg, dict):
        return []
    content = msg.get("content")
    texts = (
        [content]
        if isinstance(content, str)
        else [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if isinstance(content, list)
        else []
    )
    ts = parse_ts(rec.get("timestamp"))
    uuid = rec.get("uuid") if isinstance(rec.get("uuid"), str) else ""
    out = []
    for text in texts:
        for i, (sender, body, verified) in enumerate(teammate_messages(text) if "<teammate-message" in text else []):
            # A forged one (a name Claude Code could not prove) says nothing of who sent it: not a receipt.
            if sender and body and verified and _as_payload(body) is None:
                key = f"{uuid}#{i}" if uuid else f"{ts}|{sender}|{hash(body)}#{i}"
                out.append(Receipt(sender, body, ts, key))
    return out


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


class Renderer:
    """Turns transcript records (decoded lines) into entries. Keeps the little it must remember
    across lines: which tool a result answers, and the turn already marked idle."""

    def __init__(self) -> None:
        self._tools: OrderedDict[str, str] = OrderedDict()
        self._idle_for: str | None = None

    def render(self, rec: dict[str, object], line: int | None = None) -> list[TranscriptEntry]:
        kind = rec.get("type")
        ts = parse_ts(rec.get("timestamp"))
        if kind == "assistant":
            return self._assistant(rec, ts, line)
        if kind == "user":
            return self._user(rec, ts, line)
        if kind == "system":
            return self._system(rec, ts, line)
        return []

    def _assistant(self, rec: dict[str, object], ts: float | None, line: int | None) -> list[TranscriptEntry]:
        msg = rec.get("message")
        if not isinstance(msg, dict):
            return []
        out = []
        content = msg.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                text = one_line(block.get("text"))
                if text:
                    out.append(TranscriptEntry(ts, EntryKind.TEXT, text, line))
            elif block.get("type") == "tool_use":
                label = tool_label(block.get("name"), block.get("input"))
                if isinstance(block.get("id"), str):
                    self._remember_tool(block["id"], one_line(block.get("name"), 60) or "tool")
                out.append(TranscriptEntry(ts, EntryKind.TOOL, label, line))
        mid = msg.get("id") if isinstance(msg.get("id"), str) else None
        if msg.get("stop_reason") == "end_turn" and (mid is None or mid != self._idle_for):
            self._idle_for = mid
            out.append(TranscriptEntry(ts, EntryKind.IDLE, "idle", line))
        return out

    def _remember_tool(self, tool_id: str, name: str) -> None:
        self._tools[tool_id] = name
        if len(self._tools) > _TOOL_NAMES_KEPT:
            self._tools.popitem(last=False)

    def _user(self, rec: dict[str, object], ts: float | None, line: int | None) -> list[TranscriptEntry]:
        msg = rec.get("message")
        if not isinstance(msg, dict) or rec.get("isMeta"):
            return []
        if rec.get("isCompactSummary"):
            return [TranscriptEntry(ts, EntryKind.COMPACT, "context compacted: summary follows", line)]
        content = msg.get("content")
        if isinstance(content, str):
            return self._said(content, ts, line)
        out = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                out.append(self._result(block, rec.get("toolUseResult"), ts, line))
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                out.extend(self._said(block["text"], ts, line))
        return out

    def _result(self, block: dict[str, object], extra: object, ts: float | None, line: int | None) -> TranscriptEntry:
        tool_id = block.get("tool_use_id")
        name = self._tools.get(tool_id, "") if isinstance(tool_id, str) else ""
        failed = block.get("is_error") is True or (isinstance(extra, dict) and extra.get("success") is False)
        prefix = f"{name} " if name else ""
        if not failed:
            return TranscriptEntry(ts, EntryKind.RESULT, f"{prefix}ok", line)
        why = one_line(
            _result_text(block.get("content")).replace("<tool_use_error>", "").replace("</tool_use_error>", "")
        )
        return TranscriptEntry(ts, EntryKind.RESULT, f"{prefix}error: {why}" if why else f"{prefix}error", line, True)

    def _said(self, text: str, ts: float | None, line: int | None) -> list[TranscriptEntry]:
        if text.lstrip().startswith("<system-reminder>"):
            return []
        messages = teammate_messages(text) if "<teammate-message" in text else []
        if not messages:
            said = one_line(text)
            return [TranscriptEntry(ts, EntryKind.PROMPT, f"» {said}", line)] if said else []
        out = []
        for sender, body, verified in messages:
            who = (one_line(sender, 60) or "?") + ("" if verified else " (unverified)")
            payload = _as_payload(body)
            said = describe_payload(payload) if payload is not None else one_line(body)
            out.append(TranscriptEntry(ts, EntryKind.MESSAGE, f"← {who}: {said}", line))
        return out

    def _system(self, rec: dict[str, object], ts: float | None, line: int | None) -> list[TranscriptEntry]:
        sub = rec.get("subtype")
        if sub == "compact_boundary":
            raw_meta = rec.get("compactMetadata")
            meta: dict[str, object] = raw_meta if isinstance(raw_meta, dict) else {}
            trigger = one_line(meta.get("trigger"), 20)
            before = meta.get("preTokens")
            parts = [p for p in (trigger, f"{before:,} tokens before" if token_count(before) is not None else "") if p]
            return [
                TranscriptEntry(
                    ts, EntryKind.COMPACT, "context compacted" + (f" ({', '.join(parts)})" if parts else ""), line
                )
            ]
        if sub == "api_error":
            return [
                TranscriptEntry(
                    ts, EntryKind.PROBLEM, "API error: " + one_line(rec.get("content") or rec.get("error")), line, True
                )
            ]
        return []


def token_count(value: object) -> int | None:
    """A token count as the transcript gives it: a non-negative int, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
