"""The teammate API against a real native team on disk."""

from __future__ import annotations

import json

import pytest

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.teammate import Teammate


@pytest.fixture
def team(tmp_path):
    t = NativeTeam(tmp_path, "crew")
    t.create()
    t.add_member("ann")
    return t


def test_from_env(tmp_path):
    me = Teammate.from_env(
        {
            "TEAMTUI_ROOT": str(tmp_path),
            "TEAMTUI_TEAM": "crew",
            "TEAMTUI_NAME": "ann",
            "TEAMTUI_ASSIGN": "lead",
            "TEAMTUI_POLL": "0.5",
        }
    )
    assert (me.name, me.agent_id, me.assign, me.poll, me.team.root) == ("ann", "ann@crew", "lead", 0.5, tmp_path)
    with pytest.raises(ProtocolError, match="TEAMTUI_NAME"):
        Teammate.from_env({"TEAMTUI_TEAM": "crew"})


def test_idle_loop_claims_ready_work_and_reports_idle_once(team):
    me = Teammate(team.root, "crew", "ann", poll=0.01)
    team.create_task("first")
    team.create_task("second", blocked_by=["1"])
    wake = me.idle_loop(timeout=1)
    assert wake.task is not None and wake.task.id == "1"
    me.complete("1", "ok")
    assert me.idle_loop(timeout=1).task.id == "2"
    me.complete("2")
    assert me.idle_loop(timeout=0.05).timed_out
    assert me.idle_loop(timeout=0.05).timed_out
    idles = [m for m in team.drain("lead").messages if m.type == "idle_notification"]
    assert len(idles) == 3  # one per idle period: before #1, before #2, after #2 (not again on timeout)
    log = (team.logs_dir / "ann.jsonl").read_text()
    assert "claimed #1 first" in log and "completed #2 second" in log


def test_lead_mode_waits_for_assignment(team):
    me = Teammate(team.root, "crew", "ann", assign="lead", poll=0.01)
    team.create_task("only")
    assert me.idle_loop(timeout=0.05).timed_out  # never claims by itself
    task = team.claim_task(None, "ann")
    team.send("ann", "please", "lead", type="task_assignment", extra={"task_id": task.id, "subject": task.subject})
    wake = me.idle_loop(timeout=1)
    assert wake.task is not None and wake.task.id == "1"


def test_shutdown_request_is_answered_with_its_request_id(team):
    me = Teammate(team.root, "crew", "ann", poll=0.01)
    team.send("ann", "hi", "bob")
    rid = team.send_shutdown_request("ann", "lead", "phase_complete", 5)
    wake = me.idle_loop(timeout=1, notify=False)
    assert wake.shutdown is not None and [m.content for m in wake.messages] == ["hi"]
    me.answer_shutdown(wake.shutdown, status="in_progress", pending_work=["notes"], artifacts_committed=True)
    reply = team.drain("lead").messages[-1]
    assert reply.type == "shutdown_response"
    assert (reply.payload.request_id, reply.payload.approve, reply.payload.status, reply.payload.pending_work) == (
        rid,
        True,
        "in_progress",
        ["notes"],
    )
    assert json.loads(team.config_path.read_text())["members"][0]["status"] == "shutdown"


def test_shutdown_check_mid_work_keeps_other_messages(team):
    me = Teammate(team.root, "crew", "ann")
    team.send("ann", "keep me", "bob")
    assert me.shutdown_requested() is None
    assert [m.content for m in me.drain()] == ["keep me"]
