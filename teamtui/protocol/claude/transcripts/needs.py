"""What waits for a person ("needs you"): pure functions over what the caller already read.

- a `permission_request` or `plan_approval_request` in the lead's inbox (or seen arriving in
  the lead's transcript), until its response is seen;
- a teammate whose last idle notice says `interrupted` or `failed` (and that has not written to
  its transcript since);
- a teammate that owns a task and has not written to its transcript for the health timeout.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from teamtui.protocol.claude.transcripts.render import Notice, describe_payload, one_line, parse_ts
from teamtui.protocol.health import is_disappeared
from teamtui.protocol.text import inert

_REQUESTS = {"permission_request": "permission_response", "plan_approval_request": "plan_approval_response"}
_STUCK = ("interrupted", "failed")


@dataclass(frozen=True, slots=True)
class NeedsYou:
    # "permission" | "plan" | "interrupted" | "failed" | "silent"
    kind: str
    member: str
    # A stable key: the same item keeps it while it waits, so the strip can tell when it left.
    key: str
    text: str
    since: float | None = None
    # The request's full text (plan content, tool input), for "open".
    detail: str = ""


def notices_from_inbox(entries: Iterable[object]) -> list[Notice]:
    """The protocol messages among inbox entries: wire dicts (`from`, `text`, `timestamp`) or
    teamtui Messages (`sender`, `content`, `timestamp`)."""
    out = []
    for e in entries:
        if isinstance(e, Mapping):
            sender, text, ts = e.get("from"), e.get("text"), e.get("timestamp")
        else:
            sender, text, ts = getattr(e, "sender", None), getattr(e, "content", None), getattr(e, "timestamp", None)
        if not isinstance(text, str) or not text.startswith("{"):
            continue
        try:
            payload = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(payload, dict) and isinstance(payload.get("type"), str):
            when = ts if isinstance(ts, (int, float)) and not isinstance(ts, bool) else parse_ts(ts)
            out.append(Notice(sender if isinstance(sender, str) else "", payload, when))
    return out


def _request_id(payload: Mapping[str, object]) -> str:
    rid = payload.get("request_id", payload.get("requestId"))
    return rid if isinstance(rid, str) else ""


def _detail(kind: str, payload: Mapping[str, object]) -> str:
    value = payload.get("planContent") if kind == "plan_approval_request" else payload.get("input")
    if value is None:
        return ""
    return inert(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str), newlines=True)


def open_requests(notices: Iterable[Notice]) -> list[NeedsYou]:
    """Permission and plan-approval requests with no response among `notices` (oldest first)."""
    pending: dict[str, NeedsYou] = {}
    for n in notices:
        kind = n.payload.get("type")
        rid = _request_id(n.payload)
        if kind in _REQUESTS:
            who = n.payload.get("agent_id") or n.payload.get("from") or n.sender
            who = one_line(who, 60).split("@", 1)[0] if isinstance(who, str) else one_line(n.sender, 60)
            key = f"{kind}:{rid}" if rid else f"{kind}:{who}:{n.ts}"
            pending[key] = NeedsYou(
                "permission" if kind == "permission_request" else "plan",
                who,
                key,
                f"{who} {describe_payload(n.payload)}"
                if kind == "permission_request"
                else f"{who} asks to approve a plan",
                n.ts,
                _detail(kind, n.payload),
            )
        elif kind in _REQUESTS.values() and rid:
            request = next(k for k, v in _REQUESTS.items() if v == kind)
            pending.pop(f"{request}:{rid}", None)
    return list(pending.values())


def stuck_teammates(notices: Iterable[Notice], last_write: Mapping[str, float | None] | None = None) -> list[NeedsYou]:
    """Teammates whose last idle notice says `interrupted` or `failed`, unless their transcript
    was written after that notice (they are working again)."""
    last: dict[str, Notice] = {}
    for n in notices:
        if n.payload.get("type") == "idle_notification":
            sender = n.payload.get("from")
            who = sender if isinstance(sender, str) else n.sender
            last[who] = n
    out = []
    for who, n in last.items():
        reason = n.payload.get("idleReason", n.payload.get("idle_reason"))
        if reason not in _STUCK:
            continue
        wrote = (last_write or {}).get(who)
        if wrote is not None and n.ts is not None and wrote > n.ts + 1.0:
            continue
        name = one_line(who, 60)
        out.append(NeedsYou(reason, name, f"{reason}:{name}:{n.ts}", f"{name} {describe_payload(n.payload)}", n.ts))
    return out


def silent_teammates(
    *,
    owners: Mapping[str, str],
    last_write: Mapping[str, float | None],
    stopped: Iterable[str] = (),
    now: float,
    timeout: float,
) -> list[NeedsYou]:
    """Teammates owning a task (`owners`: member → task id) whose transcript has not been
    written for `timeout` seconds (the health rule)."""
    gone = set(stopped)
    out = []
    for member, task_id in owners.items():
        wrote = last_write.get(member)
        # is_disappeared is False for a teammate never seen (wrote is None); the check narrows it
        if wrote is not None and is_disappeared(
            holds_task=True, stopped=member in gone, last_activity=wrote, now=now, timeout=timeout
        ):
            name = one_line(member, 60)
            out.append(
                NeedsYou(
                    "silent",
                    name,
                    f"silent:{name}",
                    f"{name} silent for {int(now - wrote)} s holding task #{one_line(task_id, 20)}",
                    wrote,
                )
            )
    return out
