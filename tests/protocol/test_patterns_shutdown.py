"""Shutdown replies in the Teammate API patterns' own schema (no request_id, no approve) and in
the fuller one teamtui writes, matched by a real ShutdownRun over a real native team's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.shutdown import Outcome, ShutdownRun


@pytest.fixture
def team(tmp_path: Path) -> NativeTeam:
    store = NativeTeam(tmp_path, "yolo-backend")
    store.create()
    for name in ("dev-1", "dev-2", "dev-3", "senior"):
        store.add_member(name)
    return store


def _reply_raw(store: NativeTeam, sender: str, body: dict) -> None:
    """A reply appended to the lead's inbox byte for byte as a peer writes it: envelope + the schema's keys."""
    line = {"sender": sender, "content": "", "timestamp": 1771324200.0, **body}
    with open(store.inbox_path("lead"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def _run(store: NativeTeam, names: list[str]) -> ShutdownRun:
    run = ShutdownRun(store, names, sender="lead", deadline_seconds=30)
    run.start()
    return run


def test_patterns_schema_without_request_id_or_approve_is_matched_to_the_senders_request(team):
    run = _run(team, ["dev-1", "dev-2", "dev-3"])
    # The patterns' shutdown_response exactly: {type, status, pending_work, artifacts_committed}.
    _reply_raw(
        team, "dev-1", {"type": "shutdown_response", "status": "clean", "pending_work": [], "artifacts_committed": True}
    )
    _reply_raw(
        team,
        "dev-2",
        {
            "type": "shutdown_response",
            "status": "in_progress",
            "pending_work": ["01-01/T3 half done", "docs"],
            "artifacts_committed": False,
        },
    )
    _reply_raw(
        team,
        "dev-3",
        {"type": "shutdown_response", "status": "error", "pending_work": [], "artifacts_committed": False},
    )

    changed = run.observe(team.peek("lead").messages)

    assert sorted(changed) == ["dev-1", "dev-2", "dev-3"]
    assert run.done
    by = run.teammates
    assert by["dev-1"].outcome is Outcome.CLEAN and by["dev-1"].artifacts_committed is True
    assert by["dev-2"].outcome is Outcome.IN_PROGRESS
    assert by["dev-2"].pending_work == ["01-01/T3 half done", "docs"]
    assert by["dev-3"].outcome is Outcome.ERROR
    summary = run.summary()
    mates = {m["teammate"]: m for m in summary["teammates"]}
    assert mates["dev-2"]["pending_work"] == ["01-01/T3 half done", "docs"]
    assert mates["dev-1"]["artifacts_committed"] is True
    assert mates["dev-2"]["artifacts_committed"] is False
    assert summary["outcomes"] == {"clean": 1, "in progress": 1, "error": 1}
    assert summary["all_accounted_for"] is True


def test_the_result_files_carry_pending_work_and_artifacts_committed(team):
    run = _run(team, ["dev-1"])
    _reply_raw(
        team,
        "dev-1",
        {"type": "shutdown_response", "status": "in_progress", "pending_work": ["T7"], "artifacts_committed": True},
    )
    run.observe(team.peek("lead").messages)
    [path] = run.write_results()
    result = json.loads(Path(path).read_text())
    assert result["outcome"] == "in progress"
    assert result["pending_work"] == ["T7"]
    assert result["artifacts_committed"] is True
    assert result["run"]["teammates"][0]["pending_work"] == ["T7"]


def test_teamtui_full_schema_still_matches_by_request_id(team):
    run = _run(team, ["dev-1", "dev-2", "senior"])
    ids = {n: t.request_id for n, t in run.teammates.items()}
    team.send_shutdown_response("dev-1", ids["dev-1"], approve=True, status="clean", artifacts_committed=True)
    team.send_shutdown_response(
        "dev-2", ids["dev-2"], approve=True, status="in_progress", pending_work=["wire the API"]
    )
    team.send_shutdown_response("senior", ids["senior"], approve=False, reason="mid-commit")
    run.observe(team.peek("lead").messages)
    by = run.teammates
    assert by["dev-1"].outcome is Outcome.CLEAN
    assert (by["dev-2"].outcome, by["dev-2"].pending_work) == (Outcome.IN_PROGRESS, ["wire the API"])
    assert (by["senior"].outcome, by["senior"].detail) == (Outcome.REJECTED, "mid-commit")


def test_request_id_without_approve_counts_as_approved_not_rejected(team):
    run = _run(team, ["dev-1"])
    rid = run.teammates["dev-1"].request_id
    _reply_raw(team, "dev-1", {"type": "shutdown_response", "request_id": rid, "status": "clean", "pending_work": []})
    run.observe(team.peek("lead").messages)
    assert run.teammates["dev-1"].outcome is Outcome.CLEAN


def test_explicit_approve_false_is_a_rejection_even_with_a_status(team):
    run = _run(team, ["dev-1"])
    _reply_raw(
        team, "dev-1", {"type": "shutdown_response", "approve": False, "status": "in_progress", "pending_work": ["T1"]}
    )
    run.observe(team.peek("lead").messages)
    assert run.teammates["dev-1"].outcome is Outcome.REJECTED


def test_a_reply_without_request_id_does_not_answer_for_another_teammate_or_twice(team):
    run = _run(team, ["dev-1", "dev-2"])
    # From someone the run never asked, and a second reply from dev-1: neither changes anything.
    _reply_raw(team, "senior", {"type": "shutdown_response", "status": "clean"})
    _reply_raw(team, "dev-1", {"type": "shutdown_response", "status": "in_progress", "pending_work": ["T2"]})
    _reply_raw(team, "dev-1", {"type": "shutdown_response", "status": "clean"})
    run.observe(team.peek("lead").messages)
    assert run.teammates["dev-1"].outcome is Outcome.IN_PROGRESS
    assert run.teammates["dev-1"].pending_work == ["T2"]
    assert run.teammates["dev-2"].outcome is Outcome.REQUESTED
    assert "senior" not in run.teammates
    assert not run.done


def test_a_reply_with_another_requests_id_is_not_taken_for_this_run(team):
    run = _run(team, ["dev-1"])
    _reply_raw(team, "dev-1", {"type": "shutdown_response", "request_id": "someone-elses", "status": "clean"})
    run.observe(team.peek("lead").messages)
    assert run.teammates["dev-1"].outcome is Outcome.REQUESTED


def test_pending_work_items_that_are_objects_are_kept_as_text_not_dropped(team):
    run = _run(team, ["dev-1"])
    item = {"task": "03-01/T3", "left": "tests"}
    _reply_raw(team, "dev-1", {"type": "shutdown_response", "status": "in_progress", "pending_work": [item]})
    read = team.peek("lead")
    assert read.errors == []
    run.observe(read.messages)
    [kept] = run.teammates["dev-1"].pending_work
    assert json.loads(kept) == item


def test_unknown_status_without_approve_is_an_error_with_the_status_named(team):
    run = _run(team, ["dev-1"])
    _reply_raw(team, "dev-1", {"type": "shutdown_response", "status": "exploded"})
    run.observe(team.peek("lead").messages)
    t = run.teammates["dev-1"]
    assert t.outcome is Outcome.ERROR
    assert "exploded" in t.detail
