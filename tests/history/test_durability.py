"""Nothing lost: a recording process killed outright keeps everything it committed; two processes
record into one database at once; a damaged or locked-out database is moved aside, rebuilt from
the journals and the team folders, and the person told; a full disk stops the recording with one
clear line, and nothing else stops."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.protocol import NativeTeam
from teamtui.protocol.claude import ClaudeTeam, journal
from teamtui.protocol.claude.journal import TeamJournal
from teamtui.protocol.history.db import quick_check
from teamtui.protocol.history.query import open_history, teams
from teamtui.protocol.history.recorder import HistoryRecorder
from teamtui.protocol.history.writer import HistoryWriter
from teamtui.protocol.state import TeamState
from tests.conftest import copy_fixture

from .conftest import rows

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("recording_worker.py")
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
TEAM = "refactor-auth"


def team_copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(EXAMPLES / "native", root)
    return root


def worker(db: Path, root: Path, sender: str, count: int, shared: Path | None = None) -> subprocess.Popen[str]:
    argv = [sys.executable, str(WORKER), str(db), str(root), TEAM, sender, str(count)] + (
        [str(shared)] if shared else []
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_a_sigkill_while_recording_loses_nothing_committed(tmp_path: Path, db: Path) -> None:
    proc = worker(db, team_copy(tmp_path, "a"), "ada", 0)
    committed = 0
    try:
        assert proc.stdout is not None
        while committed < 200:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "the worker ended"
            if line.startswith("committed "):
                committed = int(line.split()[1])
        os.kill(proc.pid, signal.SIGKILL)  # in the middle of more recording
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    con = sqlite3.connect(db)
    assert quick_check(con) == "ok"
    said = {r[0] for r in con.execute("SELECT text FROM entries WHERE who = 'ada'")}
    con.close()
    assert {f"ada says {i}" for i in range(1, committed + 1)} <= said
    # And the database goes on being written.
    writer = HistoryWriter(db, import_journals=False)
    store = NativeTeam(tmp_path / "a", TEAM)
    TeamState(store, journal=HistoryRecorder.for_store(store, writer)).load_all()
    assert writer.flush() and writer.problems == []
    writer.close()


def test_two_processes_record_into_one_database_at_once(tmp_path: Path, db: Path) -> None:
    shared = team_copy(tmp_path, "shared")
    store = NativeTeam(shared, TEAM)
    for i in range(300):
        store.send("scout", f"SHAREDWORD {i}", "lead")
    procs = [worker(db, team_copy(tmp_path, name), name, 400, shared) for name in ("ada", "bob")]
    outs = [p.communicate(timeout=180) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert json.loads(out.strip().splitlines()[-1]) == [], "no problem in either writer"
    assert rows(db, "SELECT who, count(*) FROM entries WHERE who IN ('ada', 'bob') GROUP BY who") == [
        ("ada", 400),
        ("bob", 400),
    ]
    assert rows(db, "SELECT count(*) FROM entries WHERE text LIKE 'SHAREDWORD %'") == [(300,)], (
        "one copy of what both saw"
    )
    assert len(rows(db, "SELECT id FROM teams")) == 3
    con = sqlite3.connect(db)
    assert quick_check(con) == "ok"
    con.close()


@pytest.fixture
def journaled_team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code team in the journal (its folder since deleted), and a native team's folder in the cwd."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    root = copy_fixture(EXAMPLES / "claude-2.1.328" / "tmux-running", tmp_path / "claude")
    store = ClaudeTeam(root, "session-421dba11")
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    inbox = store.inbox_path("alice")
    inbox.write_text(
        json.dumps(
            [{"from": "teamtui", "text": "JOURNALWORD", "timestamp": "2026-11-23T08:22:26.517Z", "msg_id": "m-1"}]
        )
    )
    state.apply(inbox)
    journal.flush()
    shutil.rmtree(store.team_dir)
    native = team_copy(tmp_path, "project")
    monkeypatch.chdir(native)
    return tmp_path / "xdg" / "teamtui" / "history" / "history.sqlite3"


def test_a_damaged_database_is_moved_aside_rebuilt_and_said(journaled_team: Path, tmp_path: Path) -> None:
    db = journaled_team
    first = HistoryWriter(db)
    store = NativeTeam(Path.cwd(), TEAM)
    TeamState(store, journal=HistoryRecorder.for_store(store, first)).load_all()
    assert first.flush()
    first.close()
    with open(db, "r+b") as fh:  # a torn write over the file's first page
        fh.write(b"\x00garbage" * 64)
    told: list[str] = []
    writer = HistoryWriter(db)
    writer.listen(told.append)
    recorder = HistoryRecorder.for_store(store, writer)
    state = TeamState(store, journal=recorder)
    state.load_all()
    store.send("hunter", "AFTERREBUILD", "teamtui")
    state.apply(store.inbox_path("hunter"))
    assert writer.flush(30)
    writer.close()
    [line] = told
    assert line.startswith(f"history: {db} was damaged (") and "moved aside to history.sqlite3.damaged-" in line
    assert "rebuilt from 1 journal file" in line and "1 team folder" in line
    [aside] = [p for p in db.parent.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes().startswith(b"\x00garbage")  # kept for a person to look at
    con = open_history(db)
    assert {t.name for t in teams(con)} == {"session-421dba11", TEAM}
    texts = {r[0] for r in con.execute("SELECT text FROM entries WHERE kind = 'message'")}
    assert {"JOURNALWORD", "AFTERREBUILD"} <= texts
    assert writer.stopped == ""


def test_the_cli_finds_a_cut_database_rebuilds_it_and_says_so(journaled_team: Path) -> None:
    db = journaled_team
    con = open_history(db)
    con.execute("CREATE TABLE filler(x)")
    con.executemany("INSERT INTO filler VALUES (?)", [("x" * 2000,) for _ in range(2000)])
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with open(db, "r+b") as fh:  # the file cut short (a crash of the disk, not of teamtui)
        fh.truncate(db.stat().st_size // 3)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-m", "teamtui", "search", "JOURNALWORD"], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "history.sqlite3 was damaged" in out.stderr and "moved aside" in out.stderr and "rebuilt from" in out.stderr
    assert "session-421dba11" in out.stdout and "«JOURNALWORD»" in out.stdout


def test_a_database_locked_by_a_stuck_process_is_moved_aside(
    tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    open_history(db).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sqlite3,time\nc=sqlite3.connect({str(db)!r}, isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE')\nprint('holding', flush=True)\ntime.sleep(600)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        told: list[str] = []
        writer = HistoryWriter(db, lock_patience=1.0, busy_timeout=0.2)
        writer.listen(told.append)
        store = NativeTeam(team_copy(tmp_path, "n"), TEAM)
        TeamState(store, journal=HistoryRecorder.for_store(store, writer)).load_all()
        assert writer.flush(30)
        writer.close()
    finally:
        holder.kill()
        holder.wait()
    [line] = told
    assert "was locked by another process for too long" in line and "moved aside to history.sqlite3.locked-" in line
    assert [t.name for t in teams(open_history(db))] == [TEAM]


@pytest.fixture
def tiny_disk(tmp_path: Path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here ({done.stderr.strip() or done.returncode}): needs root")
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_stops_recording_with_one_clear_line_and_nothing_else(tiny_disk: Path, tmp_path: Path) -> None:
    db = tiny_disk / "teamtui" / "history.sqlite3"
    told: list[str] = []
    writer = HistoryWriter(db, import_journals=False)
    writer.listen(told.append)
    store = NativeTeam(team_copy(tmp_path, "n"), TEAM)
    state = TeamState(store, journal=HistoryRecorder.for_store(store, writer))
    state.load_all()
    n = 0
    while not writer.stopped and n < 5000:
        n += 1
        store.log("scout", f"line {n} " + os.urandom(400).hex())
        assert state.apply(store.log_paths("scout")[0]), "the team is still read"
        if n % 20 == 0:
            writer.flush(30)
    assert writer.stopped, f"{n} lines and the disk never filled"
    assert told == [f"history: {writer.stopped}"]
    assert "is full: history recording stopped" in writer.stopped and str(db) in writer.stopped
    store.log("scout", "STILL READ")  # the dashboard's side goes on
    changes = state.apply(store.log_paths("scout")[0])
    assert [e.text for c in changes for e in c.entries] == ["STILL READ"]
    writer.close()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert con.execute("SELECT count(*) FROM entries").fetchone()[0] > 0, "what was recorded before is kept"
    con.close()


def test_a_problem_found_before_anyone_listened_is_handed_to_the_first_listener_as_untold(tmp_path: Path) -> None:
    """A room that opens after the writer found a problem still toasts it; a second room, whose
    writer already told the first, shows it without a toast."""
    db = tmp_path / "history.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 99")  # made by a newer teamtui: a problem, said in words
    con.close()
    store = NativeTeam(team_copy(tmp_path, "root"), TEAM)
    writer = HistoryWriter(db)
    TeamState(store, journal=HistoryRecorder.for_store(store, writer)).load_all()
    writer.flush()
    [line] = writer.problems
    assert "newer teamtui" in line
    told: list[str] = []
    assert writer.listen(told.append) == [(line, False)]  # nobody was told: the first room toasts it
    assert writer.listen(told.append) == [(line, True)]  # the first room was: the next only shows it
    writer.close()
    assert told == []  # nothing new was found after they listened
