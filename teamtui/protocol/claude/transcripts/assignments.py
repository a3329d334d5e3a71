"""The work a Claude Code lead handed out, when the team keeps no task list.

Current models give Claude Code's lead no TaskCreate/TaskList tools: `tasks/<list>/` stays empty,
yet the work is all there in what the lead asked and what its teammates answered:

- each `Agent` call in the lead's transcript (an assistant line's `tool_use` block, `name`
  "Agent", or "Task" in older releases) whose input names a teammate (`name`): its `description`
  is the assignment's subject, its `prompt` the assignment itself, `name` the owner;
- a later plain `SendMessage` call of the lead (`to` or `recipient`, `message` as a string,
  `summary`) to a teammate with nothing in progress, and a plain message from the lead seen in a
  teammate's inbox: new work (the same words as an earlier assignment are that assignment);
- a `task_assignment` from the lead (`taskId`, `subject`, `description`), in a teammate's inbox or
  its transcript;
- the end: the owner's `idle_notification` (its `result`, else `summary`): done, or failed when it
  says `failed`/`interrupted` or carries a `failureReason`; the tool's error for a call that did
  not go through; `teammate_terminated` (from "system": "bob has shut down.") or the teammate
  leaving the team's `members` while the work was open: failed.

`AssignmentLog` keeps those events (bounded, each text cut to PROMPT_KEPT) as the transcript feed
reads them; `derive` folds them, in time order, into `Task`s with ids `a1`, `a2`… (stable for the
log's life), statuses in_progress / completed, and `metadata["failed"]` saying why one failed (the
board shows it as failed). Pure: no file is read here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from teamtui.protocol.claude.transcripts.render import Notice, one_line, parse_ts
from teamtui.protocol.models import Message, Task, TaskStatus
from teamtui.protocol.taskmeta import FAILED

# The longest prompt, message or result kept (characters): the detail view shows no more.
PROMPT_KEPT = 4000
# Events remembered per team (the oldest are forgotten first).
EVENTS_KEPT = 2000
# The tools whose calls hand out work (older releases called the Agent tool "Task").
SPAWN_TOOLS = frozenset({"Agent", "Task"})
MESSAGE_TOOLS = frozenset({"SendMessage"})
# Bytes that mark a transcript line holding such a call: the reader decodes only those.
CALL_MARKS = (b'"name":"Agent"', b'"name":"Task"', b'"name":"SendMessage"')
# The metadata key saying where an assignment came from.
SOURCE = "assigned_by"


class Call(NamedTuple):
    """A tool call of the lead that hands out work, or the error that answered one."""

    ts: float | None
    kind: str  # "spawn" (Agent), "message" (SendMessage), "refused" (the call's error)
    key: str  # the tool_use id
    to: str = ""
    subject: str = ""
    text: str = ""


def _kept(value: object) -> str:
    s = value if isinstance(value, str) else ""
    return s if len(s) <= PROMPT_KEPT else s[: PROMPT_KEPT - 1] + "…"


def calls_in(rec: Mapping[str, object]) -> list[Call]:
    """The work-handing calls of an assistant record: Agent calls naming a teammate, plain SendMessages."""
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if rec.get("type") != "assistant" or not isinstance(content, list):
        return []
    ts = parse_ts(rec.get("timestamp"))
    out = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_use" or not isinstance(block.get("id"), str):
            continue
        name, args = block.get("name"), block.get("input")
        if not isinstance(args, dict):
            continue
        if name in SPAWN_TOOLS:
            owner = args.get("name")
            if isinstance(owner, str) and owner.strip():
                prompt = _kept(args.get("prompt"))
                subject = one_line(args.get("description")) or one_line(prompt) or one_line(owner)
                out.append(Call(ts, "spawn", block["id"], owner, subject, prompt))
        elif name in MESSAGE_TOOLS:
            to = args.get("to") if isinstance(args.get("to"), str) else args.get("recipient")
            text = args.get("message") if "message" in args else args.get("content")
            if isinstance(to, str) and to and to != "*" and isinstance(text, str) and text.strip():
                out.append(
                    Call(ts, "message", block["id"], to, one_line(args.get("summary")) or one_line(text), _kept(text))
                )
    return out


def refusals_in(rec: Mapping[str, object], ids: Mapping[str, object]) -> list[Call]:
    """The errors a user record returns to calls in `ids` (a tool error, or `success: false`)."""
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if rec.get("type") != "user" or not isinstance(content, list):
        return []
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    extra = rec.get("toolUseResult")
    unsuccessful = len(results) == 1 and isinstance(extra, dict) and extra.get("success") is False
    out = []
    for block in results:
        tool_id = block.get("tool_use_id")
        if isinstance(tool_id, str) and tool_id in ids and (block.get("is_error") is True or unsuccessful):
            why = block.get("content")
            if isinstance(why, list):
                why = " ".join(b.get("text", "") for b in why if isinstance(b, dict) and isinstance(b.get("text"), str))
            if unsuccessful and isinstance(extra, dict) and isinstance(extra.get("message"), str):
                why = extra["message"]
            text = one_line(str(why or "").replace("<tool_use_error>", "").replace("</tool_use_error>", "")) or "error"
            out.append(Call(parse_ts(rec.get("timestamp")), "refused", tool_id, text=text))
    return out


class _Event(NamedTuple):
    ts: float
    seq: int
    kind: str  # spawn, message, task, refused, idle, terminated
    key: str
    owner: str = ""
    subject: str = ""
    text: str = ""
    why: str = ""  # idle: its failure, "" when it ended well


class _Work:
    __slots__ = ("key", "owner", "subject", "text", "ts", "source", "status", "result", "failed", "ended")

    def __init__(self, e: _Event, source: str):
        self.key, self.owner, self.subject, self.text, self.ts = e.key, e.owner, e.subject, e.text, e.ts
        self.source = source
        self.status = TaskStatus.IN_PROGRESS
        self.result: str | None = None
        self.failed = ""
        self.ended: float | None = None

    def end(self, ts: float | None, result: str | None = None, failed: str = "") -> None:
        self.status = TaskStatus.PENDING if failed else TaskStatus.COMPLETED
        self.result, self.failed, self.ended = result, failed, ts


def _text_key(owner: str, text: str) -> tuple[str, str]:
    return owner, " ".join(text.split())[:400]


def _idle_event(seq: int, n: Notice) -> _Event | None:
    p = n.payload
    sender = p.get("from")
    owner = sender if isinstance(sender, str) and sender else n.sender
    reason = p.get("idleReason") or p.get("idle_reason")
    failure = p.get("failureReason") or p.get("failure_reason")
    why = ""
    if isinstance(failure, str) and failure.strip():
        why = one_line(failure)
    elif reason in ("failed", "interrupted") or p.get("completedStatus") == "failed":
        why = str(reason if reason in ("failed", "interrupted") else "failed")
    result = p.get("result") if isinstance(p.get("result"), str) else p.get("summary")
    return _Event(n.ts or 0.0, seq, "idle", "", owner, text=_kept(result), why=why)


class AssignmentLog:
    """What the feed read that tells the lead's assignments: calls and notices, in arrival order,
    deduplicated, at most EVENTS_KEPT. `generation` moves on with each new one."""

    def __init__(self, limit: int = EVENTS_KEPT):
        self.limit = limit
        self._events: OrderedDict[tuple, _Event] = OrderedDict()
        self._seq = 0
        self.generation = 0
        # Each assignment's id, given once in the order they were first derived: a1, a2…
        self._ids: dict[str, str] = {}

    def _add(self, dedupe: tuple, kind: str, ts: float | None, **kw: Any) -> None:
        if dedupe in self._events:
            return
        self._seq += 1
        self._events[dedupe] = _Event(ts or 0.0, self._seq, kind, **kw)
        self.generation += 1
        while len(self._events) > self.limit:
            self._events.popitem(last=False)

    def add_calls(self, calls: Iterable[Call]) -> None:
        """The lead's work-handing calls and their errors (only the lead's transcript gives these)."""
        for c in calls:
            if c.kind == "refused":
                self._add(("refused", c.key), "refused", c.ts, key=c.key, why=c.text)
            else:
                self._add(("call", c.key), c.kind, c.ts, key=c.key, owner=c.to, subject=c.subject, text=c.text)

    def add_notices(self, member: str, notices: Iterable[Notice], lead: str) -> None:
        """Protocol messages found in `member`'s transcript: the idle notices and terminations the
        lead received, the task assignments `member` received from the lead."""
        for n in notices:
            kind = n.payload.get("type")
            if kind == "idle_notification":
                e = _idle_event(0, n)
                if e is not None:
                    self._add(
                        ("idle", e.owner, n.ts, e.text[:80]),
                        "idle",
                        n.ts,
                        key="",
                        owner=e.owner,
                        text=e.text,
                        why=e.why,
                    )
            elif kind == "teammate_terminated":
                said = n.payload.get("message")
                self._add(
                    ("terminated", n.ts, str(said)),
                    "terminated",
                    n.ts,
                    key="",
                    text=said if isinstance(said, str) else "",
                )
            elif kind == "task_assignment" and n.sender == lead and member != lead:
                self._task(member, n.payload, n.ts)

    def add_messages(self, messages: Iterable[Message], lead: str) -> None:
        """Inbox messages seen: the lead's plain words or task assignment to a teammate, a
        teammate's idle notice or a termination to the lead (others say nothing of the work)."""
        for m in messages:
            if m.sender != lead and m.recipient != lead:
                continue
            e = _inbox_event(m, lead)
            if e is not None:
                if e.kind == "idle":
                    dedupe: tuple = ("idle", e.owner, m.timestamp, e.text[:80])
                else:
                    dedupe = ("inbox", e.kind, m.sender, m.recipient, m.timestamp, m.content[:200])
                self._add(
                    dedupe, e.kind, m.timestamp, key=e.key, owner=e.owner, subject=e.subject, text=e.text, why=e.why
                )

    def _task(self, owner: str, p: Mapping[str, object], ts: float | None) -> None:
        tid = p.get("taskId", p.get("task_id"))
        key = f"task:{owner}:{tid}"
        description = _kept(p.get("description"))
        subject = one_line(p.get("subject")) or one_line(description) or f"task {one_line(tid, 20)}"
        self._add(("task", owner, str(tid)), "task", ts, key=key, owner=owner, subject=subject, text=description)

    # ------------------------------------------------------------------ the fold
    def derive(
        self, *, lead: str, members: Iterable[str] | None = None, departed: Iterable[str] = ()
    ) -> dict[str, Task]:
        """The assignments, by id, as `Task`s: the log's events folded in time order. `members`:
        the team's teammates (None: anyone), who alone get work by message (an Agent call makes
        its teammate); `departed`: those that left the team."""
        team = None if members is None else set(members)
        events = sorted(self._events.values(), key=lambda e: (e.ts, e.seq))
        works: dict[str, _Work] = {}
        open_: dict[str, list[_Work]] = {}
        said: set[tuple[str, str]] = set()
        for e in events:
            if e.kind in ("spawn", "message", "task"):
                if not e.owner or e.owner == lead or e.key in works:
                    continue
                words = _text_key(e.owner, e.text)
                if e.kind != "spawn" and team is not None and e.owner not in team:
                    continue  # a message to someone outside the team (another session, a dashboard)
                if e.kind == "message" and (words in said or open_.get(e.owner)):
                    continue  # the words of an earlier assignment, or more about the work in progress
                if e.kind == "spawn" and team is not None:
                    team.add(e.owner)
                said.add(words)
                w = works[e.key] = _Work(
                    e, "Agent" if e.kind == "spawn" else "message" if e.kind == "message" else "task_assignment"
                )
                open_.setdefault(e.owner, []).append(w)
            elif e.kind == "refused":
                refused = works.get(e.key)
                if refused is not None and refused.status == TaskStatus.IN_PROGRESS:
                    refused.end(e.ts, failed=f"not delivered: {e.why}")
                    open_[refused.owner].remove(refused)
            elif e.kind == "idle":
                for w in open_.pop(e.owner, []):
                    w.end(e.ts, e.text or None, e.why)
            elif e.kind == "terminated":
                for owner in [o for o in open_ if e.text.startswith(o + " ")]:
                    for w in open_.pop(owner):
                        w.end(e.ts, failed="terminated before it reported a result")
        for owner in departed:
            for w in open_.pop(owner, []):
                w.end(None, failed="left the team before it reported a result")
        out: dict[str, Task] = {}
        for w in works.values():
            aid = self._ids.get(w.key)
            if aid is None:
                aid = self._ids[w.key] = f"a{len(self._ids) + 1}"
            meta: dict[str, object] = {SOURCE: w.source}
            if w.failed:
                meta[FAILED] = w.failed
            out[aid] = Task(
                id=aid,
                subject=w.subject,
                description=w.text,
                status=w.status,
                owner=w.owner,
                metadata=meta,
                created_at=w.ts or None,
                claimed_at=w.ts or None,
                completed_at=w.ended if w.status == TaskStatus.COMPLETED else None,
                result=w.result,
            )
        return out


