"""The files a teammate changed, as its transcript records them (Claude Code 2.1.332, FORMATS.md §5).

The user line that answers a successful `Write`, `Edit`, `MultiEdit` or `NotebookEdit` carries
`toolUseResult`, a dict:

- Write: `{type: "create" | "update", filePath, content, structuredPatch, originalFile}`
  (a new file's `structuredPatch` is `[]`: every line of `content` is added);
- Edit: `{filePath, oldString, newString, originalFile, structuredPatch, userModified, replaceAll}`;
- MultiEdit: `{filePath, edits, originalFileContents, structuredPatch, userModified}`;
- NotebookEdit: `{notebook_path, cell_id, new_source, edit_mode, cell_type, ...}` (no patch).

`structuredPatch` is a list of hunks `{oldStart, oldLines, newStart, newLines, lines}` with each
line led by " ", "-" or "+". The tool is told by the result's shape (the line holds no tool
name); a failed call's `toolUseResult` is a string and changed nothing.

A line over the reader's limit (a 50 MB `Write`) is never read whole: its first bytes
(`edit_from_head`) still say which file, when and by which tool, with the lines not counted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from teamtui.protocol.claude.transcripts.render import parse_ts
from teamtui.protocol.edits import (
    MAX_DIFF_LINES,
    Edit,
    Hunk,
    clip_line,
    clip_path,
    count_lines,
)

# Bytes kept of the start of a line too long to read (the reader's TailReader keep_head).
HEAD_BYTES = 16 * 1024


def may_hold_edit(line: bytes) -> bool:
    """The line may answer an edit (decoded to be sure): cheap, asked of every user line."""
    return b'"toolUseResult":{' in line and (b'"filePath"' in line or b'"notebook_path"' in line)


def _tool(result: dict[str, object]) -> str | None:
    if isinstance(result.get("edits"), list):
        return "MultiEdit"
    if "oldString" in result or "newString" in result:
        return "Edit"
    if result.get("type") in ("create", "update") and "content" in result:
        return "Write"
    if "notebook_path" in result and ("new_source" in result or "cell_id" in result):
        return "NotebookEdit"
    return None


def _str(v: object) -> str:
    return v if isinstance(v, str) else ""


def _int(v: object) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**31 else 0


def _uid(rec: dict[str, Any]) -> str:
    content = rec.get("message", {}).get("content") if isinstance(rec.get("message"), dict) else None
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
            return block["tool_use_id"][:200]
    uuid = rec.get("uuid")
    return uuid[:200] if isinstance(uuid, str) else ""


class _Budget:
    """Diff lines kept of one edit: the first MAX_DIFF_LINES, the rest counted."""

    def __init__(self) -> None:
        self.left = MAX_DIFF_LINES
        self.cut = 0

    def take(self, lines: list[str]) -> tuple[str, ...]:
        kept = lines[: self.left]
        self.left -= len(kept)
        self.cut += len(lines) - len(kept)
        return tuple(clip_line(line) for line in kept)


def _binary(text: str) -> bool:
    return "\x00" in text


def _hunks(patch: object, budget: _Budget) -> tuple[tuple[Hunk, ...], int, int, bool]:
    """(hunks kept, lines added, lines removed, binary) of a structuredPatch."""
    hunks, added, removed = [], 0, 0
    for h in patch if isinstance(patch, list) else ():
        if not isinstance(h, dict):
            continue
        lines = [line for line in h.get("lines") or () if isinstance(line, str)]
        if any(_binary(line) for line in lines):
            return (), 0, 0, True
        added += sum(1 for line in lines if line.startswith("+"))
        removed += sum(1 for line in lines if line.startswith("-"))
        hunks.append(
            Hunk(
                _int(h.get("oldStart")),
                _int(h.get("oldLines")),
                _int(h.get("newStart")),
                _int(h.get("newLines")),
                budget.take(lines),
            )
        )
    return tuple(hunks), added, removed, False


def _created(content: str, budget: _Budget) -> tuple[tuple[Hunk, ...], int]:
    """A new file's text as one hunk of added lines."""
    n = count_lines(content)
    if not n:
        return (), 0
    lines = content.split("\n", MAX_DIFF_LINES + 1)[:n]  # no more than are kept is split
    kept = budget.take(["+" + line for line in lines[:MAX_DIFF_LINES]])
    budget.cut += max(0, n - len(lines[:MAX_DIFF_LINES]))
    return (Hunk(0, 0, 1, n, kept),), n


