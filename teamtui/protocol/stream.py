"""The stream protocol: a fleet's state, then its changes, as JSON lines over a pipe.

`teamtui stream` (cli/stream_cmd.py) writes it on a remote machine; session/remote.py reads it
over the user's own ssh. The records are the ones TeamState holds (config and members, tasks,
messages, log entries, read errors, member views) and the fleet's row (`row_json`): no model of
its own. Both sides read what the other wrote as untrusted input: every line is size-capped,
every value type-checked, every string capped and stripped of what a terminal acts on, unknown
keys and unknown line types dropped.

Lines from the stream (one JSON object each, `type` first):

    hello      {protocol, teamtui, host, time}           first, once
    problem    {text}                                      a problem of the remote's (a bad setting)
    team       {team, full, row, live, read_only, ended_at, layout, appends_to_inboxes,
                shutdown_via_lead, sender, lead_state, config, departed, views, errors, errors_total}
               a team's header; `full`: the tasks, messages and logs that follow replace those known
    tasks      {team, tasks, removed}
    messages   {team, messages, update}                    update: replaces the same messages (read, delivered)
    logs       {team, member, entries, reset}              entries: [ts, level, text, line]
    views      {team, views, row}                          members' status, unread, last activity; the row
    insight    {team, members, lead, needs, tokens, cost, drift, assigned, changes}
               what the team's transcripts tell (a Claude Code team's): each member's activity,
               tokens and cost, the lead's row, what needs the person, the team's cost (priced on
               that machine: protocol/cost.py cost_json), the drift line, the lead's assignments,
               the files each member changed (counts per file; the diffs stay there, asked by
               `diff`): the insight's `changes` and the `diff` line are stream_edits.py's
    gone       {team}                                      no longer listed
    ready      {teams}                                     the first snapshot is complete
    heartbeat  {time}                                      every few seconds, whatever happens
    result     {id, ok, error, detail}                     the answer to a request
    progress   {id, team, run, changed, error, asked, offer_panes, offer_title, offer_why}
               a shutdown asked for by a request, as it goes
    diff       {id, team, member, path, edits, left_out}
               the answer to a `diff` request (before its result line): that member's edits to
               that file, oldest first, each {tool, at, added, removed, note, cut, dropped, created,
               hunks: [[old_start, old_lines, new_start, new_lines, [lines]]]}, bounded to one line
    hits       {id, hits, more}
               the answer to a `search` request (before its result line): that machine's history
               searched, newest first, each {team, host, layout, root, at, kind, who, ref,
               segments: [[text, matched]]}, bounded to one line (stream_history.py)
    timeline   {id, team, history, left_out}
               the answer to a `timeline` request (before its result line): that team's history as
               that machine's database holds it, what its timeline draws only (lanes, when each
               wrote, joins and departures, task changes, messages, needs), the oldest left out
               past one line's budget and counted in `left_out` (stream_timeline.py)
    hooks      {items}                                     what needs the person there that its hooks
               say: the open permission requests, the sessions waiting for a person (stream_hooks.py)

`team` is the remote's key of the team: [layout, root, name]. Requests, to the stream's stdin:
{"id", "op", "team", ...}; each op (its fields, the lines that answer it) is declared once, in its
module of session/ops/ (send, broadcast, shutdown, close_panes, diff, search, timeline, answer,
ping). Ops and line types are only ever added within a protocol number: an op the other side does not know is
answered `unknown op` (an older teamtui there), a line type this side does not know is dropped.
"""

from __future__ import annotations

import json
import math

from teamtui.protocol.cost import cost_json, read_cost
from teamtui.protocol.errors import ReadError
from teamtui.protocol.models import (
    LogEntry,
    LogLevel,
    Member,
    Message,
    Task,
    TeamConfig,
    decode_payload,
    normalize_level,
)
from teamtui.protocol.text import scrubbed
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from teamtui.protocol.changes import MemberView

