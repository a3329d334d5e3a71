"""The stream's part for what needs the person there: a `hooks` line with the machine's open
permission requests (a hook waits on each) and its sessions waiting for a person, each with the key
of its team ([layout, root, name]; null for one of no team listed), and the `answer` request that
answers one (protocol/stream.py has the lines and the ops; session/stream_server.py writes and
carries them out; session/remote.py reads them).

    hooks   {items: [{key, id, kind, team, who, text, since, answers, note, detail?}]}
            the whole list each time it changes (at most HOOK_ITEMS_CAP); `kind` is `permission`
            (answers allow, deny, lead) or `wait` (none); a permission's `detail` is what the tool
            would do: {tool, what: {command, description, file_path, old_string, new_string,
            content, path, url, pattern, query, input, …}, summary, deadline, cwd, session_id}
    answer  request {id, op: "answer", team?, item, answer, message?, from?}: `item` an id of the
            list (or a team's need: held:…, stuck:…, gone:…, perm:…), `answer` one it takes,
            `from` where the room is (said in the journal); answered by a `result` line

Read back as untrusted input: every value checked, every string capped and made inert.
"""

from __future__ import annotations

from teamtui.protocol.stream import NAME_CAP, _items, _pick, name, number, team_key, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOOK_ITEMS_CAP = 500  # items in one hooks line (as many requests as the spool keeps)
ITEM_KINDS = frozenset({"permission", "wait"})
ANSWERS = frozenset({"allow", "deny", "lead"})
DETAIL_TEXT = 4000  # characters of one field of what a tool would do (the hook keeps 2,000)
# What a tool would do, as the hook keeps it (protocol/hooks/event.py what_it_would_do).
WHAT_KEYS = (
    "command",
    "description",
    "file_path",
    "old_string",
    "new_string",
    "content",
    "notebook_path",
    "new_source",
    "edit_mode",
    "path",
    "url",
    "prompt",
    "pattern",
    "glob",
    "query",
    "input",
)


def _id(v: Any) -> str | None:
    found = name(v, 200)
    return found if found and all(c.isalnum() or c in ":._-" for c in found) else None


def _text(v: Any) -> str | None:
    return text(v, DETAIL_TEXT)


_ITEM_KEYS: dict[str, Any] = {
    "id": _id,
    "kind": name,
    "team": name,
    "who": name,
    "text": _text,
    "since": number,
    "note": name,
}


def _what(v: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not isinstance(v, dict):
        return out
    for key in WHAT_KEYS:
        x = v.get(key)
        if isinstance(x, bool):
            out[key] = x
        elif (said := _text(x)) is not None:
            out[key] = said
    if "replace_all" in v and isinstance(v["replace_all"], bool):
        out["replace_all"] = v["replace_all"]
    edits = []
    for x in _items(v.get("edits"))[:10]:
        if isinstance(x, dict):
            edit = {k: said for k in ("old_string", "new_string") if (said := _text(x.get(k))) is not None}
            if edit:
                edits.append(edit)
    if edits:
        out["edits"] = edits
    return out


def _detail(d: Any) -> dict[str, Any]:
    if not isinstance(d, dict):
        return {}
    out: dict[str, Any] = {"tool": name(d.get("tool"), NAME_CAP) or "", "what": _what(d.get("what"))}
    for key, check in (("summary", _text), ("cwd", name), ("session_id", name), ("deadline", number), ("at", number)):
        value = check(d.get(key))
        if value is not None:
            out[key] = value
    return out


def read_hooks(line: dict[str, Any]) -> list[tuple[tuple[str, str, str] | None, dict[str, Any]]]:
    """A hooks line's items, each checked: (its team's key or None, the item's fields)."""
    out = []
    for x in _items(line.get("items"))[:HOOK_ITEMS_CAP]:
        item = _pick(x, _ITEM_KEYS)
        if not item or not item.get("id") or item.get("kind") not in ITEM_KINDS or item.get("text") is None:
            continue
        answers = x.get("answers")
        item["answers"] = tuple(
            dict.fromkeys(a for a in (answers if isinstance(answers, list) else [])[:10] if a in ANSWERS)
        )
        if item["kind"] != "permission":
            item["answers"] = ()
        item["detail"] = _detail(x.get("detail")) if item["kind"] == "permission" else {}
        out.append((team_key(x.get("key")) if x.get("key") is not None else None, item))
    return out


__all__ = ["HOOK_ITEMS_CAP", "read_hooks"]
