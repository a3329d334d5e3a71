"""teamtui's history: every team it watches or runs, recorded in one SQLite database.

What each team was (its header), who joined and left, its tasks and the lead's assignments, its
messages and their receipts, what each teammate did (log lines, transcript text and tool calls),
what needed the person and how it was answered, the files it changed and what it cost. Recorded
as it is seen (`recorder.HistoryRecorder`, the observer TeamState tells of every batch), written by
one thread per process (`writer.HistoryWriter`), searched (`search.py`, SQLite's FTS5), drawn as a
timeline (`timeline.py`, `report.py`). Nothing here imports more than the standard library and
teamtui.protocol; this module itself only names where the database lives (cheap: the CLI imports it).

    schema.py    the tables (one place; a new kind of record is a new table or column there)
    db.py        opening it (WAL), telling damage and lock-outs apart, moving a bad file aside
    ops.py       the writes, one function per kind of record (the writer, the importer, a rebuild)
    writer.py    the one writer thread: batches, commits, and the problems it hit (a full disk)
    recorder.py  HistoryRecorder: a TeamState's batches → records (cheap: built on the caller's thread)
    importer.py  the JSON-lines journals (protocol/claude/journal.py) read in, once
    rebuild.py   a damaged database moved aside and rebuilt from the journals and the team folders
    query.py     reading: the teams, one team's records, an ended team as a TeamState
    search.py    full-text search: safe query syntax, results with the match marked
    timeline.py  a team's history as lanes, spans and ticks (pure)
    report.py    one self-contained HTML report of a team
"""

from __future__ import annotations

import os
from pathlib import Path

DB_NAME = "history.sqlite3"


def state_dir() -> Path:
    """$XDG_STATE_HOME/teamtui (default ~/.local/state/teamtui)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "teamtui"


def db_path() -> Path:
    """The one history database of this user, in a folder of its own: a watcher waiting on
    $XDG_STATE_HOME/teamtui/ for a folder to appear (the runs' registry) must not wake at every
    commit (the WAL, the lock and a moved-aside file live beside the database)."""
    return state_dir() / "history" / DB_NAME