PROTOCOL = 1
MAX_LINE = 1 << 20  # bytes of one line, either way
MAX_REQUEST = 256 * 1024  # bytes of one request line (a message's text is the big part)
TEXT_CAP = 32 * 1024  # characters of a long text: a message, a task's description, a log line
NAME_CAP = 512  # characters of a short string: a name, a status, a path
ERRORS_CAP = 200  # read errors sent per team (and the total)
MESSAGES_CAP = 2000
TASKS_CAP = 20000
MEMBERS_CAP = 1000
# The stream's own line kinds; the lines answering a request are its op's (session/ops/).
STATE_LINES = frozenset({"team", "tasks", "messages", "logs", "views", "insight", "gone"})  # a team's state
HOST_LINES = frozenset({"hello", "problem", "ready", "heartbeat"})  # the host's own (its state, its beat)
STREAM_LINES = STATE_LINES | HOST_LINES | {"hooks", "result"}
NEEDS_CAP = 200  # needs-you items per team
ASSIGNED_BUDGET = MAX_LINE // 2  # bytes of the lead's assignments in one insight line (the rest left out)


# ------------------------------------------------------------------ values, checked


def text(v: Any, cap: int = TEXT_CAP) -> str | None:
    """A string from the stream, capped, with what a terminal acts on replaced; None if not a string."""
    if not isinstance(v, str):
        return None
    return scrubbed(v[:cap], newlines=True)  # protocol/text.py's set: escapes, C1, bidi controls


def name(v: Any, cap: int = NAME_CAP) -> str | None:
    """A one-line string (a name, a status): no newlines either."""
    if not isinstance(v, str):
        return None
    return scrubbed(v[:cap])  # protocol/text.py's set, the newline too


def number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) and abs(f) < 1e15 else None


