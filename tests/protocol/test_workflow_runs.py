"""Claude Code's workflow runs as teams, from the real 2.1.331 files (tests/fixtures/claude-workflow):
each run's status, its agents as members, its agent() calls as the board's steps, an agent's
transcript in the log buffers, the run followed live, and the runs listed beside session teams."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamtui.protocol import processes
from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.errors import UnsupportedError
from teamtui.protocol.fleet import discover_fleet, fleet_rows, row_json
from teamtui.protocol.layout import find_team, open_team
from teamtui.protocol.models import MemberStatus
from teamtui.protocol.settings import load_settings
from teamtui.protocol.state import TeamState
from teamtui.protocol.workflow import WorkflowRun, recent_runs, run_id_of, run_name
from teamtui.session.local_team import open_local
from tests.conftest import writable

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-workflow"
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
RUNS = {  # case -> (session id, run id)
    "running": ("2dea95bc-8389-45c4-becb-755f5c99e7ad", "wf_4e0e88a0-7e7"),
    "completed": ("2dea95bc-8389-45c4-becb-755f5c99e7ad", "wf_4e0e88a0-7e7"),
    "failed": ("674ae69e-d9c5-4d62-a1b3-1d00346b8c7f", "wf_2226302a-502"),
    "killed": ("3e1c949b-3cbc-40ad-920c-25574109d1c1", "wf_f05720df-f66"),
}
BOOM = "API Error: 400 WFBROKEN: the fake model refuses"


def copy_case(tmp_path: Path, case: str, dest: str | None = None) -> Path:
    """The fixture's config dir, copied (and made writable), every file written now."""
    root = tmp_path / (dest or case)
    shutil.copytree(FIXTURES / case / "projects", root / "projects", dirs_exist_ok=True)
    return writable(root, touch=True)


def name_of(case: str) -> str:
    return run_name("probe-flow", RUNS[case][1])


def run_dir(root: Path, case: str) -> Path:
    sid, rid = RUNS[case]
    return root / "projects" / "-src-app" / sid / "subagents" / "workflows" / rid


def record_path(root: Path, case: str) -> Path:
    sid, rid = RUNS[case]
    return root / "projects" / "-src-app" / sid / "workflows" / f"{rid}.json"


def loaded(root: Path, case: str) -> TeamState:
    state = TeamState(open_team(root, name_of(case)))
    state.load_all()
    return state


def steps(state: TeamState) -> list[tuple[str, str, str, str, str]]:
    """(id, subject, owner, board state, why) of every step, in board order."""
    return [(v.task.id, v.task.subject, v.task.owner, v.state.value, v.held) for v in state.board.views()]


def members(state: TeamState) -> dict[str, MemberStatus]:
    assert state.config is not None
    return {m.name: m.status for m in state.config.members}


# ------------------------------------------------------------------ each run as it stands


@pytest.mark.parametrize("case", sorted(RUNS))
def test_each_run_opens_as_a_read_only_team_with_three_agents(tmp_path: Path, case: str) -> None:
    root = copy_case(tmp_path, case)
    store = open_team(root, name_of(case))
    assert isinstance(store, WorkflowRun)
    assert store.run_dir == run_dir(root, case)
    state = TeamState(store)
    state.load_all()
    assert state.all_errors() == []
    assert state.name == name_of(case) and state.config is not None
    assert state.config.description == "Two agents in parallel, then one"
    assert list(members(state)) == ["alpha", "beta", "gamma"]
    assert {m.model for m in state.config.members} == {"claude-opus-5-5"}
    assert [t.description for t in state.board.ordered()][:2] == ["WFAGENTA: say A", "WFAGENTB: say B"]
    assert store.read_only_reason == "a workflow run takes no messages"
    assert state.store.watch_dirs() == [run_dir(root, case), record_path(root, case).parent]


def test_a_running_run(tmp_path: Path) -> None:
    state = loaded(copy_case(tmp_path, "running"), "running")
    assert state.store.run_status() == "running"
    assert state.store.lead_state() == "unknown"  # `claude -p` writes no sessions/<pid>.json
    assert members(state) == {"alpha": MemberStatus.IDLE, "beta": MemberStatus.IDLE, "gamma": MemberStatus.WORKING}
    assert steps(state) == [
        ("1", "alpha", "alpha", "completed", ""),
        ("2", "beta", "beta", "completed", ""),
        ("3", "gamma", "gamma", "in_progress", ""),
    ]
    board = state.board
    assert board.tasks["1"].result == "RESULT-A" and board.tasks["3"].result is None
    # No record yet: gamma's whole prompt comes from the first line of its transcript.
    assert board.tasks["3"].description == "WFAGENTC: join RESULT-A and RESULT-B"
    assert board.tasks["3"].active_form == "phase Join"
    assert board.current_tasks() == {"gamma": board.tasks["3"]}
    assert board.progress() == (2, 3)


