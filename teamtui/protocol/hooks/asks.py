"""A permission request's folder, shared by the hook that waits on it and whoever answers it.

    requests/<id>/request.json   what is asked (the folder is made as .<id>.new and renamed into place
                                 whole: a request is listed once it can be answered)
    requests/<id>/wake           a FIFO the hook keeps open while it waits; opening it for writing
                                 fails (ENXIO) once the hook is gone, so it is also the hook's liveness
    requests/<id>/answer.json    the one answer: written to a temp file, then link()ed into place,
                                 which fails if an answer is already there (first answer wins)

The id is 32 random hex digits, checked before it becomes a path; the answer names it too, and
the hook takes no answer that does not. An answer is `allow`, `deny` (with a message for the
model) or `lead` (left to Claude Code's own dialog in the lead's terminal). Its text is data: it
goes to Claude Code inside JSON, and nothing ever runs it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from teamtui.protocol.hooks.event import cut

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REQUEST = "request.json"
WAKE = "wake"
ANSWER = "answer.json"
ALLOW, DENY, LEAD = "allow", "deny", "lead"
DECISIONS = (ALLOW, DENY, LEAD)
# Where an answer came from.
VIA = ("room", "host", "browser", "cli", "hook", "terminal")
MAX_MESSAGE = 1000
_MAX_FILE = 64 * 1024


def new_id() -> str:
    return os.urandom(16).hex()


def is_request_id(value: object) -> bool:
    return isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value)


def request_dir(spool: Path, rid: str) -> Path:
    if not is_request_id(rid):
        raise ValueError(f"{rid!r} is not a request id (32 hex digits)")
    return spool / "requests" / rid


def read_json(path: Path) -> object:
    """A small JSON file of ours, or None (missing, too large, not JSON)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        data = os.read(fd, _MAX_FILE + 1)
    finally:
        os.close(fd)
    if len(data) > _MAX_FILE:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def write_private(path: Path, obj: object) -> None:
    """Write `obj` as JSON to a new temp file beside `path` (0600), then rename it into place."""
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, json.dumps(obj, ensure_ascii=False).encode("utf-8", "replace"))
    finally:
        os.close(fd)
    os.replace(tmp, path)


def make_answer(
    rid: str, decision: str, *, message: str = "", via: str, where: str, why: str = ""
) -> dict[str, object]:
    if decision not in DECISIONS:
        raise ValueError(f"an answer is one of {', '.join(DECISIONS)}, got {decision!r}")
    if via not in VIA:
        raise ValueError(f"an answer comes from one of {', '.join(VIA)}, got {via!r}")
    out: dict[str, object] = {
        "v": 1,
        "id": rid,
        "decision": decision,
        "via": via,
        "from": cut(where, 200),
        "at": time.time(),
    }
    if message:
        out["message"] = cut(message, MAX_MESSAGE)
    if why:
        out["why"] = cut(why, 300)
    return out


def claim(folder: Path, answer: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """Put `answer` in place unless one is there: (whether this one won, the answer that stands)."""
    tmp = folder / f".answer.{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, json.dumps(answer, ensure_ascii=False).encode("utf-8", "replace"))
    finally:
        os.close(fd)
    try:
        os.link(tmp, folder / ANSWER)
        won = True
    except FileExistsError:
        won = False
    finally:
        os.unlink(tmp)
    return won, answer if won else read_answer(folder, answer["id"])


def read_answer(folder: Path, rid: str) -> dict[str, object] | None:
    """The answer that stands, checked: None when there is none; a `lead` answer saying so when
    the file is not a well-formed answer to this very request."""
    path = folder / ANSWER
    if not os.path.lexists(path):
        return None
    a = read_json(path)
    ok = (
        isinstance(a, dict)
        and a.get("id") == rid
        and a.get("decision") in DECISIONS
        and isinstance(a.get("message", ""), str)
        and a.get("via") in VIA
    )
    if not ok:
        return {"v": 1, "id": rid, "decision": LEAD, "via": "hook", "from": "", "why": "a malformed answer was left"}
    assert isinstance(a, dict)
    a["message"] = cut(a.get("message", ""), MAX_MESSAGE)
    return a


def hook_waiting(folder: Path) -> bool:
    """Whether the hook that asked still waits: its FIFO has a reader (the hook itself)."""
    try:
        fd = os.open(folder / WAKE, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # ENXIO: nobody has it open to read; ENOENT: gone
        return False
    os.close(fd)
    return True


def wake(folder: Path) -> bool:
    """Wake the hook waiting on `folder`; False when no hook waits there any more."""
    try:
        fd = os.open(folder / WAKE, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        os.write(fd, b"!")
    except OSError:  # the pipe is full: the hook has been woken already
        pass
    finally:
        os.close(fd)
    return True


def decision_json(answer: dict[str, object]) -> str | None:
    """What the hook prints for Claude Code (FORMATS.md §4); None leaves it to Claude Code's dialog."""
    decision = answer.get("decision")
    if decision == ALLOW:
        behaviour: dict[str, object] = {"behavior": "allow"}
    elif decision == DENY:
        behaviour = {"behavior": "deny", "message": answer.get("message") or "Denied by the person, from teamtui."}
    else:
        return None
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": behaviour}})
