"""Task board semantics on real task files, and telling the two layouts apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from teamtui.protocol import Board, ClaudeTeam, ConflictError, NativeTeam, TaskState, detect_layout, find_team
from teamtui.protocol.errors import NotFoundError
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.layout import open_team, team_names

# Here, not `from conftest import`: with tests/tmux collected too, "conftest" may be its conftest.
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"

TEAM = "refactor-auth"


def _states(store: NativeTeam) -> dict[str, str]:
    tasks, errors = store.list_tasks()
    assert errors == []
    return {v.task.id: v.state.value for v in Board(tasks).views()}


def test_example_board(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    tasks, _ = store.list_tasks()
    board = Board(tasks)
    views = {v.task.id: v for v in board.views()}
    assert {k: v.state for k, v in views.items()} == {
        "1": TaskState.COMPLETED,
        "2": TaskState.IN_PROGRESS,
        "3": TaskState.READY,
        "4": TaskState.BLOCKED,
        "5": TaskState.BLOCKED,
    }
    assert views["4"].blocked_reason == "blocked by #2"
    assert views["5"].blocked_reason == "blocked by #4, missing dependency #9"

    assert board.missing_dependencies() == {"5": ["9"]}
    assert board.progress() == (1, 5)
    assert [t.id for t in board.ready()] == ["3"]


def test_several_blockers_are_named_after_the_words_once() -> None:
    tasks = [
        Task(id="1", subject="a"),
        Task(id="2", subject="b"),
        Task(id="3", subject="c", status=TaskStatus.COMPLETED),
        Task(id="4", subject="d", blocked_by=["1", "2", "3", "8", "9"]),
    ]
    view = Board(tasks).view(tasks[3])
    assert view.blocked_reason == "blocked by #1, #2, missing dependencies #8, #9"


def test_ready_needs_pending_no_owner_and_every_blocker_completed(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "t")
    store.create()
    a = store.create_task("a")
    b = store.create_task("b", blocked_by=[a.id])
    c = store.create_task("c", owner="someone")
    assert _states(store) == {"1": "ready", "2": "blocked", "3": "assigned"}
    assert store.get_task(a.id).blocks == [b.id]  # the reverse edge, as peers keep it
    with pytest.raises(ConflictError, match="blocked by #1"):
        store.claim_task(b.id, "x")
    with pytest.raises(ConflictError, match="assigned to someone"):
        store.claim_task(c.id, "x")
    assert store.claim_task(None, "x").id == a.id
    assert store.claim_task(None, "y") is None  # b still waits on a
    with pytest.raises(ConflictError, match="in progress"):
        store.claim_task(a.id, "y")


def test_completing_a_task_makes_its_dependents_ready(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "t")
    store.create()
    a = store.create_task("a")
    b = store.create_task("b", blocked_by=[a.id])
    c = store.create_task("c", blocked_by=[a.id, b.id])
    store.claim_task(a.id, "x")
    store.complete_task(a.id)
    assert _states(store) == {"1": "completed", "2": "ready", "3": "blocked"}
    store.claim_task(None, "x")
    store.complete_task(b.id)
    assert _states(store)[c.id] == "ready"


def test_a_blocker_removed_from_every_list_no_longer_blocks(tmp_path: Path) -> None:
    # One peer removes a completed id from blocked_by lists; the dependent is then ready.
    store = NativeTeam(tmp_path, "t")
    store.create()
    a = store.create_task("a")
    b = store.create_task("b", blocked_by=[a.id])
    store.update_task(b.id, blocked_by=[])
    assert _states(store)[b.id] == "ready"


def test_missing_dependency_blocks_and_is_reported(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "t")
    store.create()
    t = store.create_task("x", blocked_by=["42"])
    tasks, _ = store.list_tasks()
    view = Board(tasks).views()[0]
    assert (view.state, view.missing) == (TaskState.BLOCKED, ["42"])
    assert store.claim_task(None, "w") is None
    with pytest.raises(ConflictError, match="missing dependency #42"):
        store.claim_task(t.id, "w")


def test_release_returns_a_task_to_pending_with_no_owner(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "t")
    store.create()
    a = store.create_task("a")
    b = store.create_task("b")
    store.claim_task(a.id, "dead")
    store.claim_task(b.id, "dead")
    released = store.release_task(a.id)
    assert (released.status.value, released.owner) == ("pending", "")
    assert store.release_owner("dead") == [b.id]
    assert _states(store) == {"1": "ready", "2": "ready"}
    store.claim_task(a.id, "x")
    store.complete_task(a.id)
    with pytest.raises(ConflictError, match="already completed"):
        store.release_task(a.id)


def test_file_conflict_filter_withholds_overlapping_ready_tasks(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "t")
    store.create()
    a = store.create_task("a", files=["src/x.py", "src/y.py"])
    b = store.create_task("b", files=["src/y.py"])
    c = store.create_task("c", files=["src/z.py"])
    store.claim_task(a.id, "w1")
    tasks, _ = store.list_tasks()
    board = Board(tasks)
    views = {v.task.id: v for v in board.views()}
    assert views[b.id].state == TaskState.WITHHELD and views[b.id].conflicts_with == [a.id]
    assert [t.id for t in board.ready()] == [c.id]
    assert [t.id for t in board.ready(respect_files=False)] == [b.id, c.id]
    assert store.claim_task(None, "w2").id == c.id
    assert store.claim_task(None, "w3") is None
    store.complete_task(a.id)
    assert store.claim_task(None, "w3").id == b.id


def test_files_in_the_sidecar_never_land_in_the_peer_task_file(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "t")
    store.create()
    t = store.create_task("a", files=["f.py"], blocked_by=[])
    raw = json.loads(store.task_path(t.id).read_text())
    assert set(raw) == {"id", "subject", "description", "status", "active_form", "owner", "blocks", "blocked_by"}
    assert store.get_task(t.id).files == ["f.py"]


def test_next_id_is_highest_plus_one(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.task_path("3").unlink()
    assert store.create_task("new").id == "6"


# ---------------------------------------------------------------- layouts


def test_layout_detection(tmp_path: Path, native_root: Path, claude_root: Path) -> None:
    assert detect_layout(native_root) == "native"
    assert detect_layout(claude_root) == "claude"
    assert detect_layout(tmp_path / "empty") is None
    assert team_names(native_root) == [TEAM]
    assert team_names(claude_root) == ["work-team"]
    assert isinstance(find_team(native_root), NativeTeam)
    assert isinstance(find_team(claude_root), ClaudeTeam)


def test_layout_override_reads_the_other_layout(tmp_path: Path) -> None:
    both = tmp_path / "both"
    shutil.copytree(EXAMPLES / "native", both)
    shutil.copytree(EXAMPLES / "claude", both, dirs_exist_ok=True)
    assert detect_layout(both) == "native"
    assert find_team(both).name == TEAM
    claude = find_team(both, layout="claude")
    assert isinstance(claude, ClaudeTeam) and claude.name == "work-team"
    assert isinstance(open_team(both, "work-team", "claude"), ClaudeTeam)


def test_find_team_errors_are_clear(tmp_path: Path, native_root: Path) -> None:
    with pytest.raises(NotFoundError, match="no team found"):
        find_team(tmp_path)
    with pytest.raises(NotFoundError, match="no team 'nope'"):
        find_team(native_root, "nope")
    NativeTeam(native_root, "second").create()
    with pytest.raises(NotFoundError, match="several teams"):
        find_team(native_root)


def test_claude_team_writes_tasks_is_refused(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    before = sorted(p.name for p in store.tasks_dir.iterdir())
    from teamtui.protocol import UnsupportedError

    for attempt in (
        lambda: store.create_task("x"),
        lambda: store.claim_task(None, "researcher"),
        lambda: store.complete_task("2"),
        lambda: store.release_task("2"),
        lambda: store.drain("writer"),
    ):
        with pytest.raises(UnsupportedError, match="not supported for claude teams"):
            attempt()
    assert sorted(p.name for p in store.tasks_dir.iterdir()) == before


def test_the_boards_kept_indexes_follow_put_and_remove() -> None:
    """What the room asks on every batch (declared files, tasks with metadata) is kept by the board
    through put and remove, and equals a scan of every task."""

    def scan(board: Board) -> tuple[dict, set]:
        declared = {
            t.id: tuple(t.files) for t in board.tasks.values() if t.owner and t.status == "in_progress" and t.files
        }
        return declared, {t.id for t in board.tasks.values() if t.metadata}

    def task(i: int, **kw) -> Task:
        return Task.model_validate({"id": str(i), "subject": f"t{i}", **kw})

    board = Board([task(1), task(2, owner="ana", status="in_progress", files=["a.py"])])
    assert (board.declared_files(), set(board.with_metadata())) == scan(board)
    for t in (
        task(3, owner="bo", status="in_progress", files=["b.py"], metadata={"failures": 1}),
        task(2, owner="ana", status="completed", files=["a.py"]),  # done: declares nothing now
        task(1, metadata={"x": 1}),
        task(3, owner="bo", status="in_progress", files=["b.py", "c.py"]),  # metadata gone
    ):
        board.put(t)
        assert (board.declared_files(), set(board.with_metadata())) == scan(board)
    board.remove("3")
    assert (board.declared_files(), set(board.with_metadata())) == scan(board) == ({}, {"1"})


def test_current_tasks_follow_a_task_under_way_that_changes_its_subject() -> None:
    def task(i: int, **kw) -> Task:
        return Task.model_validate({"id": str(i), "subject": f"t{i}", **kw})

    board = Board([task(1, owner="ana", status="in_progress"), task(2, owner="ana", status="in_progress")])
    assert board.current_tasks()["ana"].subject == "t1"
    board.put(task(1, owner="ana", status="in_progress", subject="renamed"))
    assert board.current_tasks()["ana"].subject == "renamed"
    board.put(task(1, owner="ana", status="completed"))
    assert board.current_tasks()["ana"].id == "2"
    board.put(task(2, owner="bo", status="in_progress"))
    assert set(board.current_tasks()) == {"bo"} and board.current_tasks()["bo"].id == "2"
