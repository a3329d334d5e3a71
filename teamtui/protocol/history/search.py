"""Full-text search over every team's history (SQLite's FTS5), with a query syntax a person can't break.

What a person types: words (all must match), `"an exact phrase"`, `deploy*` (a prefix of three
letters or more), `OR`
between two alternatives, `NOT` before what must not match (`build NOT staging`). Every word and
phrase reaches FTS5 quoted, so punctuation, FTS5's own operators in lower case, column names and
unbalanced parentheses are text, never syntax; what cannot be searched (an unclosed quote, a
lone operator, nothing at all) is a `QueryError` that says so.

Results are the newest by their time (`ts`), not by when they were written: a batch (a team first
seen, a journal read in late) writes records out of time order, so the last written are not the
newest. The matches are sorted whole (SQLite keeps the top `limit`; the snippet is made for those
only): about 0.2 µs a match, 50 ms for a word in 250,000 entries. Each has its team, who, when,
what kind of record, and the matching text with the match marked (`segments`: (text, is_match) pairs).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

from teamtui.protocol.history.ops import MARKS
from teamtui.protocol.history.schema import ENTRY_KINDS

DEFAULT_LIMIT = 50
# Words of context around a match in a result.
SNIPPET_TOKENS = 24
_OPERATORS = ("OR", "NOT", "AND")
# A line break (and the blanks around it) in a result shown on one line.
_BREAK = re.compile(r"[ \t]*(?:\r\n|[\n\r\v\f\x85\u2028\u2029])+[ \t]*")
# The shortest prefix searched (schema.py keeps prefix indexes of 3 and 4 characters).
MIN_PREFIX = 3


class QueryError(ValueError):
    """The query cannot be searched: the message says why, for a person."""


def fts_query(text: str) -> str:
    """A person's query as a safe FTS5 expression (raises QueryError)."""
    parts: list[str] = []  # quoted terms and operators, in order
    text = text.replace("\x00", " ")  # FTS5 reads its query as a C string: a NUL would end it
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == '"':
            close = text.find('"', i + 1)
            if close < 0:
                raise QueryError('a quote is not closed: put a " after the phrase')
            phrase = text[i + 1 : close]
            i = close + 1
            if _has_word(phrase):
                starred = text[i : i + 1] == "*"
                parts.append(_prefix(phrase) if starred else _quote(phrase))
                i += 1 if starred else 0
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] != '"':
            j += 1
        word = text[i:j]
        i = j
        if word in _OPERATORS:
            parts.append(word)
        elif word.endswith("*") and _has_word(word[:-1]):
            parts.append(_prefix(word.rstrip("*")))
        elif _has_word(word):
            parts.append(_quote(word))
    return _check(parts)


def _has_word(s: str) -> bool:
    return any(ch.isalnum() for ch in s)


def _prefix(s: str) -> str:
    last = s.split()[-1] if s.split() else s
    if sum(ch.isalnum() for ch in last) < MIN_PREFIX:
        raise QueryError(f"give at least {MIN_PREFIX} letters before * ({s}* would match nearly everything)")
    return _quote(s) + "*"


