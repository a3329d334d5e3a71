"""The board of the reference designs on real team files: cw-dispatch's task scope in the
file-conflict check, its failure count and blocked tasks, Specflow's TOUCHING_FILE, and a
late `complete` from an owner the task was taken back from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from teamtui.protocol.board import Board, TaskState
from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.errors import ConflictError, ParseError
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import complete_as, record_failure, retry
from teamtui.protocol.teammate import Teammate
from teamtui.protocol.touching import load_touches, note_broadcasts, record_touch, touched, touched_path


@pytest.fixture
def team(tmp_path: Path) -> NativeTeam:
    store = NativeTeam(tmp_path, "cw-team")
    store.create()
    for name in ("worker-1", "worker-2"):
        store.add_member(name)
    return store


def _board(store) -> Board:
    tasks, errors = store.list_tasks()
    assert errors == []
    return Board(tasks, load_touches(store)[0])


def _view(store, tid: str):
    board = _board(store)
    return board.view(board.tasks[tid])


# ----------------------------------------------------------------------------- scope


def test_cw_dispatch_scope_in_task_metadata_takes_part_in_the_conflict_check(team):
    a = team.create_task("Add login route")
    b = team.create_task("Refactor session store")
    c = team.create_task("Unrelated docs")
    team.update_task(
        a.id,
        metadata={"scope": {"files_to_create": ["src/routes/login.ts"], "files_to_modify": ["src/lib/session.ts"]}},
    )
    team.update_task(b.id, metadata={"scope": {"files_to_create": [], "files_to_modify": ["src/lib/session.ts"]}})
    team.update_task(c.id, metadata={"scope": {"files_to_modify": ["README.md"]}})
    team.claim_task(a.id, "worker-1")

    view = _view(team, b.id)
    assert view.state is TaskState.WITHHELD
    assert view.conflicts_with == [a.id]
    assert f"file conflict with #{a.id}" in view.blocked_reason
    assert _view(team, c.id).state is TaskState.READY
    # The next ready task for another worker skips the conflicting one.
    assert team.claim_task(None, "worker-2").id == c.id
    with pytest.raises(ConflictError, match="file conflict"):
        team.claim_task(b.id, "worker-2")
    team.complete_task(a.id)
    assert _view(team, b.id).state is TaskState.READY


def test_scope_against_plain_files_both_ways(team):
    a = team.create_task("files only", files=["src/a.py"])
    b = team.create_task("scope only")
    team.update_task(b.id, metadata={"scope": {"files_to_modify": ["src/a.py"]}})
    team.claim_task(b.id, "worker-1")
    assert _view(team, a.id).conflicts_with == [b.id]


def test_claude_code_task_list_with_scope_shows_the_conflict(claude_root: Path):
    tasks_dir = claude_root / "tasks" / "work-team"
    for p in tasks_dir.glob("*.json"):
        p.unlink()
    scope = {"files_to_create": ["src/x.ts"], "files_to_modify": ["src/shared.ts"]}
    (tasks_dir / "1.json").write_text(
        json.dumps(
            {
                "id": "1",
                "subject": "T1",
                "status": "in_progress",
                "owner": "worker-1",
                "blocks": [],
                "blockedBy": [],
                "metadata": {"scope": scope},
            }
        )
    )
    (tasks_dir / "2.json").write_text(
        json.dumps(
            {
                "id": "2",
                "subject": "T2",
                "status": "pending",
                "blocks": [],
                "blockedBy": [],
                "metadata": {"scope": {"files_to_modify": ["src/shared.ts"]}},
            }
        )
    )
    store = ClaudeTeam(claude_root, "work-team")
    tasks, errors = store.list_tasks()
    assert errors == []
    board = Board(tasks)
    v = board.view(board.tasks["2"])
    assert (v.state, v.conflicts_with) == (TaskState.WITHHELD, ["1"])


def test_malformed_scope_is_ignored_not_fatal(team):
    a = team.create_task("odd scope", files=["ok.py"])
    team.update_task(a.id, metadata={"scope": {"files_to_create": "not-a-list", "files_to_modify": [3, None, "x.py"]}})
    board = _board(team)
    assert board.view(board.tasks[a.id]).state is TaskState.READY


# ----------------------------------------------------------------------------- failures


def test_failures_are_counted_and_the_third_holds_the_task_until_retry(team):
    t = team.create_task("flaky migration")
    for n in (1, 2):
        team.claim_task(t.id, "worker-1")
        f = record_failure(team, t.id, f"exit code {n}", max_failures=3)
        assert (f.count, f.held, f.previous_owner) == (n, False, "worker-1")
        assert f.task.owner == "" and f.task.status.value == "pending"
        assert _view(team, t.id).state is TaskState.READY
    team.claim_task(t.id, "worker-2")
    f = record_failure(team, t.id, "cw-execute failed: tests red")
    assert (f.count, f.held) == (3, True)

    view = _view(team, t.id)
    assert view.state is TaskState.BLOCKED
    assert "failed 3 times" in view.blocked_reason and "tests red" in view.blocked_reason
    assert team.claim_task(None, "worker-1") is None  # never assigned again ...
    with pytest.raises(ConflictError, match="failed 3 times"):
        team.claim_task(t.id, "worker-1")
    # The count lives in the sidecar's metadata; the task file keeps only the peers' eight keys.
    side = json.loads(team.sidecar_path(t.id).read_text())
    assert side["metadata"]["failure_count"] == 3
    assert "metadata" not in json.loads(team.task_path(t.id).read_text())

    retry(team, t.id)  # ... until retried
    assert _view(team, t.id).state is TaskState.READY
    assert team.claim_task(None, "worker-1").id == t.id


def test_max_failures_from_the_caller(team):
    t = team.create_task("x")
    assert record_failure(team, t.id, "boom", max_failures=1).held
    assert _view(team, t.id).state is TaskState.BLOCKED


def test_a_failure_reported_for_someone_no_longer_holding_it_changes_nothing(team):
    t = team.create_task("x")
    team.claim_task(t.id, "worker-2")
    with pytest.raises(ConflictError, match="not held by worker-1"):
        record_failure(team, t.id, "late", owner="worker-1")
    again = team.get_task(t.id)
    assert again.owner == "worker-2" and "failure_count" not in again.metadata


def test_failing_a_completed_task_or_retrying_a_healthy_one_is_refused(team):
    t = team.create_task("x")
    team.complete_task(t.id)
    with pytest.raises(ConflictError, match="already completed"):
        record_failure(team, t.id, "x")
    u = team.create_task("y")
    with pytest.raises(ConflictError, match="no failures"):
        retry(team, u.id)


def test_failures_keep_metadata_a_peer_wrote_in_the_task_file(team):
    t = team.create_task("x")
    raw = json.loads(team.task_path(t.id).read_text())
    raw["metadata"] = {"scope": {"files_to_modify": ["a.py"]}}
    team.task_path(t.id).write_text(json.dumps(raw))
    record_failure(team, t.id, "boom")
    task = team.get_task(t.id)
    assert task.metadata["scope"] == {"files_to_modify": ["a.py"]}
    assert task.metadata["failure_count"] == 1


def test_an_unparsable_sidecar_is_never_rewritten_by_a_failure(team):
    t = team.create_task("x")
    team.sidecar_path(t.id).write_text("{not json")
    with pytest.raises(ParseError):
        record_failure(team, t.id, "boom")
    assert team.sidecar_path(t.id).read_text() == "{not json"


# ----------------------------------------------------------------------------- late complete


def test_a_late_complete_from_the_old_owner_of_a_released_task_is_refused(team):
    t = team.create_task("x")
    team.claim_task(t.id, "worker-1")
    record_failure(team, t.id, "disappeared: no activity for 60s", owner="worker-1")
    with pytest.raises(ConflictError, match="taken back from worker-1"):
        complete_as(team, t.id, "worker-1", "done anyway")
    team.claim_task(t.id, "worker-2")
    with pytest.raises(ConflictError, match="held by worker-2"):
        complete_as(team, t.id, "worker-1")
    done = complete_as(team, t.id, "worker-2", "merged")
    assert done.status.value == "completed" and done.result == "merged"


def test_the_python_teammate_api_refuses_a_late_complete_too(team):
    t = team.create_task("x")
    me = Teammate(team.root, team.name, "worker-1")
    me.claim(t.id)
    record_failure(team, t.id, "crashed", owner="worker-1")
    with pytest.raises(ConflictError):
        me.complete(t.id, "late")
    assert team.get_task(t.id).status.value == "pending"


# ----------------------------------------------------------------------------- TOUCHING_FILE


def test_touching_file_parse():
    assert touched_path("TOUCHING_FILE src/lib/auth.ts") == "src/lib/auth.ts"
    assert touched_path("  TOUCHING_FILE src/a b.ts \n") == "src/a b.ts"
    assert touched_path("TOUCHING_FILE") is None
    assert touched_path("touching src/x") is None
    assert touched_path("TOUCHING_FILE a\nTOUCHING_FILE b") is None
    # A trailing ` for #N` names the sender's task (the demo's broadcasts): it is not part of the path.
    assert touched("TOUCHING_FILE tests/test_login.py for #10") == ("tests/test_login.py", "10")
    assert touched("TOUCHING_FILE src/a b.ts  for  #3 ") == ("src/a b.ts", "3")
    assert touched("TOUCHING_FILE src/lib/auth.ts") == ("src/lib/auth.ts", "")
    assert touched("TOUCHING_FILE notes for #3 and #4.md") == ("notes for #3 and #4.md", "")
    assert touched_path("TOUCHING_FILE for #3") == "for #3"  # no path before it: the words are the path


def test_a_broadcast_for_a_task_touches_its_path_bound_to_that_task(team):
    first = team.create_task("Issue #10")
    second = team.create_task("Issue #11")
    waiting = team.create_task("Issue #12", files=["tests/test_login.py"])
    team.claim_task(first.id, "worker-1")
    team.claim_task(second.id, "worker-1")
    Teammate(team.root, team.name, "worker-1").broadcast(f"TOUCHING_FILE tests/test_login.py for #{second.id}")
    (touch,) = load_touches(team)[0]
    assert (touch.path, touch.task) == ("tests/test_login.py", second.id)  # the task it named, not the first held
    assert _view(team, waiting.id).waits_on == [("tests/test_login.py", "worker-1")]
    team.complete_task(first.id)
    assert _view(team, waiting.id).state is TaskState.WITHHELD  # its own task still runs
    team.complete_task(second.id)
    assert _view(team, waiting.id).state is TaskState.READY


def test_a_touched_file_withholds_the_ready_task_that_uses_it_until_the_senders_task_completes(team):
    mine = team.create_task("Issue #50", files=["src/features/profile.tsx"])
    other = team.create_task("Issue #51", files=["src/lib/auth.ts"])
    free = team.create_task("Issue #52", files=["src/features/settings.tsx"])
    team.claim_task(mine.id, "worker-1")
    me = Teammate(team.root, team.name, "worker-1")
    me.broadcast("TOUCHING_FILE ./src/lib/auth.ts")

    view = _view(team, other.id)
    assert view.state is TaskState.WITHHELD
    assert view.waits_on == [("src/lib/auth.ts", "worker-1")]
    assert "waits on src/lib/auth.ts (touched by worker-1)" in view.blocked_reason
    assert _view(team, free.id).state is TaskState.READY
    assert team.claim_task(None, "worker-2").id == free.id

    team.complete_task(mine.id)
    assert _view(team, other.id).state is TaskState.READY


def test_the_lead_records_touches_from_broadcasts_it_drains(team):
    t = team.create_task("uses it", files=["src/hooks/useAuth.ts"])
    team.broadcast("TOUCHING_FILE src/hooks/useAuth.ts", "worker-2")  # written by a peer: nothing recorded yet
    assert _view(team, t.id).state is TaskState.READY
    touches = note_broadcasts(team, team.drain("lead").messages)
    assert [(x.path, x.by, x.task) for x in touches] == [("src/hooks/useAuth.ts", "worker-2", "")]
    # Sent while holding no task: it counts until the sender next completes one.
    assert _view(team, t.id).waits_on == [("src/hooks/useAuth.ts", "worker-2")]
    u = team.create_task("worker-2's next")
    team.claim_task(u.id, "worker-2")
    team.complete_task(u.id)
    assert _view(team, t.id).state is TaskState.READY


def test_touches_file_is_bounded_and_deduplicated(team):
    for _ in range(3):
        record_touch(team, "a.py", "worker-1")
    touches, err = load_touches(team)
    assert err is None and [t.path for t in touches] == ["a.py"]


def test_an_unreadable_touches_file_is_reported_and_never_rewritten(team):
    path = team.team_dir / "touching.json"
    path.write_text("[oops")
    touches, err = load_touches(team)
    assert touches == [] and err is not None
    with pytest.raises(ParseError):
        record_touch(team, "a.py", "worker-1")
    assert path.read_text() == "[oops"
    # The board still works without them.
    t = team.create_task("x", files=["a.py"])
    assert team.claim_task(None, "worker-1").id == t.id


def test_hostile_touch_paths_are_only_data(team):
    t = team.create_task("x", files=["../../etc/passwd"])
    record_touch(team, "../../etc/passwd", "worker-1")
    assert _view(team, t.id).waits_on == [("../../etc/passwd", "worker-1")]
    assert not (team.root.parent / "etc").exists()
    shutil.rmtree(team.team_dir / "logs", ignore_errors=True)


def test_without_a_limit_the_teams_max_failures_from_its_config_applies(team):
    # What per-task teammates and the CLI rely on: the lead writes the team file's max_failures there.
    team.update_config(lambda d: d.update(max_failures=2))
    t = team.create_task("x")
    assert not record_failure(team, t.id, "one").held
    assert record_failure(team, t.id, "two").held


def test_the_dashboards_state_shows_a_touched_file_and_lets_it_go(team):
    from teamtui.protocol.changes import ChangeKind
    from teamtui.protocol.state import TeamState
    from teamtui.protocol.touching import touches_path

    mine = team.create_task("mine", files=["src/lib/auth.ts"])
    other = team.create_task("other", files=["src/lib/auth.ts"])
    team.claim_task(mine.id, "worker-1")
    state = TeamState(team)
    state.load_all()
    assert state.board.view(state.tasks[other.id]).state is TaskState.WITHHELD  # claimed by #1 already
    team.complete_task(mine.id)
    state.apply(team.task_path(mine.id))
    state.apply(team.sidecar_path(mine.id))
    assert state.board.view(state.tasks[other.id]).state is TaskState.READY

    nxt = team.create_task("worker-1's next")
    state.apply(team.task_path(nxt.id))
    team.claim_task(nxt.id, "worker-1")
    state.apply(team.task_path(nxt.id))
    record_touch(team, "./src/lib/auth.ts", "worker-1")
    changes = state.apply(touches_path(team))
    assert Change_for(changes, ChangeKind.TASK, other.id)
    view = state.board.view(state.tasks[other.id])
    assert (view.state, view.waits_on) == (TaskState.WITHHELD, [("src/lib/auth.ts", "worker-1")])
    assert "waits on src/lib/auth.ts (touched by worker-1)" in view.blocked_reason
    # The sender's task completes: the board frees the file on that task's change alone.
    team.complete_task(nxt.id)
    state.apply(team.task_path(nxt.id))
    assert other.id in state.board.affected_by({nxt.id}, state.board.claimed_files())
    assert state.board.view(state.tasks[other.id]).state is TaskState.READY


def Change_for(changes, kind, key) -> bool:
    return any(c.kind == kind and c.key == key for c in changes)
