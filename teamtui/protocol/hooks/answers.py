"""Listing the permission requests hooks wait on, and answering one: what the room, a browser
session, `teamtui stream` (for a room on another machine) and `teamtui answer` all call.

`answer()` is the one way in: it checks the id, that the request is still open and its hook
still waits, claims the answer (first one wins: link() fails for the second), wakes the hook and
journals who answered, how and from where. The hook then prints the decision.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.asks import (
    ALLOW,
    DENY,
    LEAD,
    REQUEST,
    claim,
    hook_waiting,
    is_request_id,
    make_answer,
    read_answer,
    read_json,
    request_dir,
    wake,
)
from teamtui.protocol.hooks.event import summary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    AskState = Literal["open", "allowed", "denied", "moved", "gone"]

# What became of a request, as a room shows it.
OPEN: AskState = "open"  # its hook waits: it can be answered
ALLOWED: AskState = "allowed"
DENIED: AskState = "denied"
MOVED: AskState = (
    "moved"  # left to the lead's terminal (by a person, the hook's wait, the room quitting, or the terminal)
)
GONE: AskState = "gone"  # its hook ended without an answer (Claude Code killed it)


@dataclass(slots=True)
class PermissionAsk:
    """One permission request a hook made, as read from its folder."""

    id: str
    at: float
    deadline: float
    team: str
    session_id: str
    who: str  # the in-process teammate that asks; "" for the lead
    tool: dict[str, object]  # event.what_it_would_do: name, command, file_path, old/new_string, path, input
    summary: str
    cwd: str = ""
    host: str = ""
    state: AskState = OPEN
    answer: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def asker(self) -> str:
        return self.who or "team-lead"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": "permission",
            "team": self.team,
            "session_id": self.session_id,
            "who": self.asker,
            "tool": self.tool.get("name", ""),
            "what": {k: v for k, v in self.tool.items() if k != "name"},
            "summary": self.summary,
            "cwd": self.cwd,
            "host": self.host,
            "at": self.at,
            "deadline": self.deadline,
            "state": self.state,
            "answer": self.answer,
            "answers": ["allow", "deny", "lead"] if self.state == OPEN else [],
        }


class AnswerRefused(Exception):
    """Why an answer was not taken (one line): no such request, already answered, nobody waits.
    `closed` is what became of the request when another answer came first (None: no such request,
    or its hook ended)."""

    def __init__(self, why: str, closed: AskState | None = None):
        super().__init__(why)
        self.closed = closed


def _state(answer: dict[str, object] | None, waiting: bool) -> AskState:
    if answer is None:
        return OPEN if waiting else GONE
    decision = answer.get("decision", "")
    return ALLOWED if decision == ALLOW else DENIED if decision == DENY else MOVED


def read_ask(spool: Path, rid: str) -> PermissionAsk | None:
    """The request `rid` and what became of it; None when there is no such request."""
    try:
        folder = request_dir(spool, rid)
    except ValueError:
        return None
    raw = read_json(folder / REQUEST)
    if not isinstance(raw, dict) or raw.get("id") != rid:
        return None
    answer = read_answer(folder, rid)
    found = raw.get("tool")
    tool: dict[str, object] = found if isinstance(found, dict) else {}

    def text(key: str) -> str:
        v = raw.get(key)
        return v if isinstance(v, str) else ""

    def number(key: str) -> float:
        v = raw.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0

    return PermissionAsk(
        id=rid,
        at=number("at"),
        deadline=number("deadline"),
        team=text("team"),
        session_id=text("session_id"),
        who=text("who"),
        tool=tool,
        summary=text("summary") or summary(tool),
        cwd=text("cwd"),
        host=text("host"),
        state=_state(answer, answer is None and hook_waiting(folder)),
        answer=answer,
        raw=raw,
    )


def list_asks(spool: Path, *, closed: bool = False) -> list[PermissionAsk]:
    """The requests hooks wait on (with `closed`, also the recent ones answered or moved), oldest first."""
    try:
        names = [e.name for e in os.scandir(spool / "requests") if is_request_id(e.name)]
    except OSError:
        return []
    out = [a for rid in names if (a := read_ask(spool, rid)) is not None and (closed or a.state == OPEN)]
    return sorted(out, key=lambda a: a.at)


def answer(
    spool: Path,
    rid: str,
    decision: str,
    *,
    message: str = "",
    via: str = "cli",
    where: str = "",
) -> dict[str, object]:
    """Answer request `rid` (allow, deny with `message`, or lead: leave it to the lead's terminal);
    returns the answer taken. AnswerRefused says why not. `via` and `where` say how and from where
    (room, host, browser, cli; a host's name, a browser's address) for the journal."""
    if not is_request_id(rid):
        raise AnswerRefused(f"{rid!r} is not a permission request id")
    folder = request_dir(spool, rid)
    ask = read_ask(spool, rid)
    if ask is None:
        raise AnswerRefused(f"no permission request {rid}")
    if ask.state != OPEN:
        raise AnswerRefused(_closed_why(ask), _closed(ask))
    where = where or os.uname().nodename
    mine = make_answer(rid, decision, message=message if decision == DENY else "", via=via, where=where)
    won, standing = claim(folder, mine)
    if not won:
        ask = read_ask(spool, rid) or ask
        raise AnswerRefused(_closed_why(ask), _closed(ask))
    journal.write(
        spool,
        journal.ANSWERED,
        id=rid,
        team=ask.team,
        who=ask.asker,
        tool=ask.tool.get("name", ""),
        summary=ask.summary,
        decision=decision,
        message=mine.get("message", ""),
        via=via,
        where=where,
    )
    if not wake(folder):  # the hook ended between the check and the claim: the answer stands, nobody carries it out
        journal.write(spool, journal.CARRIED_OUT, id=rid, decision=decision, printed=False, why="its hook had ended")
        raise AnswerRefused(f"request {rid} was claimed but its hook had just ended; Claude Code's dialog decides")
    return standing or mine


def _closed(ask: PermissionAsk) -> AskState | None:
    """The answer that came first (allowed, denied, moved); None when its hook ended unanswered."""
    return ask.state if ask.state in (ALLOWED, DENIED, MOVED) else None


def _closed_why(ask: PermissionAsk) -> str:
    a = ask.answer or {}
    by = f" from {a.get('via')}" + (f" ({a.get('from')})" if a.get("from") else "") if a else ""
    when = f" at {time.strftime('%H:%M:%S', time.localtime(a['at']))}" if isinstance(a.get("at"), (int, float)) else ""
    if ask.state == ALLOWED:
        return f"request {ask.id} was already allowed{by}{when}"
    if ask.state == DENIED:
        return f"request {ask.id} was already denied{by}{when}"
    if ask.state == MOVED:
        return f"request {ask.id} was left to the lead's terminal ({a.get('why') or 'by a person'}){when}"
    return f"request {ask.id} is no longer waiting: its hook ended (Claude Code's own dialog decides)"


__all__ = ["ALLOW", "DENY", "LEAD", "PermissionAsk", "AnswerRefused", "answer", "list_asks", "read_ask"]
