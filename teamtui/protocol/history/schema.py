"""The history database's tables: one place, so a new kind of record is a table or a column here.

Every record belongs to one team (`team_id`) and has a time (`ts`, epoch seconds: when teamtui saw
it, or the record's own time where it has one). Text that can be searched lives in `entries` (a
message's text, a log or transcript line, a task's subject and description, a changed file's
path, what needed the person); `search` is the FTS5 index over it, kept in step by triggers.
Structured facts live beside it: `messages` (who to whom, delivered when), `tasks` and
`task_events` (spans on the timeline), `members` and `member_events` (lanes), `needs` (opened,
answered), `file_changes` and `costs` (filled by the changes and cost features), `events` (the
lead ended, the team's folder went).

The search index keeps prefix indexes of 3 and 4 characters: `deplo*` over a gigabyte of text
would otherwise merge every matching word's list (seconds); with them it is milliseconds, for
about a third more index. Shorter prefixes are refused by search.py (they match nearly everything).

`PRAGMA user_version` is the schema's version: 0 is an empty file (created here), a newer one
than SCHEMA_VERSION was made by a newer teamtui (never written by this one).
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 1

# The kinds of `entries` (and of search results).
ENTRY_KINDS = ("message", "log", "transcript", "task", "change", "need")

SCHEMA = """
CREATE TABLE teams(
    id INTEGER PRIMARY KEY,
    host TEXT NOT NULL,                 -- '' this machine; else the host it was streamed from
    layout TEXT NOT NULL,               -- native, claude, workflow
    root TEXT NOT NULL,                 -- the real folder it lives under
    name TEXT NOT NULL,
    lead TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    created_at REAL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    ended_at REAL,                      -- its folder went (NULL: live, or not seen to end)
    header TEXT NOT NULL DEFAULT '{}',  -- what else its header said, as JSON (the journal it came from, ...)
    recorded_since REAL,                -- a live recorder's first record: a journal's later records are its too
    UNIQUE(host, layout, root, name)
);
CREATE INDEX teams_name ON teams(name);
CREATE INDEX teams_last_seen ON teams(last_seen);

CREATE TABLE members(
    team_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    agent_type TEXT NOT NULL DEFAULT '',
    color TEXT NOT NULL DEFAULT '',
    backend TEXT NOT NULL DEFAULT '',
    pane TEXT NOT NULL DEFAULT '',
    joined_at REAL,
    left_at REAL,
    PRIMARY KEY(team_id, name)
) WITHOUT ROWID;

CREATE TABLE member_events(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,                 -- joined, left, status
    detail TEXT NOT NULL DEFAULT ''     -- the new status
);
CREATE INDEX member_events_team ON member_events(team_id, ts);