def whole(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and -(2**53) < v < 2**53 else None


def flag(v: Any) -> bool:
    return v is True


def plain(v: Any, depth: int = 0) -> Any:
    """An untyped value (a task's metadata, a payload) kept to JSON's types, bounded in depth and size."""
    if depth > 6:
        return None
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v if isinstance(v, int) and whole(v) is not None else number(v)
    if isinstance(v, str):
        return text(v)
    if isinstance(v, (list, tuple)):
        return [plain(x, depth + 1) for x in v[:200]]
    if isinstance(v, dict):
        out = {}
        for k, x in list(v.items())[:100]:
            if isinstance(k, str):
                out[name(k, 128)] = plain(x, depth + 1)
        return out
    return None


def team_key(v: Any) -> tuple[str, str, str] | None:
    """The remote's key of a team: [layout, root, name], each a string without NUL."""
    if not isinstance(v, list) or len(v) != 3:
        return None
    layout, root, team = (name(x, 4096) for x in v)
    if layout is None or root is None or not team:
        return None
    return (layout, root, team)


# ------------------------------------------------------------------ lines


def dumps(obj: dict[str, Any]) -> bytes:
    """One line: ASCII only (a lone surrogate read from a file stays an escape), no NaN."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


def parse(line: bytes | str, kinds: frozenset[str], cap: int = MAX_LINE) -> dict[str, Any] | None:
    """One line as an object of a known type; None for anything else (garbage is dropped, never raised)."""
    if len(line) > cap:
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, an integer of 5,000 digits, [[[[...]]]]
        return None
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    return obj if isinstance(kind, str) and kind in kinds else None


def parse_request(line: bytes | str) -> dict[str, Any] | None:
    """One request line as an object (its `op` and fields are checked by whoever carries it out)."""
    if len(line) > MAX_REQUEST:
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


class LineSplitter:
    """Bytes from a pipe into lines of at most `cap` bytes; a longer one is dropped whole (and counted)."""

    def __init__(self, cap: int = MAX_LINE):
        self.cap = cap
        self.dropped = 0
        self._buf = bytearray()
        self._skipping = False  # inside a line already too long: up to its newline is dropped

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        start = 0
        while (nl := data.find(b"\n", start)) >= 0:
            piece = data[start:nl]
            if self._skipping:
                self._skipping = False
                self.dropped += 1
            elif len(self._buf) + len(piece) > self.cap:
                self.dropped += 1
            else:
                out.append(bytes(self._buf + piece) if self._buf else piece)
            self._buf.clear()
            start = nl + 1
        rest = data[start:]
        if not self._skipping and rest:
            if len(self._buf) + len(rest) > self.cap:
                self._buf.clear()
                self._skipping = True
            else:
                self._buf += rest
        return out


# ------------------------------------------------------------------ records, written


def _float(v: Any) -> float | None:
    return (
        v
        if isinstance(v, float) and math.isfinite(v)
        else float(v)
        if isinstance(v, int) and not isinstance(v, bool)
        else None
    )


def member_json(m: Member) -> dict[str, Any]:
    return {
        "name": m.name[:NAME_CAP],
        "agent_id": m.agent_id[:NAME_CAP],
        "status": m.status.value,
        "agent_type": m.agent_type[:NAME_CAP],
        "color": m.color[:NAME_CAP],
        "model": m.model[:NAME_CAP],
        "pid": m.pid if whole(m.pid) is not None else None,
        "command": m.command[:TEXT_CAP],
        "tmux_pane_id": m.tmux_pane_id[:NAME_CAP],
        "backend_type": m.backend_type[:NAME_CAP],
        "joined_at": _float(m.joined_at),
        "last_seen": _float(m.last_seen),
    }


def config_json(cfg: TeamConfig) -> dict[str, Any]:
    return {
        "name": cfg.name[:NAME_CAP],
        "description": cfg.description[:TEXT_CAP],
        "created_at": _float(cfg.created_at),
        "lead": cfg.lead[:NAME_CAP],
        "members": [member_json(m) for m in cfg.members[:MEMBERS_CAP]],
    }


def task_json(t: Task) -> dict[str, Any]:
    return {
        "id": t.id[:NAME_CAP],
        "subject": t.subject[:TEXT_CAP],
        "description": t.description[:TEXT_CAP],
        "status": t.status.value,
        "active_form": t.active_form[:NAME_CAP],
        "owner": t.owner[:NAME_CAP],
        "blocks": [b[:NAME_CAP] for b in t.blocks[:200]],
        "blocked_by": [b[:NAME_CAP] for b in t.blocked_by[:200]],
        "files": [f[:NAME_CAP] for f in t.files[:200]],
        "metadata": plain(t.metadata),
        "created_at": _float(t.created_at),
        "claimed_at": _float(t.claimed_at),
        "completed_at": _float(t.completed_at),
        "result": t.result[:TEXT_CAP] if t.result is not None else None,
    }


def message_json(m: Message) -> dict[str, Any]:
    return {
        "type": m.type[:NAME_CAP],
        "sender": m.sender[:NAME_CAP],
        "recipient": m.recipient[:NAME_CAP],
        "content": m.content[:TEXT_CAP],
        "timestamp": _float(m.timestamp) or 0.0,
        "read": m.read,
        "delivered": m.delivered,
        "summary": m.summary[:TEXT_CAP],
        "color": m.color[:NAME_CAP],
        "payload": plain(m.payload.model_dump(mode="json")) if m.payload is not None else None,
    }


def log_json(e: LogEntry) -> list[Any]:
    return [_float(e.ts), e.level.value, e.text[:TEXT_CAP], e.line if whole(e.line) is not None else None]


def error_json(e: ReadError) -> list[Any]:
    return [str(e.path)[:4096], e.reason[:TEXT_CAP], e.line if whole(e.line) is not None else None]


def view_json(v: MemberView) -> dict[str, Any]:
    return {
        "name": v.name[:NAME_CAP],
        "status": v.status.value,
        "unread": v.unread,
        "last_activity": _float(v.last_activity),
    }


def insight_json(feed: Any, state: Any, now: float) -> dict[str, Any] | None:
    """What a team's transcript feed (protocol/claude/transcripts' TranscriptFeed) tells, as one
    record; None while it has read nothing (or the team has no transcripts)."""
    if feed is None or not feed.started:
        return None
    members: dict[str, Any] = {}
    for m in feed.members()[:MEMBERS_CAP]:
        st = feed.stats(m)
        if st is None:
            continue
        a = st.activity
        members[m[:NAME_CAP]] = {
            "activity": [a.kind[:NAME_CAP], _float(a.ts), a.text[:TEXT_CAP]] if a is not None else None,
            "tokens": st.tokens.total if whole(st.tokens.total) is not None else None,
            "context_share": _float(st.context_share),
            "last_write": _float(st.last_write),
            "counted": st.counted,
            "cost": cost_json(feed.member_cost(m)),
        }
    lead = feed.lead_view()
    needs = [
        {
            "kind": n.kind[:NAME_CAP],
            "member": n.member[:NAME_CAP],
            "key": n.key[:NAME_CAP],
            "text": n.text[:TEXT_CAP],
            "since": _float(n.since),
            "detail": n.detail[:TEXT_CAP],
        }
        for n in feed.needs_you(now)[:NEEDS_CAP]
    ]
    assigned = (
        next(chunks((task_json(t) for t in state.assigned.values()), ASSIGNED_BUDGET), []) if not state.tasks else []
    )
    total = feed.total_tokens()
    return {
        "members": members,
        "lead": view_json(lead) if lead is not None else None,
        "needs": needs,
        "tokens": total if whole(total) is not None else None,
        "cost": cost_json(feed.cost()),
        "drift": feed.drift().summary()[:TEXT_CAP],
        "assigned": assigned,
    }


def chunks(items: Iterable[Any], budget: int = MAX_LINE - 4096) -> Iterator[list[Any]]:
    """`items` in lists whose JSON fits one line each (an item too big for any line is left out)."""
    batch: list[Any] = []
    size = 0
    for item in items:
        n = len(json.dumps(item, ensure_ascii=True, separators=(",", ":"), allow_nan=False)) + 1
        if n > budget:
            continue
        if size + n > budget and batch:
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += n
    if batch:
        yield batch


# ------------------------------------------------------------------ records, read back


def _pick(d: Any, keys: dict[str, Any]) -> dict[str, Any] | None:
    """The known keys of `d`, each through its check; None when `d` is no object."""
    if not isinstance(d, dict):
        return None
    out = {}
    for key, check in keys.items():
        if key in d:
            value = check(d[key])
            if value is not None:
                out[key] = value
    return out


def _names(v: Any) -> list[str] | None:
    return [n for x in v[:200] if (n := name(x)) is not None] if isinstance(v, list) else None


def _opt_bool(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


_MEMBER_KEYS: dict[str, Any] = {
    "name": name,
    "agent_id": name,
    "status": name,
    "agent_type": name,
    "color": name,
    "model": name,
    "pid": whole,
    "command": text,
    "tmux_pane_id": name,
    "backend_type": name,
    "joined_at": number,
    "last_seen": number,
}
_TASK_KEYS: dict[str, Any] = {
    "id": name,
    "subject": text,
    "description": text,
    "status": name,
    "active_form": name,
    "owner": name,
    "blocks": _names,
    "blocked_by": _names,
    "files": _names,
    "metadata": lambda v: plain(v) if isinstance(v, dict) else None,
    "created_at": number,
    "claimed_at": number,
    "completed_at": number,
    "result": text,
}
_MESSAGE_KEYS: dict[str, Any] = {
    "type": name,
    "sender": name,
    "recipient": name,
    "content": text,
    "timestamp": number,
    "read": _opt_bool,
    "delivered": _opt_bool,
    "summary": text,
    "color": name,
}


def read_member(d: Any) -> Member | None:
    fields = _pick(d, _MEMBER_KEYS)
    if not fields or not fields.get("name"):
        return None
    if fields.get("status") not in ("working", "idle", "shutdown", "unknown"):
        fields["status"] = "unknown"
    try:
        return Member.model_validate(fields)
    except ValidationError:
        return None


def read_config(d: Any) -> TeamConfig | None:
    fields = _pick(d, {"name": name, "description": text, "created_at": number, "lead": name})
    if not fields or not fields.get("name") or not isinstance(d.get("members", []), list):
        return None
    try:
        cfg = TeamConfig.model_validate(fields)
    except ValidationError:
        return None
    cfg.members = [m for x in d.get("members", [])[:MEMBERS_CAP] if (m := read_member(x)) is not None]
    return cfg


def read_task(d: Any) -> Task | None:
    fields = _pick(d, _TASK_KEYS)
    if not fields or not fields.get("id"):
        return None
    if fields.get("status") not in ("pending", "in_progress", "completed"):
        fields["status"] = "pending"
    try:
        return Task.model_validate(fields)
    except ValidationError:
        return None


def read_message(d: Any) -> Message | None:
    fields = _pick(d, _MESSAGE_KEYS)
    if fields is None:
        return None
    try:
        msg = Message.model_validate(fields)
    except ValidationError:
        return None
    payload = plain(d.get("payload")) if isinstance(d.get("payload"), dict) else None
    if payload is not None:
        try:
            msg.payload = decode_payload(payload)
        except (ValidationError, ValueError):
            msg.payload = None
    return msg


_LEVELS = {lv.value for lv in LogLevel}


def read_log(member: str, v: Any) -> LogEntry | None:
    if not isinstance(v, list) or len(v) != 4:
        return None
    body = text(v[2])
    if body is None:
        return None
    level = v[1] if isinstance(v[1], str) and v[1] in _LEVELS else "info"
    return LogEntry(member, number(v[0]), normalize_level(level), body, whole(v[3]))


def read_error(v: Any) -> ReadError | None:
    from pathlib import PurePosixPath

    if not isinstance(v, list) or len(v) != 3:
        return None
    path, reason = name(v[0], 4096), text(v[1], NAME_CAP * 4)
    if path is None or reason is None:
        return None
    return ReadError(PurePosixPath(path), reason, whole(v[2]))  # type: ignore[arg-type]


def read_view(d: Any) -> dict[str, Any] | None:
    """A member's view as the remote sees it: name, status, unread, last_activity (checked)."""
    fields = _pick(d, {"name": name, "status": name, "unread": whole, "last_activity": number})
    if not fields or not fields.get("name"):
        return None
    if fields.get("status") not in ("working", "idle", "shutdown", "unknown"):
        fields.pop("status", None)
    fields["unread"] = max(0, min(int(fields.get("unread", 0)), 10**6))
    return fields


