"""Cross-process guarantees with real processes (spawn), never threads: inbox appends and
drains, exactly-once claims, and recovery from a lock holder killed with SIGKILL."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import time
from collections import Counter
from pathlib import Path

import proto_workers
import pytest

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.errors import LockTimeout
from teamtui.protocol.locks import STALE_AFTER, DirLock, FileLock
from teamtui.protocol.native import NativeTeam
from tests.conftest import join_all

CTX = mp.get_context("spawn")
# Generous: only reached if something hangs, never a speed assertion.
JOIN_TIMEOUT = 120


def _join_all(procs: list) -> None:
    join_all(procs, JOIN_TIMEOUT)


def _team(tmp_path: Path, members: tuple[str, ...] = ("sink",)) -> NativeTeam:
    store = NativeTeam(tmp_path, "race")
    store.create()
    for m in members:
        store.add_member(m)
    return store


@pytest.mark.parametrize(
    ("n_writers", "per_writer"),
    [(8, 500), pytest.param(16, 2000, marks=pytest.mark.stress)],
)
def test_writers_into_one_inbox_while_it_is_drained(tmp_path: Path, n_writers: int, per_writer: int) -> None:
    store = _team(tmp_path)
    start, stop = CTX.Event(), CTX.Event()
    out = tmp_path / "drained.json"
    drainer = CTX.Process(target=proto_workers.native_drainer, args=(str(tmp_path), "race", "sink", str(out), stop))
    writers = [
        CTX.Process(target=proto_workers.native_writer, args=(str(tmp_path), "race", "sink", w, per_writer, start))
        for w in range(n_writers)
    ]
    drainer.start()
    for p in writers:
        p.start()
    start.set()
    _join_all(writers)
    stop.set()
    _join_all([drainer])

    result = json.loads(out.read_text())
    assert result["errors"] == []
    counts = Counter(result["contents"])
    expected = {f"w{w}-{i}" for w in range(n_writers) for i in range(per_writer)}
    assert set(counts) == expected
    assert max(counts.values()) == 1
    assert len(result["contents"]) == n_writers * per_writer
    # Each writer's messages arrive in the order it wrote them.
    for w in range(n_writers):
        mine = [c for c in result["contents"] if c.startswith(f"w{w}-")]
        assert mine == [f"w{w}-{i}" for i in range(per_writer)]
    assert store.inbox_path("sink").read_bytes() == b""
    assert not (store.team_dir / ".rejected").exists()
    assert not store.inbox_lock_path("sink").exists()


def test_claude_inbox_writers_in_parallel_lose_nothing(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    before = [m.raw for m in store.peek("researcher").messages]
    start = CTX.Event()
    writers = [
        CTX.Process(
            target=proto_workers.claude_writer, args=(str(claude_root), "work-team", "researcher", w, 60, start)
        )
        for w in range(6)
    ]
    for p in writers:
        p.start()
    start.set()
    _join_all(writers)

    read = store.peek("researcher")
    assert read.errors == []
    assert [m.raw for m in read.messages[: len(before)]] == before
    texts = Counter(m.content for m in read.messages[len(before) :])
    assert set(texts) == {f"c{w}-{i}" for w in range(6) for i in range(60)}
    assert max(texts.values()) == 1
    assert not (store.inbox_path("researcher").with_name("researcher.json.lock")).exists()


def test_8_processes_racing_claim_over_200_ready_tasks(tmp_path: Path) -> None:
    store = _team(tmp_path, ())
    for i in range(200):
        store.create_task(f"task {i}")
    start = CTX.Event()
    outs = [tmp_path / f"claimed-{w}.json" for w in range(8)]
    procs = [
        CTX.Process(target=proto_workers.claimer, args=(str(tmp_path), "race", f"w{w}", str(outs[w]), start))
        for w in range(8)
    ]
    for p in procs:
        p.start()
    start.set()
    _join_all(procs)

    claimed = {f"w{w}": json.loads(outs[w].read_text()) for w in range(8)}
    all_ids = [tid for ids in claimed.values() for tid in ids]
    assert sorted(all_ids, key=int) == [str(i) for i in range(1, 201)]
    tasks, errors = store.list_tasks()
    assert errors == []
    for owner, ids in claimed.items():
        for tid in ids:
            t = next(t for t in tasks if t.id == tid)
            assert (t.owner, t.status.value) == (owner, "in_progress")


# ---------------------------------------------------------------- killed lock holders


def _kill_holder(kind: str, lock_path: Path, tmp_path: Path) -> None:
    marker = tmp_path / f"held-{kind}"
    child = CTX.Process(target=proto_workers.hold_lock_forever, args=(kind, str(lock_path), str(marker)))
    child.start()
    try:
        while not marker.exists():
            assert child.is_alive(), "the lock holder died before taking the lock"
            time.sleep(0.01)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.join(JOIN_TIMEOUT)
    assert child.exitcode == -signal.SIGKILL
    assert lock_path.exists()  # the dead holder left its lock behind


def test_default_stale_period_is_10_seconds() -> None:
    assert STALE_AFTER == 10.0
    assert FileLock(Path("x.lock")).stale_after == 10.0
    assert DirLock(Path("x.lock")).stale_after == 10.0


def test_sigkilled_filelock_holder_is_recovered_and_nothing_is_lost(tmp_path: Path) -> None:
    store = _team(tmp_path)
    for i in range(5):
        store.send("sink", f"before-{i}", "lead")
    lock_path = store.inbox_lock_path("sink")
    _kill_holder("file", lock_path, tmp_path)

    # Not yet stale: a writer keeps out.
    with pytest.raises(LockTimeout):
        FileLock(lock_path, stale_after=60, timeout=0.2).acquire()
    # With a short stale period the next writer gets in.
    with FileLock(lock_path, stale_after=0.3, timeout=30):
        assert store.inbox_path("sink").read_text().count("\n") == 5
    store.send("sink", "after", "lead")
    assert [m.content for m in store.drain("sink").messages] == [*(f"before-{i}" for i in range(5)), "after"]


def test_store_writer_breaks_a_lock_older_than_the_default_stale_period(tmp_path: Path) -> None:
    store = _team(tmp_path)
    store.send("sink", "before", "lead")
    lock_path = store.inbox_lock_path("sink")
    _kill_holder("file", lock_path, tmp_path)
    # Age the dead holder's lock past STALE_AFTER instead of waiting 10 s.
    old = time.time() - STALE_AFTER - 1
    os.utime(lock_path, (old, old))
    store.send("sink", "after", "lead")
    assert [m.content for m in store.drain("sink").messages] == ["before", "after"]
    assert not lock_path.exists()


def test_sigkilled_dirlock_holder_is_recovered_and_nothing_is_lost(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    before = [m.raw for m in store.peek("writer").messages]
    store.send("writer", "one more", "teamtui")
    lock_path = store.inbox_path("writer").with_name("writer.json.lock")
    _kill_holder("dir", lock_path, claude_root.parent)
    assert lock_path.is_dir()

    with pytest.raises(LockTimeout):
        DirLock(lock_path, stale_after=60, timeout=0.2).acquire()
    with DirLock(lock_path, stale_after=0.3, timeout=30):
        pass
    assert not lock_path.exists()
    store.send("writer", "after", "teamtui")
    old = time.time() - STALE_AFTER - 1
    # And the store's own writer breaks a lock older than the default period.
    os.mkdir(lock_path)
    os.utime(lock_path, (old, old))
    store.send("writer", "after stale", "teamtui")
    msgs = store.peek("writer").messages
    assert [m.raw for m in msgs[: len(before)]] == before
    assert [m.content for m in msgs[len(before) :]] == ["one more", "after", "after stale"]
