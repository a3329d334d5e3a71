"""One event from Claude Code's hook, checked and made small: what the spool keeps of it.

Only known keys are kept, each of the type Claude Code sends and cut to a bound, so a huge or
hostile event costs the spool a few hundred bytes at most. Text stays text: whoever shows it
makes it inert (protocol/text.py); nothing here is ever run.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # not typing's: `teamtui hook` runs in Claude Code's loop
if TYPE_CHECKING:
    from typing import Any

# The most `teamtui hook` reads from stdin; a larger event is dropped (and counted).
MAX_EVENT_BYTES = 1 << 20
MAX_TEXT = 2000  # a message, a command, an edit's text
MAX_SHORT = 300  # ids, names, paths

# The events `teamtui hooks install` asks for: never a per-tool one (PreToolUse, PostToolUse).
INSTALLED_EVENTS = (
    "PermissionRequest",
    "Notification",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "SessionStart",
    "SessionEnd",
)

# Kept from every event: short strings.
_COMMON = ("session_id", "cwd", "transcript_path", "permission_mode", "agent_id", "agent_type", "prompt_id")
# Kept per event: key -> bound (short or long text).
_BY_EVENT: dict[str, dict[str, int]] = {
    "Notification": {"message": MAX_TEXT, "notification_type": MAX_SHORT},
    "TeammateIdle": {"teammate_name": MAX_SHORT, "team_name": MAX_SHORT},
    "TaskCreated": {
        "task_id": MAX_SHORT,
        "task_subject": MAX_TEXT,
        "teammate_name": MAX_SHORT,
        "team_name": MAX_SHORT,
    },
    "TaskCompleted": {
        "task_id": MAX_SHORT,
        "task_subject": MAX_TEXT,
        "teammate_name": MAX_SHORT,
        "team_name": MAX_SHORT,
    },
    "SubagentStart": {},
    "SubagentStop": {"agent_transcript_path": MAX_SHORT, "last_assistant_message": MAX_TEXT},
    "Stop": {"last_assistant_message": MAX_TEXT},
    "SessionStart": {"source": MAX_SHORT, "model": MAX_SHORT},
    "SessionEnd": {"reason": MAX_SHORT},
    "PermissionRequest": {"tool_name": MAX_SHORT},
}


class BadEvent(ValueError):
    """Why an event was dropped (one short line)."""


def cut(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _event_name(value: object) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= 40 or not value.isascii() or not value.isalpha():
        raise BadEvent("no hook_event_name")
    return value


def session_team(session_id: str) -> str:
    """The team Claude Code 2.1.178+ makes for a session: `session-<first 8 hex>` ('' for an odd id)."""
    head = session_id[:8]
    ok = len(head) == 8 and all(c in "0123456789abcdef" for c in head)
    return f"session-{head}" if ok else ""


def parse(data: bytes) -> dict[str, Any]:
    """The event Claude Code wrote on stdin, as a dict; BadEvent says why it cannot be one."""
    if len(data) > MAX_EVENT_BYTES:
        raise BadEvent(f"larger than {MAX_EVENT_BYTES} bytes")
    try:
        event = json.loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise BadEvent(f"not JSON ({type(exc).__name__})") from None
    if not isinstance(event, dict):
        raise BadEvent("not a JSON object")
    _event_name(event.get("hook_event_name"))
    sid = event.get("session_id")
    if not isinstance(sid, str) or not sid or len(sid) > MAX_SHORT:
        raise BadEvent("no session_id")
    return event


def _text(value: object, limit: int) -> str | None:
    return cut(value, limit) if isinstance(value, str) else None


def record_of(event: dict[str, Any], now: float, pid: int) -> dict[str, Any]:
    """What the spool keeps of `event` (already `parse`d): its name, when, the Claude Code
    process that ran the hook (`pid`, the hook's parent), and the known keys, bounded."""
    name = event["hook_event_name"]
    out: dict[str, object] = {"v": 1, "at": now, "event": name, "pid": pid}
    for key in _COMMON:
        if (v := _text(event.get(key), MAX_SHORT)) is not None:
            out[key] = v
    for key, limit in _BY_EVENT.get(name, {}).items():
        if (v := _text(event.get(key), limit)) is not None:
            out[key] = v
    tasks = event.get("background_tasks")
    if name == "Stop" and isinstance(tasks, list):
        out["background_tasks"] = [_background(t) for t in tasks[:20] if isinstance(t, dict)]
    if name == "PermissionRequest":
        out["tool"] = what_it_would_do(event.get("tool_name"), event.get("tool_input"))
    return out


def _background(task: dict[str, object]) -> dict[str, str]:
    return {k: cut(v, MAX_SHORT) for k in ("id", "type", "status", "description") if isinstance(v := task.get(k), str)}


# What each tool would do, by the keys of its input that tell it (the rest is summed up in `input`).
_TELLING = {
    "Bash": ("command", "description"),
    "Edit": ("file_path", "old_string", "new_string", "replace_all"),
    "MultiEdit": ("file_path",),
    "Write": ("file_path", "content"),
    "NotebookEdit": ("notebook_path", "new_source", "edit_mode"),
    "Read": ("file_path",),
    "Glob": ("pattern", "path"),
    "Grep": ("pattern", "path", "glob"),
    "WebFetch": ("url", "prompt"),
    "WebSearch": ("query",),
}


def what_it_would_do(tool: object, tool_input: object) -> dict[str, object]:
    """The tool and what it would do: the command, the file and the edit, the path; bounded.
    `input` is the whole input as JSON, cut (a tool teamtui does not know is shown by it)."""
    name = cut(tool, MAX_SHORT) if isinstance(tool, str) else ""
    out: dict[str, object] = {"name": name}
    args = tool_input if isinstance(tool_input, dict) else {}
    for key in _TELLING.get(name, ("command", "file_path", "path", "url", "pattern")):
        v = args.get(key)
        if isinstance(v, str):
            out[key] = cut(v, MAX_TEXT)
        elif isinstance(v, bool):
            out[key] = v
    edits = args.get("edits")
    if name == "MultiEdit" and isinstance(edits, list):
        out["edits"] = [
            {k: cut(e[k], MAX_TEXT) for k in ("old_string", "new_string") if isinstance(e.get(k), str)}
            for e in edits[:10]
            if isinstance(e, dict)
        ]
    try:
        out["input"] = cut(json.dumps(tool_input, ensure_ascii=False, default=str), MAX_TEXT)
    except (ValueError, RecursionError):
        out["input"] = ""
    return out


def summary(tool: dict[str, object]) -> str:
    """One line: `Bash: make test`, `Edit app.py`, `Read /etc/hosts`, or the tool's input."""
    name = tool.get("name") or "a tool"
    for key in ("command", "file_path", "notebook_path", "path", "url", "pattern", "query"):
        v = tool.get(key)
        if isinstance(v, str) and v:
            return f"{name}: {v}" if key == "command" else f"{name} {v}"
    return f"{name} {tool.get('input') or ''}".rstrip()