_ROW_KEYS: dict[str, Any] = {
    "team": name,
    "folder": name,
    "root": lambda v: name(v, 4096),
    "layout": name,
    "source": name,
    "label": name,
    "lead": name,
    "ended": _opt_bool,
    "ended_at": number,
    "needs_you": whole,
    "tokens": whole,
    "last_activity": number,
    "cwd": lambda v: name(v, 4096),
    "errors": whole,
    "problem": name,
    "run_status": name,
    "cost": read_cost,
    "files": lambda v: n if (n := whole(v)) is not None and n >= 0 else None,
}


def read_row(d: Any) -> dict[str, Any] | None:
    """A row as `row_json` wrote it, every value checked (members and tasks as counts)."""
    fields = _pick(d, _ROW_KEYS)
    if fields is None:
        return None
    for group, keys in (("members", ("working", "idle", "gone", "unknown")), ("tasks", ("done", "total"))):
        sub = d.get(group)
        for k in keys:
            v = whole(sub.get(k)) if isinstance(sub, dict) else None
            fields[f"{group}_{k}"] = max(0, v) if v is not None else 0
    return fields


_USAGE_KEYS: dict[str, Any] = {
    "tokens": whole,
    "context_share": number,
    "last_write": number,
    "counted": _opt_bool,
    "cost": read_cost,
}
_NEED_KEYS: dict[str, Any] = {"kind": name, "member": name, "key": name, "text": text, "since": number, "detail": text}
NEED_KINDS = frozenset({"permission", "plan", "interrupted", "failed", "silent", "collision"})