def _inbox_event(m: Message, lead: str) -> _Event | None:
    """An inbox message as an event (its seq is given when it is added)."""
    payload = m.payload
    if payload is None:
        if m.sender == lead and m.recipient and m.recipient != lead and m.type == "message" and m.content.strip():
            text = _kept(m.content)
            return _Event(
                m.timestamp,
                0,
                "message",
                f"inbox:{m.recipient}:{m.timestamp}",
                m.recipient,
                one_line(m.summary) or one_line(text),
                text,
            )
        return None
    data = {**payload.model_extra, **{k: getattr(payload, k) for k in payload.model_fields}}
    if payload.type == "task_assignment" and m.sender == lead and m.recipient and m.recipient != lead:
        tid = data.get("task_id")
        description = _kept(data.get("description"))
        subject = one_line(data.get("subject")) or one_line(description) or f"task {one_line(tid, 20)}"
        return _Event(m.timestamp, 0, "task", f"task:{m.recipient}:{tid}", m.recipient, subject, description)
    if m.recipient != lead:
        return None
    if payload.type == "idle_notification":
        raw = {
            "from": data.get("from_") or m.sender,
            "idleReason": data.get("idle_reason"),
            "failureReason": data.get("failure_reason"),
            "completedStatus": data.get("completed_status"),
            "result": data.get("result"),
            "summary": data.get("summary"),
        }
        return _idle_event(0, Notice(m.sender, raw, m.timestamp))
    if payload.type == "teammate_terminated":
        said = data.get("message")
        return _Event(m.timestamp, 0, "terminated", "", text=said if isinstance(said, str) else "")
    return None


__all__ = ["CALL_MARKS", "PROMPT_KEPT", "SOURCE", "AssignmentLog", "Call", "calls_in", "refusals_in"]
