"""A Claude Code lead without a task list: the board shows the work it handed out (its Agent calls,
its messages, the teammates' idle notices), from the real 2.1.328 files and synthetic lines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from teamtui.protocol.board import TaskState
from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.claude.transcripts.assignments import PROMPT_KEPT, AssignmentLog, calls_in
from teamtui.protocol.layout import find_team
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.state import TeamState
from tests.conftest import copy_fixture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
LEAD = "421dba11-a86f-4c03-bd8f-13c51d730076.jsonl"  # the tmux team's lead transcript
BEFORE_IDLE = 37  # its lines before the teammates' idle notices arrive


def copy(tmp_path: Path, case: str) -> Path:
    return copy_fixture(FIXTURES / case, tmp_path / case)


def lead_file(root: Path) -> Path:
    return root / "projects" / "-src-app" / LEAD


def loaded(root: Path) -> TeamState:
    state = TeamState(find_team(root))
    state.load_all()
    state.load_transcripts()
    return state


def rows(state: TeamState) -> list[tuple[str, str, str, str]]:
    """(id, subject, owner, board state) of every row of the board."""
    return [(v.task.id, v.task.subject, v.task.owner, v.state.value) for v in state.board.views()]


def line(rec: dict) -> bytes:
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


def assistant(ts: str, *blocks: dict, mid: str) -> bytes:
    msg = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-5-5",
        "content": list(blocks),
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 5},
    }
    return line(
        {
            "parentUuid": None,
            "isSidechain": False,
            "message": msg,
            "type": "assistant",
            "timestamp": ts,
            "version": "2.1.328",
        }
    )


def agent_call(tid: str, name: str, description: str, prompt: str) -> dict:
    return {
        "type": "tool_use",
        "id": tid,
        "name": "Agent",
        "input": {"description": description, "prompt": prompt, "name": name},
    }


def send_call(tid: str, to: str, message: str, summary: str = "") -> dict:
    return {
        "type": "tool_use",
        "id": tid,
        "name": "SendMessage",
        "input": {"to": to, "message": message, "summary": summary},
    }


def delivered(ts: str, sender: str, payload: dict) -> bytes:
    """A protocol message as the lead's transcript shows it arriving."""
    body = f'<teammate-message teammate_id="{sender}">\n{json.dumps(payload)}\n</teammate-message>'
    return line(
        {
            "type": "user",
            "message": {"role": "user", "content": "Another Claude session sent a message:\n" + body},
            "timestamp": ts,
            "version": "2.1.328",
        }
    )


def tool_error(ts: str, tid: str, text: str) -> bytes:
    block = {
        "tool_use_id": tid,
        "type": "tool_result",
        "content": f"<tool_use_error>{text}</tool_use_error>",
        "is_error": True,
    }
    return line(
        {"type": "user", "message": {"role": "user", "content": [block]}, "timestamp": ts, "version": "2.1.328"}
    )


def idle(sender: str, ts: str, **extra) -> dict:
    return {"type": "idle_notification", "from": sender, "timestamp": ts, "idleReason": "available", **extra}


def cut_lead(root: Path, keep: int = BEFORE_IDLE) -> Path:
    path = lead_file(root)
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:keep]))
    return path