def _items(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def read_insight(d: dict[str, Any]) -> dict[str, Any]:
    """An insight line's parts, each checked: members (name -> usage, activity as [kind, ts, text]
    or None), lead (a view or None), needs (of the known kinds), tokens, cost, drift, assigned (Tasks)."""
    members: dict[str, dict[str, Any]] = {}
    raw = d.get("members")
    for key, v in list(raw.items())[:MEMBERS_CAP] if isinstance(raw, dict) else []:
        member = name(key)
        usage = _pick(v, _USAGE_KEYS)
        if not member or usage is None:
            continue
        a = v.get("activity")
        if isinstance(a, list) and len(a) == 3 and (kind := name(a[0], 32)):
            usage["activity"] = (kind, number(a[1]), text(a[2], NAME_CAP * 2) or "")
        if usage.get("tokens") is not None and usage["tokens"] < 0:
            usage.pop("tokens")
        if usage.get("context_share") is not None and not 0 <= usage["context_share"] <= 1:
            usage.pop("context_share")
        members[member] = usage
    lead = read_view(d.get("lead")) if isinstance(d.get("lead"), dict) else None
    needs = []
    for x in _items(d.get("needs"))[:NEEDS_CAP]:
        need = _pick(x, _NEED_KEYS)
        if need and need.get("kind") in NEED_KINDS and need.get("key") and need.get("text") is not None:
            needs.append(need)
    tokens = whole(d.get("tokens"))
    drift = name(d.get("drift"), NAME_CAP * 2)
    assigned = [t for x in _items(d.get("assigned"))[:TASKS_CAP] if (t := read_task(x)) is not None]
    return {
        "members": members,
        "lead": lead,
        "needs": needs,
        "tokens": tokens if tokens is None or tokens >= 0 else None,
        "cost": read_cost(d.get("cost")),
        "drift": drift or "",
        "assigned": assigned,
    }
