"""The stream's part for what teammates changed: each team's files and counts in its `insight`
line (`changes`), and a file's diff, asked for by a `diff` request and answered by a `diff` line
(protocol/stream.py has the lines and requests; this module their contents, written and read
back). Read back as untrusted input: every value checked, every string capped and made inert,
the counts at least 0, at most CHANGES_CAP files and DIFF_EDITS_CAP edits, each edit's lines
bounded as the EditLog bounds them (protocol/edits.py).
"""

from __future__ import annotations

import json

from teamtui.protocol.edits import MAX_DIFF_LINES, MAX_LINE_CHARS, MAX_PATH_CHARS, SEEN, Edit, FileChange, Hunk
from teamtui.protocol.stream import (
    MAX_LINE,
    NAME_CAP,
    _float,
    _items,
    _opt_bool,
    _pick,
    chunks,
    dumps,
    name,
    number,
    whole,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CHANGES_CAP = 2000  # files (member and path) per team in one insight line
CHANGES_BUDGET = MAX_LINE // 4  # bytes of them (the newest first; the rest left out)
DIFF_EDITS_CAP = 200  # edits in one diff answer
DIFF_BUDGET = MAX_LINE - 64 * 1024  # bytes of one diff answer (the oldest edits' hunks go first)


def change_json(fc: FileChange) -> dict[str, Any]:
    return {
        "member": fc.member[:NAME_CAP],
        "path": fc.path[:MAX_PATH_CHARS],
        "added": fc.added,
        "removed": fc.removed,
        "counted": not fc.unknown,
        "edits": fc.edits,
        "created": fc.created,
        "last_at": _float(fc.last_at),
    }


def changes_json(log: Any) -> list[dict[str, Any]]:
    """The files each member changed (an EditLog's counts), newest first, within CHANGES_BUDGET."""
    if log is None:
        return []
    return next(chunks((change_json(fc) for fc in log.changes()[:CHANGES_CAP]), CHANGES_BUDGET), [])


def edit_json(e: Edit) -> dict[str, Any]:
    return {
        "tool": e.tool[:NAME_CAP],
        "at": _float(e.at),
        "added": e.added,
        "removed": e.removed,
        "note": e.note[:NAME_CAP],
        "cut": e.cut,
        "dropped": e.dropped,
        "created": e.created,
        "hunks": [[h.old_start, h.old_lines, h.new_start, h.new_lines, list(h.lines)] for h in e.hunks],
    }


def diff_json(edits: list[Edit], budget: int = DIFF_BUDGET) -> tuple[list[dict[str, Any]], int]:
    """A member's edits to a file as a diff line's `edits`, and how many were left out: the newest
    DIFF_EDITS_CAP; while over `budget` bytes, the oldest give up their hunks, then themselves."""
    out = [edit_json(e) for e in edits[-DIFF_EDITS_CAP:]]
    left_out = len(edits) - len(out)
    sizes = [len(dumps(x)) for x in out]
    total, i = sum(sizes), 0
    while total > budget and i < len(out) - 1:
        if out[i]["hunks"]:
            out[i] = {**out[i], "hunks": [], "dropped": True}
            new = len(dumps(out[i]))
            total, sizes[i] = total - sizes[i] + new, new
        i += 1
    if total > budget and out and out[-1]["hunks"]:  # the newest alone is too long: its first lines fit
        out[-1] = _trimmed(out[-1], budget - (total - sizes[-1]))
        total, sizes[-1] = total - sizes[-1] + len(dumps(out[-1])), len(dumps(out[-1]))
    while total > budget and out:
        total -= sizes.pop(0)
        out.pop(0)
        left_out += 1
    return out, left_out


def _trimmed(edit: dict[str, Any], room: int) -> dict[str, Any]:
    """An edit's JSON with as many of its hunks' first lines as fit `room` bytes (the rest counted in `cut`)."""
    left = room - len(dumps({**edit, "hunks": []})) - 64
    hunks, cut = [], edit["cut"]
    for h in edit["hunks"]:
        kept = []
        for line in h[4]:
            n = len(json.dumps(line, ensure_ascii=True)) + 1
            if n > left:
                break
            kept.append(line)
            left -= n
        cut += len(h[4]) - len(kept)
        if kept:
            hunks.append([*h[:4], kept])
            left -= 32
        if len(kept) < len(h[4]):
            cut += sum(len(rest[4]) for rest in edit["hunks"][edit["hunks"].index(h) + 1 :])
            break
    return {**edit, "hunks": hunks, "cut": cut}


# ------------------------------------------------------------------ read back


def _count(v: Any) -> int:
    n = whole(v)
    return max(0, min(n, 10**9)) if n is not None else 0


def _path(v: Any) -> str | None:
    return name(v, MAX_PATH_CHARS)


_CHANGE_KEYS: dict[str, Any] = {
    "member": name,
    "path": _path,
    "added": whole,
    "removed": whole,
    "counted": _opt_bool,
    "edits": whole,
    "created": _opt_bool,
    "last_at": number,
}


def read_changes(v: Any) -> list[FileChange]:
    """An insight's `changes`, each checked: a member and a path, counts of at least 0; one per
    (member, path)."""
    out: dict[tuple[str, str], FileChange] = {}
    for x in _items(v)[:CHANGES_CAP]:
        f = _pick(x, _CHANGE_KEYS)
        if not f or not f.get("member") or not f.get("path"):
            continue
        fc = FileChange(f["member"], f["path"], SEEN, _count(f.get("added")), _count(f.get("removed")))
        fc.unknown = f.get("counted") is False
        fc.edits = _count(f.get("edits"))
        fc.created = f.get("created") is True
        fc.last_at = f.get("last_at")
        out.setdefault((fc.member, fc.path), fc)
    return list(out.values())


def _hunk(v: Any, left: list[int]) -> Hunk | None:
    if not isinstance(v, list) or len(v) != 5 or not isinstance(v[4], list):
        return None
    lines = []
    for line in v[4][: left[0]]:
        checked = name(line, MAX_LINE_CHARS)
        if checked is None:
            continue
        lines.append((checked if checked[:1] in ("+", "-", " ") else " " + checked)[:MAX_LINE_CHARS])
    left[0] -= len(lines)
    return Hunk(_count(v[0]), _count(v[1]), _count(v[2]), _count(v[3]), tuple(lines))


def read_diff(d: dict[str, Any]) -> dict[str, Any] | None:
    """A diff line: {id, member, path, edits (Edits, every value checked), left_out}; None when it
    names no member or path."""
    member, path = name(d.get("member")), _path(d.get("path"))
    if not member or not path:
        return None
    edits = []
    for x in _items(d.get("edits"))[:DIFF_EDITS_CAP]:
        if not isinstance(x, dict):
            continue
        left = [MAX_DIFF_LINES]
        hunks = tuple(h for v in _items(x.get("hunks")) if (h := _hunk(v, left)) is not None)
        added, removed = whole(x.get("added")), whole(x.get("removed"))
        e = Edit(
            member,
            path,
            name(x.get("tool"), 40) or "?",
            number(x.get("at")),
            max(0, added) if added is not None else None,
            max(0, removed) if removed is not None else None,
            hunks,
            note=name(x.get("note")) or "",
            cut=_count(x.get("cut")),
            created=x.get("created") is True,
            dropped=x.get("dropped") is True,
        )
        edits.append(e)
    rid = d.get("id")
    return {
        "id": rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None,
        "member": member,
        "path": path,
        "edits": edits,
        "left_out": _count(d.get("left_out")),
    }


__all__ = [
    "CHANGES_BUDGET",
    "CHANGES_CAP",
    "DIFF_BUDGET",
    "DIFF_EDITS_CAP",
    "change_json",
    "changes_json",
    "diff_json",
    "edit_json",
    "read_changes",
    "read_diff",
]
