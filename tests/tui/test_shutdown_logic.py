"""The UI-free two-phase shutdown, against real team directories."""

import json

from teamtui.protocol.layout import find_team
from teamtui.protocol.shutdown import Outcome, ShutdownRun, live_teammates
from teamtui.protocol.state import TeamState


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_native_clean_in_progress_and_timeout(native_root):
    store = find_team(native_root)
    state = TeamState(store)
    state.load_all()
    assert live_teammates(state) == ["hunter", "scout"]
    clock = Clock()
    run = ShutdownRun(store, ["hunter", "scout"], sender="lead", deadline_seconds=5, clock=clock)
    run.start()
    req = run.teammates["hunter"].request_id
    line = json.loads((store.team_dir / "hunter_inbox.jsonl").read_text().splitlines()[-1])
    assert line["type"] == "shutdown_request" and line["request_id"] == req and line["deadline_seconds"] == 5
    store.send_shutdown_response("hunter", req, approve=True, status="in_progress", pending_work=["finish tests"])
    state.apply(store.inbox_path("lead"))
    assert run.observe(state.shutdown_replies()) == ["hunter"]
    assert run.teammates["hunter"].outcome is Outcome.IN_PROGRESS
    assert run.expire() == [] and not run.done
    clock.t += 5
    assert run.expire() == ["scout"]
    assert run.done
    s = run.summary(state.tasks.values())
    assert s["outcomes"] == {"in progress": 1, "timed out": 1}
    assert s["teammates"][0]["pending_work"] == ["finish tests"]
    assert [t["id"] for t in s["tasks_in_progress"]] == ["2"]
    paths = run.write_results(state.tasks.values())
    assert len(paths) == 2 and json.loads(open(paths[0]).read())["outcome"] == "in progress"


def test_reply_with_unknown_request_id_is_ignored(native_root):
    store = find_team(native_root)
    state = TeamState(store)
    state.load_all()
    run = ShutdownRun(store, ["hunter"], sender="lead", clock=Clock())
    run.start()
    store.send_shutdown_response("hunter", "not-mine", approve=True)
    state.apply(store.inbox_path("lead"))
    assert run.observe(state.shutdown_replies()) == []
    assert run.teammates["hunter"].outcome is Outcome.REQUESTED


def test_claude_approved_and_rejected(claude_root):
    store = find_team(claude_root)
    state = TeamState(store)
    state.load_all()
    assert live_teammates(state) == ["researcher", "writer"]
    run = ShutdownRun(store, ["researcher", "writer"], sender="teamtui", clock=Clock())
    run.start()
    entry = json.loads((store.inbox_path("researcher")).read_text())[-1]
    assert json.loads(entry["text"])["type"] == "shutdown_request"
    store.send_shutdown_response("researcher", run.teammates["researcher"].request_id, approve=True)
    store.send_shutdown_response("writer", run.teammates["writer"].request_id, approve=False, reason="still writing")
    state.apply(store.inbox_path("team-lead"))
    run.observe(state.shutdown_replies())
    assert run.teammates["researcher"].outcome is Outcome.CLEAN
    assert run.teammates["writer"].outcome is Outcome.REJECTED
    assert run.teammates["writer"].detail == "still writing"
    assert run.done and run.write_results() == []  # Claude Code teams have no shutdown/ folder
