"""The writes: one function per kind of record, each run inside the writer's transaction.

An op is a plain tuple `(name, team, ts, payload)` built on the recorder's thread: `team` is a
TeamIdent, `ts` when it was seen, `payload` a tuple of the record's fields. The work that costs
(cleaning text, hashing, SQL) happens here, on the writer's thread. Every write is idempotent
where two recorders (two teamtui processes watching one team) or a journal import could say the
same thing twice: entries and messages by their `dedupe` hash, tasks by their last state, events
by a recent twin.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import namedtuple
from decimal import Decimal, InvalidOperation
from typing import Any

try:  # the C module hashlib wraps: without loading OpenSSL (a few ms of every dashboard's start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

# A team's identity across machines: `host` '' is this one; `root` its real folder.
TeamIdent = namedtuple("TeamIdent", ("host", "layout", "root", "name"))

# Text longer than this is cut in a record (a pasted log must not fill the database).
MAX_TEXT = 16 * 1024
# The match marks search's snippet() puts around a match: never in stored text.
MARKS = ("\x02", "\x03")
# An event repeated within this many seconds is the same one (two recorders saw it).
EVENT_TWIN_S = 60.0
# Diff text (hunk lines' characters) a team keeps in the database: past it, its edits' counts only.
DIFF_BUDGET = 8 * 1024 * 1024
# Characters of one diff line kept (protocol/edits.py MAX_LINE_CHARS).
MAX_LINE = 2000

Op = tuple  # (name, TeamIdent, ts, payload)


def clean(value: object) -> str:
    """Text as it is stored: cut to MAX_TEXT, lone surrogates and NULs replaced (SQLite takes only
    UTF-8, and its C side stops at a NUL), no match marks."""
    s = value if isinstance(value, str) else ("" if value is None else str(value))
    if len(s) > MAX_TEXT:
        s = s[:MAX_TEXT] + "…"
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (from a JSON "\ud800"): one U+FFFD each
            s = s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if "\x02" in s or "\x03" in s:
        s = s.replace("\x02", "").replace("\x03", "")
    if "\x00" in s:  # SQLite's text functions (snippet) stop at a NUL
        s = s.replace("\x00", "\ufffd")
    return s


def digest(*parts: object) -> int:
    """A signed 64-bit hash of `parts` (what makes a record the same record)."""
    h = blake2b("\x1f".join(map(str, parts)).encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(h.digest(), "big", signed=True)


def message_key(sender: str, recipient: str, at: float, kind: str, content: str) -> int:
    return digest("m", sender, recipient, repr(float(at or 0.0)), kind, str(content)[:MAX_TEXT])


def _level(value: object) -> str:
    return str(getattr(value, "value", value) or "")


def team_id(con: sqlite3.Connection, team: TeamIdent, ts: float) -> int:
    row = con.execute(
        "INSERT INTO teams(host, layout, root, name, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(host, layout, root, name) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen) "
        "RETURNING id",
        (str(team[0]), str(team[1]), clean(team[2]), clean(team[3]), ts, ts),
    ).fetchone()
    return int(row[0])


# ------------------------------------------------------------------ one function per op


def _header(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    lead, description, created_at, members, extra, live = payload
    row = con.execute("SELECT header FROM teams WHERE id = ?", (tid,)).fetchone()
    try:
        header = json.loads(row[0]) if row else {}
    except ValueError:
        header = {}
    header.update(extra or {})
    con.execute(
        "UPDATE teams SET lead = ?, description = ?, created_at = coalesce(?, created_at), header = ?, "
        # Seen alive after it ended: back. An older header read in late (a journal's) changes nothing of that.
        "ended_at = CASE WHEN ended_at IS NOT NULL AND ended_at <= ? THEN NULL ELSE ended_at END, "
        "recorded_since = CASE WHEN ? THEN coalesce(recorded_since, ?) ELSE recorded_since END "
        "WHERE id = ?",
        (clean(lead), clean(description), created_at, json.dumps(header, ensure_ascii=False), ts, live, ts, tid),
    )
    for name, agent_type, color, backend, pane, joined_at in members:
        con.execute(
            "INSERT INTO members(team_id, name, agent_type, color, backend, pane, joined_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(team_id, name) DO UPDATE SET agent_type = excluded.agent_type, color = excluded.color, "
            "backend = excluded.backend, pane = excluded.pane, joined_at = coalesce(members.joined_at, excluded.joined_at), "
            "left_at = CASE WHEN members.left_at IS NOT NULL AND members.left_at > ? THEN members.left_at ELSE NULL END",
            (tid, clean(name), clean(agent_type), clean(color), clean(backend), clean(pane), joined_at or ts, ts),
        )


def _member(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    name, kind, detail, agent_type, color = payload
    name = clean(name)
    last = con.execute(
        "SELECT kind, detail, ts FROM member_events WHERE team_id = ? AND name = ? ORDER BY ts DESC, id DESC LIMIT 1",
        (tid, name),
    ).fetchone()
    if last is not None and last[0] == kind and last[1] == (detail or "") and ts - last[2] < EVENT_TWIN_S:
        return  # another recorder said it
    con.execute(
        "INSERT INTO member_events(team_id, ts, name, kind, detail) VALUES (?, ?, ?, ?, ?)",
        (tid, ts, name, kind, clean(detail)),
    )
    if kind == "joined":
        con.execute(
            "INSERT INTO members(team_id, name, agent_type, color, joined_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(team_id, name) DO UPDATE SET "
            "left_at = CASE WHEN members.left_at IS NOT NULL AND members.left_at > excluded.joined_at "
            "THEN members.left_at ELSE NULL END, "
            "agent_type = CASE WHEN excluded.agent_type != '' THEN excluded.agent_type ELSE members.agent_type END, "
            "color = CASE WHEN excluded.color != '' THEN excluded.color ELSE members.color END",
            (tid, name, clean(agent_type), clean(color), ts),
        )
    elif kind == "left":
        con.execute("UPDATE members SET left_at = ? WHERE team_id = ? AND name = ?", (ts, tid, name))


def _task(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    source, task_id, subject, description, status, owner, blocked_by = payload
    task_id, subject, description, owner = clean(task_id), clean(subject), clean(description), clean(owner)
    before = con.execute(
        "SELECT status, owner, subject, removed_at FROM tasks WHERE team_id = ? AND source = ? AND task_id = ?",
        (tid, source, task_id),
    ).fetchone()
    con.execute(
        "INSERT INTO tasks(team_id, source, task_id, subject, description, status, owner, blocked_by, first_seen, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(team_id, source, task_id) DO UPDATE SET "
        "subject = excluded.subject, description = excluded.description, status = excluded.status, "
        "owner = excluded.owner, blocked_by = excluded.blocked_by, updated_at = excluded.updated_at, removed_at = NULL",
        (tid, source, task_id, subject, description, status, owner, json.dumps(list(blocked_by)), ts, ts),
    )
    if before is None or before[3] is not None or (before[0], before[1], before[2]) != (status, owner, subject):
        con.execute(
            "INSERT INTO task_events(team_id, ts, source, task_id, status, owner, subject) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tid, ts, source, task_id, status, owner, subject),
        )
    text = f"#{task_id} {subject}" + (f"\n{description}" if description else "")
    con.execute(
        "INSERT OR IGNORE INTO entries(team_id, ts, kind, who, text, ref, dedupe) VALUES (?, ?, 'task', ?, ?, ?, ?)",
        (tid, ts, owner, text, task_id, digest("task", source, task_id, subject, description)),
    )


def _task_removed(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    source, task_id = payload
    cur = con.execute(
        "UPDATE tasks SET removed_at = ? WHERE team_id = ? AND source = ? AND task_id = ? AND removed_at IS NULL",
        (ts, tid, source, clean(task_id)),
    )
    if cur.rowcount:
        con.execute(
            "INSERT INTO task_events(team_id, ts, source, task_id, status) VALUES (?, ?, ?, ?, 'removed')",
            (tid, ts, source, clean(task_id)),
        )


def _message(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    sender, recipient, kind, content, summary, at, read, delivered = payload
    at = float(at or 0.0)
    key = message_key(sender, recipient, at, kind, content)
    when = at if at > 0 else ts
    cur = con.execute(
        "INSERT OR IGNORE INTO entries(team_id, ts, kind, who, text, ref, dedupe) VALUES (?, ?, 'message', ?, ?, ?, ?)",
        (tid, when, clean(sender), clean(content), clean(recipient), key),
    )
    entry_id = cur.lastrowid if cur.rowcount else None
    con.execute(
        "INSERT INTO messages(team_id, key, at, seen, sender, recipient, type, summary, read, delivered_at, entry_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(team_id, key) DO UPDATE SET "
        "delivered_at = coalesce(messages.delivered_at, excluded.delivered_at), read = coalesce(excluded.read, messages.read)",
        (
            tid,
            key,
            when,
            ts,
            clean(sender),
            clean(recipient),
            clean(kind),
            clean(summary),
            None if read is None else int(bool(read)),
            ts if delivered else None,
            entry_id,
        ),
    )


def _delivered(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    sender, recipient, kind, content, at = payload
    con.execute(
        "UPDATE messages SET delivered_at = ?, read = 1 WHERE team_id = ? AND key = ? AND delivered_at IS NULL",
        (ts, tid, message_key(sender, recipient, float(at or 0.0), kind, content)),
    )


def _entries(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    kind, lines = payload
    rows = []
    for member, own, level, text, line in lines:
        when = own if isinstance(own, (int, float)) and not isinstance(own, bool) else None
        body = clean(text)
        rows.append(
            (
                tid,
                when if when is not None else ts,
                kind,
                clean(member),
                body,
                "" if line is None else str(line),
                _level(level),
                digest(kind, member, when, line, body),
            )
        )
    con.executemany(
        "INSERT OR IGNORE INTO entries(team_id, ts, kind, who, text, ref, level, dedupe) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def _need_open(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    key, kind, member, text, since = payload
    key = clean(key)
    if con.execute("SELECT 1 FROM needs WHERE team_id = ? AND key = ? AND answered_at IS NULL", (tid, key)).fetchone():
        return
    opened = since if isinstance(since, (int, float)) and since > 0 else ts
    con.execute(
        "INSERT INTO needs(team_id, key, kind, member, text, opened_at) VALUES (?, ?, ?, ?, ?, ?)",
        (tid, key, clean(kind), clean(member), clean(text), opened),
    )
    con.execute(
        "INSERT OR IGNORE INTO entries(team_id, ts, kind, who, text, ref, dedupe) VALUES (?, ?, 'need', ?, ?, ?, ?)",
        (tid, opened, clean(member), clean(text), key, digest("need", key, opened)),
    )


def _need_closed(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    key, answer = payload
    con.execute(
        "UPDATE needs SET answered_at = ?, answer = ? WHERE team_id = ? AND key = ? AND answered_at IS NULL",
        (ts, clean(answer), tid, clean(key)),
    )


def _change(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    member, path, change, task_id, added, removed, detail = payload
    member, path = clean(member), clean(path)
    detail = dict(detail or {})
    twin = con.execute(
        "SELECT detail FROM file_changes WHERE team_id = ? AND ts = ? AND member = ? AND path = ?",
        (tid, ts, member, path),
    ).fetchall()
    uid = detail.get("uid") or ""
    if any(not uid or uid == _uid(d) for (d,) in twin):
        return  # another recorder (or this team read again) said it
    if detail.get("hunks"):
        detail = _within_budget(con, tid, detail)
    con.execute(
        "INSERT INTO file_changes(team_id, ts, member, path, change, task_id, lines_added, lines_removed, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (tid, ts, member, path, clean(change), clean(task_id), added, removed, json.dumps(detail, ensure_ascii=False)),
    )
    con.execute(
        "INSERT OR IGNORE INTO entries(team_id, ts, kind, who, text, ref, dedupe) VALUES (?, ?, 'change', ?, ?, ?, ?)",
        (tid, ts, clean(member), clean(path), clean(change), digest("change", member, path, change, ts)),
    )


def _uid(detail: str) -> str:
    try:
        found = json.loads(detail).get("uid")
    except (ValueError, AttributeError):
        return ""
    return found if isinstance(found, str) else ""


def _within_budget(con: sqlite3.Connection, tid: int, detail: dict[str, Any]) -> dict[str, Any]:
    """An edit's hunks kept while the team's diff text in the database stays within DIFF_BUDGET
    (its running total is in the team's header); past it, the counts only."""
    row = con.execute("SELECT header FROM teams WHERE id = ?", (tid,)).fetchone()
    try:
        header = json.loads(row[0]) if row else {}
    except ValueError:
        header = {}
    header = header if isinstance(header, dict) else {}
    hunks = [
        [*h[:4], [clean(x)[:MAX_LINE] for x in h[4]]] for h in detail["hunks"] if isinstance(h, list) and len(h) == 5
    ]
    size = sum(len(x) for h in hunks for x in h[4])
    kept = header.get("diff_chars", 0) if isinstance(header.get("diff_chars"), int) else 0
    if kept + size > DIFF_BUDGET:
        return {k: v for k, v in detail.items() if k != "hunks"} | {"dropped": True}
    header["diff_chars"] = kept + size
    con.execute("UPDATE teams SET header = ? WHERE id = ?", (json.dumps(header, ensure_ascii=False), tid))
    return detail | {"hunks": hunks}


def _cost_day(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    """A teammate's cost on one local day, as it stands: replaces what was recorded of that day."""
    member, day, usd, tokens, model, unknown = payload
    member = clean(member)
    try:
        at = time.mktime(time.strptime(str(day), "%Y-%m-%d"))  # the day's local midnight: its row's time
        exact = None if usd is None else Decimal(str(usd))
    except (ValueError, OverflowError, InvalidOperation):
        return
    con.execute(
        "DELETE FROM costs WHERE team_id = ? AND member = ? AND ts = ? AND json_extract(detail, '$.day') = ?",
        (tid, member, at, day),
    )
    inp, out, read, write = (int(n or 0) for n in tokens)
    detail = {
        "day": day,
        "usd": None if exact is None else str(exact),
        "unknown_models": [clean(m) for m in unknown][:20],
    }
    con.execute(
        "INSERT INTO costs(team_id, ts, member, model, input_tokens, output_tokens, cache_read_tokens, "
        "cache_write_tokens, usd, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            tid,
            at,
            member,
            clean(model),
            inp,
            out,
            read,
            write,
            None if exact is None else float(exact),
            json.dumps(detail),
        ),
    )


def _cost(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    member, model, input_tokens, output_tokens, cache_read, cache_write, usd, detail = payload
    con.execute(
        "INSERT INTO costs(team_id, ts, member, model, input_tokens, output_tokens, cache_read_tokens, "
        "cache_write_tokens, usd, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            tid,
            ts,
            clean(member),
            clean(model),
            int(input_tokens or 0),
            int(output_tokens or 0),
            int(cache_read or 0),
            int(cache_write or 0),
            usd,
            json.dumps(detail or {}),
        ),
    )


def _event(con: sqlite3.Connection, tid: int, ts: float, payload: tuple) -> None:
    kind, detail = payload
    twin = con.execute(
        "SELECT 1 FROM events WHERE team_id = ? AND kind = ? AND ts BETWEEN ? AND ?",
        (tid, kind, ts - EVENT_TWIN_S, ts + EVENT_TWIN_S),
    ).fetchone()
    if twin is None:
        con.execute(
            "INSERT INTO events(team_id, ts, kind, detail) VALUES (?, ?, ?, ?)", (tid, ts, clean(kind), clean(detail))
        )
    if kind == "team_gone":
        con.execute("UPDATE teams SET ended_at = coalesce(ended_at, ?) WHERE id = ?", (ts, tid))
        # What still waited for the person went with the team (whichever recorder had opened it).
        con.execute(
            "UPDATE needs SET answered_at = ?, answer = 'team ended' WHERE team_id = ? AND answered_at IS NULL",
            (max(ts, 0.0), tid),
        )


HANDLERS = {
    "header": _header,
    "member": _member,
    "task": _task,
    "task_removed": _task_removed,
    "message": _message,
    "delivered": _delivered,
    "entries": _entries,
    "need_open": _need_open,
    "need_closed": _need_closed,
    "change": _change,
    "cost": _cost,
    "cost_day": _cost_day,
    "event": _event,
}


class Txn:
    """The ops of one transaction: each team's id looked up once, its last_seen moved once."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        self.ids: dict[tuple, int] = {}
        self.seen: dict[int, float] = {}

    def team(self, team: TeamIdent, ts: float) -> int:
        tid = self.ids.get(team)
        if tid is None:
            tid = self.ids[team] = team_id(self.con, team, ts)
        if ts > self.seen.get(tid, 0.0):
            self.seen[tid] = ts
        return tid

    def apply(self, op: Op) -> None:
        name, team, ts, payload = op
        HANDLERS[name](self.con, self.team(team, ts), ts, payload)

    def finish(self) -> None:
        for tid, ts in self.seen.items():
            self.con.execute("UPDATE teams SET last_seen = max(last_seen, ?) WHERE id = ?", (ts, tid))
