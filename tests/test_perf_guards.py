"""Performance guards without timing: they count files opened, bytes read and buffer sizes,
so a change that makes the live view re-read or hoard more fails here, not only in `make bench`.

(One task update re-reading one file by TeamState's own count is in
tests/protocol/test_proto_tail.py; here the same is checked by counting real opens.)
"""

from __future__ import annotations

import builtins
import json
import os
from pathlib import Path

import pytest

from teamtui.protocol import NativeTeam, TeamState
from teamtui.protocol.store.logs import LOG_TAIL_BYTES_PER_LINE
from teamtui.protocol.tail import TailReader

TEAM = "refactor-auth"


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every path opened through os.open or open() while the test runs."""
    seen: list[Path] = []
    real_os_open, real_open = os.open, builtins.open

    def os_open(path, *a, **kw):
        seen.append(Path(os.fsdecode(path)))
        return real_os_open(path, *a, **kw)

    def open_(file, *a, **kw):
        if isinstance(file, (str, bytes, os.PathLike)):
            seen.append(Path(os.fsdecode(file)))
        return real_open(file, *a, **kw)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(builtins, "open", open_)
    return seen


def _line(text: str) -> bytes:
    return (json.dumps({"ts": 1.0, "level": "info", "text": text}) + "\n").encode()


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


def _loaded(root: Path, **kw) -> tuple[NativeTeam, TeamState]:
    store = NativeTeam(root, TEAM)
    state = TeamState(store, **kw)
    state.load_all()
    return store, state


def test_one_task_update_opens_only_that_task_file(native_root: Path, opened: list[Path]) -> None:
    store, state = _loaded(native_root)
    path = store.task_path("3")
    data = json.loads(path.read_text())
    data["subject"] = "changed"
    path.write_text(json.dumps(data))
    opened.clear()
    state.apply(path)
    assert set(opened) == {path}, "a task update must open its own file and nothing else"


def test_one_log_append_opens_only_that_log(native_root: Path, opened: list[Path]) -> None:
    store, state = _loaded(native_root)
    path = store.logs_dir / "hunter.jsonl"
    _append(path, _line("one more"))
    opened.clear()
    changes = state.apply(path)
    assert set(opened) == {path}
    assert [e.text for c in changes for e in c.entries] == ["one more"]


def test_a_log_append_reads_only_the_new_bytes(native_root: Path) -> None:
    store, state = _loaded(native_root)
    path = store.logs_dir / "hunter.jsonl"
    _append(path, b"".join(_line(f"filler {i}") for i in range(2000)))
    state.apply(path)
    reader = state._log_readers[path].tail
    for n in (1, 7, 1):
        new = b"".join(_line(f"new {n} {i}") for i in range(n))
        before = reader.bytes_read
        _append(path, new)
        state.apply(path)
        assert reader.bytes_read - before == len(new)
    before = reader.bytes_read
    state.apply(path)  # an event with nothing new (e.g. a metadata change) reads nothing
    assert reader.bytes_read == before


def test_tail_reader_reads_each_byte_once(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_bytes(b"")
    reader = TailReader(path)
    total = 0
    for i in range(50):
        piece = b"x" * (i * 37) + b"\n" + b"partial" * (i % 3)
        _append(path, piece)
        total += len(piece)
        reader.read_all()
        assert reader.bytes_read == total


def test_an_inbox_append_reads_only_the_new_bytes(native_root: Path) -> None:
    store, state = _loaded(native_root)
    inbox = state._inboxes["hunter"]
    for i in range(3):
        before = inbox.tail.bytes_read
        msg = (
            json.dumps({"type": "message", "sender": "lead", "content": f"m{i}", "timestamp": 2.0 + i}) + "\n"
        ).encode()
        _append(store.inbox_path("hunter"), msg)
        state.apply(store.inbox_path("hunter"))
        assert inbox.tail.bytes_read - before == len(msg)


def test_first_load_of_a_huge_log_reads_only_its_tail(native_root: Path) -> None:
    path = NativeTeam(native_root, TEAM).logs_dir / "hunter.jsonl"
    _append(path, _line("y" * 200) * 20000)  # ~4.6 MB
    _store, state = _loaded(native_root, log_limit=100)
    assert state._log_readers[path].tail.bytes_read <= 100 * LOG_TAIL_BYTES_PER_LINE
    assert len(state.logs["hunter"]) == 100


def test_log_buffers_never_exceed_their_bound(native_root: Path) -> None:
    limit = 50
    store, state = _loaded(native_root, log_limit=limit)
    path = store.logs_dir / "hunter.jsonl"
    for burst in (1, limit - 1, limit, limit + 1, 5 * limit, 3):
        _append(path, b"".join(_line(f"b{burst}-{i}") for i in range(burst)))
        changes = state.apply(path)
        assert len(state.logs["hunter"]) <= limit
        # A burst bigger than the bound hands on no more than the bound either.
        assert sum(len(c.entries) for c in changes) <= limit
        assert state.logs["hunter"][-1].text == f"b{burst}-{burst - 1}"
    assert all(len(buf) <= limit for buf in state.logs.values())


def test_message_buffers_never_exceed_their_bound(native_root: Path) -> None:
    limit = 20
    store, state = _loaded(native_root, message_limit=limit)
    for name in ("hunter", "scout"):
        lines = b"".join(
            (
                json.dumps({"type": "message", "sender": "lead", "content": f"{name} {i}", "timestamp": 10.0 + i})
                + "\n"
            ).encode()
            for i in range(3 * limit)
        )
        _append(store.inbox_path(name), lines)
        state.apply(store.inbox_path(name))
        assert len(state.inbox_messages(name)) <= limit
        assert len(state.messages) <= limit
    assert state.inbox_messages("scout")[-1].content == f"scout {3 * limit - 1}"


def test_a_file_outside_the_team_reads_nothing(native_root: Path, opened: list[Path]) -> None:
    _store, state = _loaded(native_root)
    stray = native_root / "notes.txt"
    stray.write_text("hello")
    before = state.files_read
    opened.clear()
    assert state.apply(stray) == []
    assert state.files_read == before and opened == []


# ---------------------------------------------------------------- the board, updated in place


def _random_task(rnd, tid: int, ids: int):
    from teamtui.protocol.models import Task, TaskStatus

    status = rnd.choice(list(TaskStatus))
    return Task(
        id=str(tid),
        subject=f"s{rnd.randrange(1000)}",
        status=status,
        owner=rnd.choice(["", "hunter", "scout", "ghost"]),
        blocked_by=[str(rnd.randrange(1, ids + 3)) for _ in range(rnd.randrange(3))],
        files=rnd.sample(["a.py", "b.py", "c.py", "d.py"], rnd.randrange(3)),
    )


def _snapshot(board) -> dict:
    views = board.views()
    return {
        "order": [t.id for t in board.ordered()],
        "views": {v.task.id: (v.state, v.open_blockers, v.missing, v.conflicts_with) for v in views},
        "progress": board.progress(),
        "claimed": board.claimed_files(),
        "current": {k: t.id for k, t in board.current_tasks().items()},
        "dependents": {t.id: board.dependents(t.id) for t in board.tasks.values()},
    }


def test_a_board_updated_in_place_answers_as_a_fresh_one() -> None:
    """Board.put/remove keep their indexes (order, progress, claimed files, dependents) instead of
    rebuilding: after every step they must answer exactly as a board built from scratch, and
    affected_by must name every task whose view changed."""
    import random

    from teamtui.protocol.board import Board

    rnd = random.Random(6)
    ids = 40
    tasks = {str(i): _random_task(rnd, i, ids) for i in range(1, ids + 1)}
    board = Board(tasks.values())
    _snapshot(board)  # build the indexes, so that the steps below exercise keeping them
    for _ in range(400):
        before = _snapshot(board)
        claimed_before = board.claimed_files()
        tid = str(rnd.randrange(1, ids + 6))
        if rnd.random() < 0.1 and tid in tasks:
            del tasks[tid]
            board.remove(tid)
        else:
            tasks[tid] = _random_task(rnd, int(tid), ids)
            board.put(tasks[tid])
        now = _snapshot(board)
        assert now == _snapshot(Board(tasks.values()))
        changed = {i for i in now["views"] if now["views"][i] != before["views"].get(i)}
        assert changed <= board.affected_by({tid}, claimed_before) | {tid}


def test_a_task_update_keeps_the_state_board(native_root: Path) -> None:
    store, state = _loaded(native_root)
    board = state.board
    board.views()
    path = store.task_path("3")
    data = json.loads(path.read_text())
    data["subject"] = "changed"
    path.write_text(json.dumps(data))
    state.apply(path)
    assert state.board is board, "one task update must not rebuild the board from every task"
    assert board.tasks["3"].subject == "changed" and [t.id for t in board.ordered()] == sorted(board.tasks, key=int)
