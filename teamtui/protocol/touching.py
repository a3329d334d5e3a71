"""Specflow's `TOUCHING_FILE <path>` broadcasts, remembered so the board can withhold the ready
tasks that would touch the same file until the sender's task completes.

A broadcast is read-and-cleared from every inbox it reaches, so the touch is kept in
`.teams/<team>/touching.json` (native layout), written by whoever sees it first: the CLI's and the
Python API's `broadcast`, and the lead reading its inbox.
"""

from __future__ import annotations

import re
import time

from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.fsio import ensure_dir, ensure_inside, load_json_file, write_json_atomic
from teamtui.protocol.locks import FileLock
from teamtui.protocol.models import Message, Task, TaskStatus
from teamtui.protocol.record import FrozenRecord, init_field
from teamtui.protocol.store import TeamStore

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# One line, the keyword, then the path; a path is data, bounded, never a file teamtui opens.
# A trailing ` for #N` names the sender's task (teamtui's demo says so), not part of the path.
_TOUCHING = re.compile(r"TOUCHING_FILE[ \t]+(\S[^\r\n]{0,4095}?)(?:[ \t]+for[ \t]+#(\d{1,12}))?[ \t]*")
MAX_TOUCHES = 1000


class Touch(FrozenRecord):
    __slots__ = ("path", "by", "task", "at")
    path: str
    by: str
    task: str  # the sender's in-progress task when it broadcast ('' when it held none)
    at: float

    def __init__(self, path: str, by: str, task: str = "", at: float = 0.0):
        init_field(self, "path", path)
        init_field(self, "by", by)
        init_field(self, "task", task)
        init_field(self, "at", at)

    def to_json(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}


def touch_active(touch: Touch, tasks: Mapping[str, Task]) -> bool:
    """Whether a touch still withholds its file: its task is not completed (and still its sender's)."""
    if touch.task:
        t = tasks.get(touch.task)
        return t is not None and t.status != TaskStatus.COMPLETED and t.owner == touch.by
    # Sent while holding no task: until the sender next completes one.
    return not any(
        t.owner == touch.by and t.status == TaskStatus.COMPLETED and (t.completed_at or 0) >= touch.at
        for t in tasks.values()
    )


def touched(text: str) -> tuple[str, str] | None:
    """The path a `TOUCHING_FILE <path>` message names and the task its ` for #N` names ('' if
    none), or None."""
    m = _TOUCHING.fullmatch(text.strip())
    return (m.group(1), m.group(2) or "") if m else None


def touched_path(text: str) -> str | None:
    """The path a `TOUCHING_FILE <path>` message names, or None."""
    found = touched(text)
    return found[0] if found else None


def touches_path(store: TeamStore):
    return store.team_dir / "touching.json"


def load_touches(store: TeamStore) -> tuple[list[Touch], ReadError | None]:
    """The remembered touches; an unreadable file is reported, not guessed at."""
    path = touches_path(store)
    if not path.exists():
        return [], None
    data = load_json_file(path)
    if isinstance(data, ReadError):
        return [], data
    entries = data.get("touches") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return [], ReadError(path, "expected an object with a 'touches' list")
    return [t for e in entries if (t := _decode(e)) is not None], None


def _decode(e: object) -> Touch | None:
    if not isinstance(e, dict):
        return None
    path, by, task, at = e.get("path"), e.get("by"), e.get("task", ""), e.get("at", 0.0)
    if not (isinstance(path, str) and path and isinstance(by, str) and by and isinstance(task, str)):
        return None
    return Touch(path, by, task, float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else 0.0)


def record_touch(store: TeamStore, path: str, by: str, *, at: float | None = None, task: str = "") -> Touch | None:
    """Remember that `by` touches `path`, bound to `task` when `by` holds it, else to the task `by`
    holds now; None when the layout keeps no touches."""
    if not store.writes_tasks:
        return None
    tasks, _ = store.list_tasks(include_internal=True)
    mine = [t.id for t in tasks if t.owner == by and t.status == TaskStatus.IN_PROGRESS]
    holding = task if task in mine else next(iter(mine), "")
    touch = Touch(path, by, holding, time.time() if at is None else at)
    file = ensure_inside(touches_path(store), store.root)
    ensure_dir(file.parent, store.root, store.team_dir)
    with FileLock(file.with_name("touching.lock")):
        current, error = load_touches(store)
        if error is not None and file.exists():
            raise ParseError(error)  # never rewrite a file we could not read
        by_id = {t.id: t for t in tasks}
        # Keep only what still counts, and one entry per (file, sender).
        kept = [t for t in current if touch_active(t, by_id) and (t.path, t.by) != (path, by)]
        kept.append(touch)
        write_json_atomic(file, {"touches": [t.to_json() for t in kept[-MAX_TOUCHES:]]})
    return touch


def note_broadcasts(store: TeamStore, messages: Iterable[Message]) -> list[Touch]:
    """Record every TOUCHING_FILE broadcast among `messages` (the lead calls this on its inbox)."""
    out = []
    for m in messages:
        if m.type == "broadcast" and m.sender and (found := touched(m.content)):
            touch = record_touch(store, found[0], m.sender, at=m.timestamp or None, task=found[1])
            if touch is not None:
                out.append(touch)
    return out