def test_a_completed_run(tmp_path: Path) -> None:
    state = loaded(copy_case(tmp_path, "completed"), "completed")
    assert (state.store.run_status(), state.store.lead_state()) == ("completed", "ended")
    assert set(members(state).values()) == {MemberStatus.IDLE}
    assert steps(state) == [
        ("1", "alpha", "alpha", "completed", ""),
        ("2", "beta", "beta", "completed", ""),
        ("3", "gamma", "gamma", "completed", ""),
    ]
    assert [t.result for t in state.board.ordered()] == ["RESULT-A", "RESULT-B", "RESULT-C"]
    gamma = state.board.tasks["3"]
    assert gamma.metadata["workflow"] == {
        "agentId": "a26060634826cd97a",
        "phase": "Join",
        "state": "done",
        "index": 3,
        "model": "claude-opus-5-5",
        "tokens": 15,
        "toolCalls": 0,
    }
    assert gamma.completed_at == pytest.approx(1795551802.402)
    assert state.config is not None and state.config.created_at == pytest.approx(1795551802.164)


def test_a_failed_run_shows_its_failed_agent(tmp_path: Path) -> None:
    state = loaded(copy_case(tmp_path, "failed"), "failed")
    assert state.store.run_status() == "failed"
    assert members(state) == {"alpha": MemberStatus.IDLE, "beta": MemberStatus.SHUTDOWN, "gamma": MemberStatus.IDLE}
    assert steps(state) == [
        ("1", "alpha", "alpha", "completed", ""),
        ("2", "beta", "beta", "failed", f"failed: {BOOM}"),
        ("3", "gamma", "gamma", "completed", ""),
    ]
    assert state.board.tasks["2"].result == BOOM
    assert state.board.tasks["3"].description == "WFAGENTC: join RESULT-A and null"
    assert state.board.progress() == (2, 3)


def test_a_killed_run_stopped_its_running_agent(tmp_path: Path) -> None:
    state = loaded(copy_case(tmp_path, "killed"), "killed")
    assert state.store.run_status() == "killed"
    assert members(state)["gamma"] == MemberStatus.SHUTDOWN
    assert steps(state)[2] == ("3", "gamma", "gamma", "failed", "failed: the run was killed before it ended")
    assert state.board.current_tasks() == {}


# ------------------------------------------------------------------ the lead


def _session_file(root: Path, case: str, pid: int, start: str) -> None:
    sessions = root / "sessions"
    sessions.mkdir(exist_ok=True)
    body = {"pid": pid, "sessionId": RUNS[case][0], "procStart": start, "status": "running"}
    (sessions / f"{pid}.json").write_text(json.dumps(body))


def test_a_running_run_whose_lead_lives_is_running(tmp_path: Path) -> None:
    root = copy_case(tmp_path, "running")
    _session_file(root, "running", os.getpid(), processes.start_of(os.getpid()))
    store = open_team(root, name_of("running"))
    assert (store.lead_state(), store.run_status()) == ("alive", "running")
    assert store.lead_pid() == os.getpid()


def test_a_run_whose_lead_ended_without_a_record_was_cut_off(tmp_path: Path) -> None:
    root = copy_case(tmp_path, "running")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _session_file(root, "running", gone.pid, "1")
    state = loaded(root, "running")
    assert (state.store.lead_state(), state.store.run_status()) == ("ended", "cut off")
    assert members(state)["gamma"] == MemberStatus.SHUTDOWN
    assert steps(state)[2] == ("3", "gamma", "gamma", "failed", "failed: the run was cut off before it ended")


# ------------------------------------------------------------------ transcripts and live changes


def test_each_agents_transcript_reaches_the_log_buffers(tmp_path: Path) -> None:
    state = loaded(copy_case(tmp_path, "failed"), "failed")
    assert state.transcripts is not None
    state.load_transcripts()
    assert state.transcripts.members() == ["alpha", "beta", "gamma"]
    assert {state.transcripts.backend(m) for m in ("alpha", "beta", "gamma")} == {"in-process"}
    texts = {m: [e.text for e in state.logs[m].since(0)] for m in ("alpha", "beta", "gamma")}
    assert "RESULT-A" in texts["alpha"] and "RESULT-C" in texts["gamma"]
    assert BOOM in texts["beta"]