CREATE TABLE tasks(
    team_id INTEGER NOT NULL,
    source TEXT NOT NULL,               -- task (the task list) or assigned (a lead's work without one)
    task_id TEXT NOT NULL,
    subject TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT '',
    owner TEXT NOT NULL DEFAULT '',
    blocked_by TEXT NOT NULL DEFAULT '[]',
    first_seen REAL NOT NULL,
    updated_at REAL NOT NULL,
    removed_at REAL,
    PRIMARY KEY(team_id, source, task_id)
) WITHOUT ROWID;

CREATE TABLE task_events(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    source TEXT NOT NULL,
    task_id TEXT NOT NULL,
    status TEXT NOT NULL,               -- the task's status then, or 'removed'
    owner TEXT NOT NULL DEFAULT '',
    subject TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_events_team ON task_events(team_id, ts);

CREATE TABLE entries(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    kind TEXT NOT NULL,                 -- one of ENTRY_KINDS
    who TEXT NOT NULL DEFAULT '',       -- the sender, the teammate, the task's owner
    text TEXT NOT NULL,
    ref TEXT NOT NULL DEFAULT '',       -- a message's recipient, a task's id, a log line's number
    level TEXT NOT NULL DEFAULT '',
    dedupe INTEGER NOT NULL,            -- a hash of what makes it this entry: two recorders keep one
    tag TEXT GENERATED ALWAYS AS ('t' || team_id || ' k' || kind) VIRTUAL
);
CREATE UNIQUE INDEX entries_dedupe ON entries(team_id, dedupe);
CREATE INDEX entries_team_ts ON entries(team_id, ts, kind, who);

CREATE VIRTUAL TABLE search USING fts5(
    text, tag, content='entries', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='3 4'
);
CREATE TRIGGER entries_indexed AFTER INSERT ON entries BEGIN
    INSERT INTO search(rowid, text, tag) VALUES (new.id, new.text, new.tag);
END;
CREATE TRIGGER entries_unindexed AFTER DELETE ON entries BEGIN
    INSERT INTO search(search, rowid, text, tag) VALUES ('delete', old.id, old.text, old.tag);
END;

CREATE TABLE messages(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    key INTEGER NOT NULL,               -- the entry's dedupe: the same message from two readers is one
    at REAL NOT NULL,                   -- the message's own time
    seen REAL NOT NULL,
    sender TEXT NOT NULL,
    recipient TEXT NOT NULL,
    type TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    read INTEGER,
    delivered_at REAL,                  -- the receipt: it left the recipient's inbox (Claude Code), or was drained
    entry_id INTEGER,
    UNIQUE(team_id, key)
);
CREATE INDEX messages_team_at ON messages(team_id, at);

CREATE TABLE needs(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    key TEXT NOT NULL,                  -- stable while it waits
    kind TEXT NOT NULL,                 -- permission, plan, interrupted, failed, silent, disappeared, held, ...
    member TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL DEFAULT '',
    opened_at REAL NOT NULL,
    answered_at REAL,
    answer TEXT NOT NULL DEFAULT ''     -- how it went: answered, member left, team ended, ...
);
CREATE INDEX needs_team ON needs(team_id, key);

CREATE TABLE file_changes(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    member TEXT NOT NULL DEFAULT '',
    path TEXT NOT NULL,
    change TEXT NOT NULL DEFAULT '',    -- added, modified, deleted, renamed
    task_id TEXT NOT NULL DEFAULT '',
    lines_added INTEGER,
    lines_removed INTEGER,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX file_changes_team ON file_changes(team_id, ts);

CREATE TABLE costs(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    member TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    usd REAL,
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX costs_team ON costs(team_id, ts);

CREATE TABLE events(
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL,
    ts REAL NOT NULL,
    kind TEXT NOT NULL,                 -- lead_ended, team_gone
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX events_team ON events(team_id, ts);

CREATE TABLE imports(
    device INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    path TEXT NOT NULL,
    offset INTEGER NOT NULL,            -- read up to here (a journal only grows, then is rotated aside)
    records INTEGER NOT NULL,
    imported_at REAL NOT NULL,
    confirmed_at REAL,                  -- every record read is in the database
    PRIMARY KEY(device, inode)
);
"""

# Every table holding a team's records, for pruning and forgetting a team.
TEAM_TABLES = (
    "members",
    "member_events",
    "tasks",
    "task_events",
    "entries",
    "messages",
    "needs",
    "file_changes",
    "costs",
    "events",
)


class NewerSchema(Exception):
    """The database was made by a newer teamtui."""


def ensure(con: sqlite3.Connection) -> None:
    """Create the tables in an empty database; refuse a newer one."""
    version = con.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise NewerSchema(f"made by a newer teamtui (schema {version}; this one knows {SCHEMA_VERSION})")
    con.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have created it while this one waited for the lock.
        if con.execute("PRAGMA user_version").fetchone()[0] == 0:
            for statement in _statements(SCHEMA):
                con.execute(statement)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    """The script's statements, one by one (executescript would commit the transaction)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return [s for s in out if s]