def edits_in(rec: dict[str, object]) -> list[Edit]:
    """The edit a decoded user line answers with (a list: none, or one), its member left "" for the
    caller to name."""
    if rec.get("type") != "user":
        return []
    result = rec.get("toolUseResult")
    if not isinstance(result, dict):
        return []
    tool = _tool(result)
    path = result.get("filePath") if tool != "NotebookEdit" else result.get("notebook_path")
    if tool is None or not isinstance(path, str) or not path:
        return []
    at, uid, budget = parse_ts(rec.get("timestamp")), _uid(rec), _Budget()
    edit = Edit("", clip_path(path), tool, at, 0, 0, uid=uid)
    if tool == "NotebookEdit":
        source = _str(result.get("new_source"))
        mode = _str(result.get("edit_mode")) or "replace"
        cell = result.get("cell_id")
        edit.note = f"notebook cell {str(cell)[:40]} ({mode[:20]})" if cell is not None else f"notebook ({mode[:20]})"
        if mode != "delete":
            edit.hunks, edit.added = _created(source, budget)
        edit.removed = 0 if mode == "insert" else None  # the cell's old source is not in the result
    else:
        content = _str(result.get("content"))
        patch = result.get("structuredPatch")
        if tool == "Write" and result.get("type") == "create":
            edit.created, edit.note = True, "new file"
            if _binary(content):
                edit.added = edit.removed = None
                edit.note = "new file, binary: not shown"
            elif not patch:
                edit.hunks, edit.added = _created(content, budget)
        if edit.added is not None and not edit.hunks:
            edit.hunks, edit.added, edit.removed, binary = _hunks(patch, budget)
            if binary or _binary(content):
                edit.hunks, edit.added, edit.removed, edit.note = (), None, None, "binary: not shown"
        if result.get("userModified") is True:
            edit.note = (edit.note + "; " if edit.note else "") + "the person changed it before it was applied"
    edit.cut = budget.cut
    return [edit]


_HEAD_RESULT = re.compile(
    rb'"toolUseResult":\{(?:"type":"(create|update)",)?"(filePath|notebook_path)":("(?:[^"\\]|\\.)*")'
)
_HEAD_NEXT = re.compile(rb',"(content|oldString|newString|edits|cell_id|new_source)"')
_HEAD_TIME = re.compile(rb'"timestamp":"([^"]{1,64})"')
_HEAD_ID = re.compile(rb'"tool_use_id":"([^"]{1,200})"')


def edit_from_head(head: bytes, size: int) -> Edit | None:
    """What the first bytes of a line too long to read say of an edit: the file, when, which tool;
    its lines not counted, its diff not shown."""
    if b'"type":"user"' not in head[:4096]:
        return None
    m = _HEAD_RESULT.search(head)
    if m is None:
        return None
    try:
        path = json.loads(m.group(3))
    except (ValueError, RecursionError):
        return None
    if not isinstance(path, str) or not path:
        return None
    after = _HEAD_NEXT.match(head, m.end())
    key = after.group(1) if after else b""
    if m.group(2) == b"notebook_path":
        tool = "NotebookEdit"
    elif m.group(1) or key == b"content":
        tool = "Write"
    elif key == b"edits":
        tool = "MultiEdit"
    else:
        tool = "Edit"
    ts = _HEAD_TIME.search(head)
    uid = _HEAD_ID.search(head)
    at = parse_ts(ts.group(1).decode("ascii", "replace")) if ts else None
    return Edit(
        "",
        clip_path(path),
        tool,
        at,
        None,
        None,
        note=f"too large to show ({size / 1e6:.1f} MB line, over the reader's limit)",
        uid=uid.group(1).decode("ascii", "replace") if uid else "",
        created=m.group(1) == b"create",
    )


__all__ = ["HEAD_BYTES", "edit_from_head", "edits_in", "may_hold_edit"]