def append(path: Path, *lines: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(b"".join(lines))


# ---------------------------------------------------------------- the real files


def test_the_agent_calls_of_the_real_lead_are_the_board(tmp_path: Path) -> None:
    state = loaded(copy(tmp_path, "tmux-running"))
    assert state.task_source == "assignments"
    # The Agent calls' description, the teammate they name, done: each went idle with a result.
    assert rows(state) == [("a1", "probe alice", "alice", "completed"), ("a2", "probe bob", "bob", "completed")]
    a1 = state.board.tasks["a1"]
    assert a1.description == "TMALICE: you are alice. Reply briefly."  # the Agent call's prompt
    assert a1.result == "hello from the mock"  # the idle notice's result
    assert a1.metadata["assigned_by"] == "Agent"
    assert state.board.progress() == (2, 2)
    assert all(v.current_task is None for v in state.member_views())  # nothing in progress


def test_the_lead_exited_and_bob_left_the_work_is_still_done(tmp_path: Path) -> None:
    state = loaded(copy(tmp_path, "tmux-after-bob-shutdown"))
    # bob finished before he was asked to stop: his assignment stays done, not failed.
    assert rows(state) == [("a1", "probe alice", "alice", "completed"), ("a2", "probe bob", "bob", "completed")]


def test_in_progress_until_the_idle_notice_then_done_with_its_result(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    path = cut_lead(root)
    state = loaded(root)
    assert rows(state) == [("a1", "probe alice", "alice", "in_progress"), ("a2", "probe bob", "bob", "in_progress")]
    current = {v.name: v.current_task.id if v.current_task else None for v in state.member_views()}
    assert current == {"alice": "a1", "bob": "a2"}  # the team panel's "Current task"
    append(
        path,
        delivered("2026-11-23T07:02:47.871Z", "alice", idle("alice", "2026-11-23T07:02:47.009Z", result="auth fixed")),
    )
    changes = state.apply_batch([path])
    assert (ChangeKind.TASK_COMPLETED, "a1", "probe alice") in [(c.kind, c.key, c.detail) for c in changes]
    assert rows(state)[0] == ("a1", "probe alice", "alice", "completed")
    assert state.board.tasks["a1"].result == "auth fixed"
    assert [v.current_task.id for v in state.member_views() if v.current_task] == ["a2"]


def test_a_later_message_from_the_lead_is_new_work_and_a_follow_up_is_not(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    path = lead_file(root)
    state = loaded(root)
    append(
        path,
        assistant(
            "2026-11-23T07:05:00.000Z",
            send_call("toolu_50", "alice", "Now write the tests\nfor the login flow.", "write tests"),
            mid="msg_50",
        ),
    )
    state.apply_batch([path])
    assert rows(state)[-1] == ("a3", "write tests", "alice", "in_progress")
    assert state.board.tasks["a3"].description == "Now write the tests\nfor the login flow."
    assert state.board.tasks["a3"].metadata["assigned_by"] == "message"
    # More words while she works are about the same work; a message to someone outside the team is none.
    append(
        path,
        assistant("2026-11-23T07:05:10.000Z", send_call("toolu_51", "alice", "also cover logout"), mid="msg_51"),
        assistant("2026-11-23T07:05:11.000Z", send_call("toolu_52", "dashboard", "hello"), mid="msg_52"),
    )
    state.apply_batch([path])
    assert [r[0] for r in rows(state)] == ["a1", "a2", "a3"]


def test_a_task_assignment_in_a_teammates_transcript_is_work_without_a_task_list(tmp_path: Path) -> None:
    root = copy(tmp_path, "inprocess-running")
    shutil.rmtree(root / "tasks")  # the task list gone: the assignments show
    state = loaded(root)
    assert state.task_source == "assignments"
    # The Agent calls, then task #1's assignment as alice's transcript shows it arriving; all done.
    assert rows(state) == [
        ("a1", "probe alice", "alice", "completed"),
        ("a2", "probe bob", "bob", "completed"),
        ("a3", "probe task one", "alice", "completed"),
    ]
    assert state.board.tasks["a3"].description == "TASKDESC one"
    assert state.board.tasks["a3"].metadata["assigned_by"] == "task_assignment"


# ---------------------------------------------------------------- the task list wins


def test_a_real_task_list_wins(tmp_path: Path) -> None:
    state = loaded(copy(tmp_path, "inprocess-running"))
    assert state.task_source == "task list"
    assert [r[:3] for r in rows(state)] == [("1", "probe task one", "alice"), ("2", "probe task two", "")]
    assert state.assigned  # known, not shown


def test_a_task_list_appearing_replaces_the_assignments_and_leaving_brings_them_back(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    state = loaded(root)
    assert state.task_source == "assignments"
    tasks = root / "tasks" / "session-421dba11"
    tasks.mkdir(parents=True)
    task = tasks / "1.json"
    task.write_text(
        json.dumps(
            {"id": "1", "subject": "real task", "description": "", "status": "pending", "blocks": [], "blockedBy": []}
        )
    )
    changes = state.apply(task)
    assert {(c.kind, c.key) for c in changes} >= {
        (ChangeKind.TASK_REMOVED, "a1"),
        (ChangeKind.TASK_REMOVED, "a2"),
        (ChangeKind.TASK, "1"),
    }
    assert state.task_source == "task list"
    assert [r[0] for r in rows(state)] == ["1"]
    task.unlink()
    state.apply(task)
    assert state.task_source == "assignments"
    assert [r[0] for r in rows(state)] == ["a1", "a2"]


# ---------------------------------------------------------------- failures


def test_a_teammate_that_reports_failure_or_leaves_fails_its_work(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    path = cut_lead(root)
    state = loaded(root)
    append(
        path,
        delivered(
            "2026-11-23T07:03:00.000Z",
            "alice",
            idle("alice", "2026-11-23T07:02:59.000Z", failureReason="tests kept failing"),
        ),
    )
    state.apply_batch([path])
    view = state.board.view(state.board.tasks["a1"])
    assert view.state == TaskState.FAILED
    assert view.blocked_reason == "failed: tests kept failing"
    # bob is taken out of members (he shut down) with his work open.
    config = root / "teams" / "session-421dba11" / "config.json"
    cfg = json.loads(config.read_text())
    cfg["members"] = [m for m in cfg["members"] if m["name"] != "bob"]
    config.write_text(json.dumps(cfg))
    changes = state.apply_batch([config])
    assert (ChangeKind.TASK, "a2") in [(c.kind, c.key) for c in changes]
    assert rows(state) == [("a1", "probe alice", "alice", "failed"), ("a2", "probe bob", "bob", "failed")]
    assert (
        state.board.view(state.board.tasks["a2"]).blocked_reason == "failed: left the team before it reported a result"
    )
    assert state.board.progress() == (0, 2)


def test_a_terminated_teammate_and_a_spawn_that_failed(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    path = cut_lead(root)
    append(
        path,
        delivered(
            "2026-11-23T07:03:00.000Z", "system", {"type": "teammate_terminated", "message": "bob has shut down."}
        ),
        assistant("2026-11-23T07:04:00.000Z", agent_call("toolu_60", "carol", "probe carol", "TMCAROL"), mid="msg_60"),
        tool_error("2026-11-23T07:04:01.000Z", "toolu_60", "Team is at capacity"),
    )
    state = loaded(root)
    assert rows(state) == [
        ("a1", "probe alice", "alice", "in_progress"),
        ("a2", "probe bob", "bob", "failed"),
        ("a3", "probe carol", "carol", "failed"),
    ]
    assert state.board.view(state.board.tasks["a2"]).blocked_reason == "failed: terminated before it reported a result"
    assert state.board.view(state.board.tasks["a3"]).blocked_reason == "failed: not delivered: Team is at capacity"


def test_the_calls_in_the_head_of_a_long_transcript_count_once_it_is_read(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    state = TeamState(find_team(root), log_limit=3)  # a window of 3 lines: the Agent calls are in the head
    state.load_all()
    assert state.transcripts is not None
    state.take_transcripts(state.transcript_files.read(from_end=True))
    assert state.counting_heads and state.task_source == ""  # ids in the order given: wait for the head
    assert state.take_heads(state.count_heads())
    assert rows(state) == [("a1", "probe alice", "alice", "completed"), ("a2", "probe bob", "bob", "completed")]


# ---------------------------------------------------------------- bounds and order


def test_a_long_prompt_is_cut() -> None:
    rec = json.loads(
        assistant("2026-11-23T07:04:00.000Z", agent_call("t1", "alice", "big", "x" * (PROMPT_KEPT * 3)), mid="m")
    )
    (call,) = calls_in(rec)
    assert len(call.text) == PROMPT_KEPT and call.text.endswith("…")


def test_the_log_is_bounded_and_its_ids_stable() -> None:
    log = AssignmentLog(limit=10)
    rec = json.loads(
        assistant(
            "2026-11-23T07:04:00.000Z", *[agent_call(f"t{i}", f"m{i}", f"job {i}", "go") for i in range(30)], mid="m"
        )
    )
    log.add_calls(calls_in(rec))
    first = log.derive(lead="team-lead")
    assert len(first) == 10
    assert log.derive(lead="team-lead").keys() == first.keys()


def test_ids_sort_by_their_number() -> None:
    ids = ["a10", "a2", "a1", "3", "b", "a"]
    assert sorted(ids, key=lambda i: Task(id=i).sort_key()) == ["3", "a", "a1", "a2", "a10", "b"]
    assert Task(id="a1").status == TaskStatus.PENDING