def _quote(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def _check(parts: list[str]) -> str:
    if not any(p not in _OPERATORS for p in parts):
        raise QueryError('nothing to search for: give a word or a "phrase"')
    out: list[str] = []
    for k, p in enumerate(parts):
        if p in _OPERATORS:
            before = out[-1] if out else None
            after = parts[k + 1] if k + 1 < len(parts) else None
            if before is None or before in _OPERATORS:
                raise QueryError(f"{p} needs a word before it, e.g. 'build {p} staging'")
            if after is None or after in _OPERATORS:
                raise QueryError(f"{p} needs a word after it, e.g. 'build {p} staging'")
        out.append(p)
    return " ".join(out)


@dataclass
class SearchHit:
    entry_id: int
    team_id: int
    team: str
    host: str
    layout: str
    root: str
    at: float
    kind: str  # message, log, transcript, task, change, need
    who: str
    ref: str  # a message's recipient, a task's id, ...
    segments: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str]:
        """The control room's key of the hit's team (query.TeamRow.key)."""
        return (f"ssh:{self.host}", self.root, self.team) if self.host else (self.layout, self.root, self.team)

    @property
    def text(self) -> str:
        return "".join(s for s, _ in self.segments)

    def one_line(self) -> list[tuple[str, bool]]:
        """`segments` for a result on one line: each line break a space (a task is its subject, a
        line break, its description)."""
        return [(_BREAK.sub(" ", s), hit) for s, hit in self.segments]

    def as_json(self) -> dict[str, object]:
        marked, pos = [], 0
        for s, hit in self.segments:
            if hit:
                marked.append([pos, pos + len(s)])
            pos += len(s)
        return {
            "team": self.team,
            "host": self.host,
            "layout": self.layout,
            "root": self.root,
            "at": self.at,
            "kind": self.kind,
            "who": self.who,
            "to" if self.kind == "message" else "ref": self.ref,
            "text": self.text,
            "marked": marked,
        }


def segments(snippet: str) -> list[tuple[str, bool]]:
    """snippet()'s text split at its marks: (text, is_match) pairs."""
    start, end = MARKS
    out: list[tuple[str, bool]] = []
    rest = snippet
    while rest:
        a = rest.find(start)
        if a < 0:
            out.append((rest, False))
            break
        if a:
            out.append((rest[:a], False))
        b = rest.find(end, a + 1)
        b = len(rest) if b < 0 else b
        if b > a + 1:
            out.append((rest[a + 1 : b], True))
        rest = rest[b + 1 :]
    return out


def search(
    con: sqlite3.Connection,
    query: str,
    *,
    team: str | None = None,
    team_ids: list[int] | None = None,
    since: float | None = None,
    kinds: tuple[str, ...] = (),
    limit: int = DEFAULT_LIMIT,
) -> list[SearchHit]:
    """The newest `limit` entries matching `query` (the person's syntax), optionally of the teams
    called `team` (or of `team_ids`), seen since `since`, of `kinds`. Raises QueryError."""
    expr = f"text : ({fts_query(query)})"
    ids = list(team_ids or [])
    if team is not None:
        ids += [row[0] for row in con.execute("SELECT id FROM teams WHERE name = ?", (team,))]
        if not ids:
            return []
    if ids:
        expr += " AND tag : (" + " OR ".join(f"t{int(i)}" for i in ids) + ")"
    if kinds:
        wanted = [f"k{k}" for k in kinds if k in ENTRY_KINDS]
        if not wanted:
            return []
        expr += " AND tag : (" + " OR ".join(wanted) + ")"
    sql = (
        "SELECT e.id, e.team_id, e.ts, e.kind, e.who, e.ref, "
        f"snippet(search, 0, char(2), char(3), '…', {SNIPPET_TOKENS}) "
        "FROM search JOIN entries e ON e.id = search.rowid WHERE search MATCH ?"
        + (" AND e.ts >= ?" if since is not None else "")
        + " ORDER BY e.ts DESC, e.id DESC LIMIT ?"
    )
    args: tuple = (expr, since, limit) if since is not None else (expr, limit)
    try:
        rows = con.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc).lower() or "syntax" in str(exc).lower():
            raise QueryError(f"this query cannot be searched ({exc})") from exc
        raise
    teams = _teams(con, {r[1] for r in rows})
    hits = []
    for entry_id, team_id, ts, kind, who, ref, snippet in rows:
        name, host, layout, root = teams.get(team_id, ("?", "", "", ""))
        hits.append(SearchHit(entry_id, team_id, name, host, layout, root, ts, kind, who, ref, segments(snippet or "")))
    return hits


def _teams(con: sqlite3.Connection, ids: set[int]) -> dict[int, tuple[str, str, str, str]]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {
        row[0]: (row[1], row[2], row[3], row[4])
        for row in con.execute(f"SELECT id, name, host, layout, root FROM teams WHERE id IN ({marks})", tuple(ids))
    }