def _assistant_line(text: str, agent_id: str) -> bytes:
    rec = {
        "parentUuid": None,
        "isSidechain": True,
        "agentId": agent_id,
        "type": "assistant",
        "message": {
            "id": "msg_wf_live",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
        "timestamp": "2026-11-24T20:23:22.350Z",
        "cwd": "/src/app",
    }
    return json.dumps(rec).encode() + b"\n"


def test_a_running_run_followed_to_its_end(tmp_path: Path) -> None:
    root = copy_case(tmp_path, "running")
    state = loaded(root, "running")
    state.load_transcripts()
    folder = run_dir(root, "running")
    # gamma answers: its transcript grows, and the line reaches its log buffer.
    transcript = folder / "agent-a26060634826cd97a.jsonl"
    with transcript.open("ab") as f:
        f.write(_assistant_line("GAMMA-LIVE-LINE", "a26060634826cd97a"))
    changes = state.apply_batch([transcript])
    assert [(c.kind, c.key) for c in changes] == [(ChangeKind.LOG, "gamma")]
    assert "GAMMA-LIVE-LINE" in [e.text for e in state.logs["gamma"].since(0)]
    # The journal says gamma returned: its step completes, its member goes idle.
    journal = folder / "journal.jsonl"
    done = {"type": "result", "key": "v2:7344", "agentId": "a26060634826cd97a", "result": {"c": "RESULT-C"}}
    with journal.open("a") as f:
        f.write(json.dumps(done) + "\n")
    kinds = {(c.kind, c.key) for c in state.apply_batch([journal])}
    assert {(ChangeKind.TASK_COMPLETED, "3"), (ChangeKind.MEMBER_STATUS, "gamma")} <= kinds
    assert state.board.tasks["3"].result == '{"c": "RESULT-C"}'
    assert state.store.run_status() == "running"  # no record yet
    # The record is written: the run has completed.
    record = record_path(root, "running")
    shutil.copy(record_path(FIXTURES / "completed", "completed"), record)
    state.apply_batch([record])
    assert (state.store.run_status(), state.store.lead_state()) == ("completed", "ended")
    assert state.store.classify(record) is not None and state.store.classify(folder / "agent-x.jsonl") is None


def test_a_new_agent_joins_as_a_member_and_a_step(tmp_path: Path) -> None:
    root = copy_case(tmp_path, "running")
    state = loaded(root, "running")
    journal = run_dir(root, "running") / "journal.jsonl"
    with journal.open("a") as f:
        f.write(
            json.dumps(
                {"type": "started", "key": "v2:1", "agentId": "a0000000000000001", "label": "delta", "phase": "Join"}
            )
            + "\n"
        )
        f.write('{"type":"started","agentId":"a00000')  # half-written: read once complete
    kinds = {(c.kind, c.key) for c in state.apply_batch([journal])}
    assert {(ChangeKind.MEMBER_JOINED, "delta"), (ChangeKind.TASK, "4")} <= kinds
    assert steps(state)[3] == ("4", "delta", "delta", "in_progress", "")
    assert state.all_errors() == []


# ------------------------------------------------------------------ what a run refuses, and hostile files


def test_a_run_takes_no_messages(tmp_path: Path) -> None:
    store = open_team(copy_case(tmp_path, "running"), name_of("running"))
    for attempt in (
        lambda: store.send("alpha", "hi", "teamtui"),
        lambda: store.broadcast("hi", "teamtui"),
        lambda: store.send_shutdown_request("alpha", "teamtui", "done", 30.0),
    ):
        with pytest.raises(UnsupportedError, match="a workflow run takes no messages"):
            attempt()
    session, _state = open_local(store, log_limit=100, health_timeout=60.0)
    assert session.read_only == "a workflow run takes no messages"
    assert session.actions.messages is None and session.actions.shutdowns is None  # offered none: m, b, S dimmed


def test_labels_become_safe_unique_member_names_and_bad_ids_no_paths(tmp_path: Path) -> None:
    root = copy_case(tmp_path, "running")
    journal = run_dir(root, "running") / "journal.jsonl"
    lines = [
        {"type": "started", "agentId": "a0000000000000001", "label": "alpha", "phase": "Join"},
        {"type": "started", "agentId": "a0000000000000002", "label": "review: src/a.py", "phase": ""},
        {"type": "started", "agentId": "../../../etc", "label": "evil"},
    ]
    with journal.open("a") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")
    state = loaded(root, "running")
    assert list(members(state)) == ["alpha", "beta", "gamma", "alpha-2", "review-src-a.py"]
    reasons = sorted(e.reason for e in state.all_errors())
    assert len(reasons) == 2 and any("not a plain id" in r for r in reasons)


def test_names_and_a_run_that_is_not_there(tmp_path: Path) -> None:
    assert run_name("probe-flow", "wf_4e0e88a0-7e7") == "probe-flow-wf_4e0e88a0-7e7"
    assert run_name("my flow/../x", "wf_4e0e88a0-7e7") == "my-flow-..-x-wf_4e0e88a0-7e7"
    assert run_name("", "wf_abcdef") == "workflow-wf_abcdef"
    assert run_id_of("a-b-wf_4e0e88a0-7e7") == "wf_4e0e88a0-7e7"
    assert run_id_of("session-421dba11") is None and run_id_of("wf_abcdef") is None
    state = TeamState(open_team(tmp_path, "probe-flow-wf_0000000000"))
    changes = state.load_all()
    assert state.config is None and [c.kind for c in changes] == [ChangeKind.TEAM_GONE]


# ------------------------------------------------------------------ finding runs


def test_recent_runs_only(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    for case in ("running", "failed", "killed"):
        copy_case(tmp_path, case, dest="claude")
    now = time.time()
    old = now - 30 * 3600
    os.utime(record_path(root, "killed"), (old, old))  # killed 30 hours ago
    found = {r.name: r.ended for r in recent_runs(root, now=now)}
    assert found == {name_of("running"): False, name_of("failed"): True}
    # A run whose journal and folder went quiet for the whole window is no longer listed.
    folder = run_dir(root, "running")
    for p in (folder / "journal.jsonl", folder):
        os.utime(p, (old, old))
    assert [r.name for r in recent_runs(root, now=now)] == [name_of("failed")]
    assert {r.name for r in recent_runs(root, since=0, now=now)} == {
        name_of(c) for c in ("running", "failed", "killed")
    }


def test_the_fleet_lists_runs_beside_session_teams(tmp_path: Path) -> None:
    root = copy_case(tmp_path, "completed", dest="claude")
    shutil.copytree(EXAMPLES / "tmux-running" / "teams", root / "teams")

    def found(claude_root: Path) -> list[str]:
        fleet = discover_fleet(
            claude_root=claude_root,
            cwd=tmp_path / "none",
            settings=load_settings(tmp_path / "none.toml"),
            registry=tmp_path / "registry",
            journal=tmp_path / "journal",
        )
        return sorted(t.name for t in fleet.teams)

    assert found(root) == sorted(["session-421dba11", name_of("completed")])
    assert isinstance(open_team(root, name_of("completed"), "claude"), WorkflowRun)
    assert find_team(root, name_of("completed")).run_status() == "completed"


def test_the_fleet_lists_each_run_with_its_status(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    for case in ("running", "failed", "killed"):
        copy_case(tmp_path, case, dest="claude")
    fleet = discover_fleet(
        claude_root=root,
        cwd=tmp_path / "none",
        settings=load_settings(tmp_path / "none.toml"),
        registry=tmp_path / "registry",
        journal=tmp_path / "journal",
    )
    assert {(t.name, t.layout, t.source) for t in fleet.teams} == {
        (name_of(c), "workflow", "workflow") for c in ("running", "failed", "killed")
    }
    # Seconds after the fixtures were written: gamma, holding its step, has not gone silent yet.
    rows = {r.name: r for r in fleet_rows(fleet, transcripts=True, now=1795551810.0)}
    assert {n: (r.run_status, r.lead, r.ended, r.label) for n, r in rows.items()} == {
        name_of("running"): ("running", "unknown", False, "workflow run"),
        name_of("failed"): ("failed", "ended", True, "workflow run"),
        name_of("killed"): ("killed", "ended", True, "workflow run"),
    }
    running = rows[name_of("running")]
    assert (running.working, running.idle, running.tasks_done, running.tasks_total) == (1, 2, 2, 3)
    assert running.cwd == "/src/app" and running.problem is None and running.tokens == 30
    assert row_json(running)["run_status"] == "running"
