"""`teamtui requests` and `teamtui answer` on a native team's needs: a task held after failures
(retry, block), a teammate that disappeared (release, message), and the restart only where a
`teamtui run` leads; each answer written under the honest sender and journaled."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.place import ensure_spool
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.native.leadpid import mark_lead
from teamtui.protocol.outcomes import record_failure
from tests.conftest import Run

TEAM = "refactor-auth"


@pytest.fixture
def team(native_root: Path, monkeypatch: pytest.MonkeyPatch) -> NativeTeam:
    monkeypatch.chdir(native_root)  # the control room looks at the current folder for native teams
    monkeypatch.delenv("TEAMTUI_ROOT", raising=False)
    store = NativeTeam(native_root, TEAM)
    _silent(store, "hunter", 0)  # copied with its old times: active just now
    return store


def _held(store: NativeTeam, task_id: str = "3") -> None:
    for i in range(3):
        record_failure(store, task_id, f"boom {i}")


def _items(cli: Run) -> list[dict]:
    code, out, err = cli("requests", "--json")
    assert code == 0, err
    return json.loads(out)["requests"]


def _silent(store: NativeTeam, name: str, seconds: float = 3600) -> None:
    """`name` last did anything `seconds` ago (what the health rule reads: its files' times)."""
    old = time.time() - seconds
    for p in [*store.log_paths(name), store.inbox_path(name)]:
        if p.exists():
            os.utime(p, (old, old))


def test_a_held_task_is_listed_with_its_id_and_answers(cli: Run, team: NativeTeam) -> None:
    assert _items(cli) == []
    _held(team)
    (item,) = _items(cli)
    assert (item["id"], item["kind"], item["team"], item["answers"]) == (
        f"held:{TEAM}:3",
        "held",
        TEAM,
        ["retry", "block"],
    )
    code, out, _ = cli("requests")
    assert out.startswith(f"held:{TEAM}:3  {TEAM}  #3 Update API documentation: failed 3 times")


def test_retry_resets_the_count_and_puts_it_back_on_the_board(cli: Run, team: NativeTeam) -> None:
    _held(team)
    code, out, err = cli("answer", f"held:{TEAM}:3", "retry")
    assert code == 0, err
    task = team.get_task("3")
    assert task.metadata["failure_count"] == 0 and "blocked_reason" not in task.metadata
    assert _items(cli) == []
    (entry,) = [j for j in journal.read(ensure_spool()) if j["what"] == "answered"]
    assert (entry["kind"], entry["decision"], entry["target"], entry["via"]) == ("held", "retry", "3", "cli")


def test_block_keeps_it_off_the_board_with_the_persons_reason(cli: Run, team: NativeTeam) -> None:
    _held(team)
    assert cli("answer", f"held:{TEAM}:3", "block")[0] == 1  # a reason is required
    code, out, err = cli("answer", f"held:{TEAM}:3", "block", "--message", "needs the new API first")
    assert code == 0, err
    task = team.get_task("3")
    assert task.metadata["blocked_reason"] == "blocked by teamtui: needs the new API first"
    assert task.metadata["blocked_by"] == "teamtui"
    assert _items(cli) == []  # decided: it waits for nobody now
    code, out, _ = cli("tasks")
    assert "blocked by teamtui: needs the new API first" in out


def test_an_answer_the_item_does_not_take_is_a_usage_error(cli: Run, team: NativeTeam) -> None:
    _held(team)
    code, _, err = cli("answer", f"held:{TEAM}:3", "allow")
    assert code == 2 and "takes retry, block" in err
    assert cli("answer", "held:nosuchteam:3", "retry")[0] == 1
    assert cli("answer", "../../etc/passwd", "allow")[0] == 2


def test_a_disappeared_teammates_tasks_are_released(cli: Run, team: NativeTeam) -> None:
    _silent(team, "hunter")
    items = {i["id"]: i for i in _items(cli)}
    gone = items[f"gone:{TEAM}:hunter"]
    assert gone["answers"] == ["release", "message"]  # no `teamtui run` leads it: no restart
    code, out, err = cli("answer", f"gone:{TEAM}:hunter", "release")
    assert code == 0 and "released #2 from hunter" in out, err
    task = team.get_task("2")
    assert (task.owner, task.status.value) == ("", "pending")


def test_a_message_goes_under_the_honest_sender(cli: Run, team: NativeTeam) -> None:
    _silent(team, "hunter")
    code, out, err = cli("answer", f"gone:{TEAM}:hunter", "message", "-m", "are you stuck on #2?")
    assert code == 0, err
    last = team.peek("hunter").messages[-1]
    # No `teamtui run` leads this native team: the person is its lead, and writes as "lead".
    assert (last.sender, last.content) == ("lead", "are you stuck on #2?")
    lead = subprocess.Popen(["sleep", "60"])  # now a lead runs that is not this process: teamtui's own name
    try:
        mark_lead(team, lead.pid)
        _silent(team, "hunter")  # the first message touched its inbox
        assert cli("answer", f"gone:{TEAM}:hunter", "message", "-m", "again")[0] == 0
    finally:
        lead.kill()
        lead.wait()
    assert team.peek("hunter").messages[-1].sender == "teamtui"


def test_restart_is_offered_only_where_a_teamtui_run_leads(cli: Run, team: NativeTeam) -> None:
    _silent(team, "hunter")
    mark_lead(team)  # this process stands for the running lead
    gone = next(i for i in _items(cli) if i["id"] == f"gone:{TEAM}:hunter")
    assert gone["answers"] == ["release", "message", "restart"]
    code, out, err = cli("answer", f"gone:{TEAM}:hunter", "restart", "-m", "silent for an hour")
    assert code == 0 and "asked the team's lead to restart hunter" in out, err
    ask = team.peek("lead").messages[-1]
    assert ask.type == "restart_request" and ask.raw["teammate"] == "hunter"
    assert ask.raw["reason"] == "silent for an hour"


def test_a_notification_for_a_need_carries_the_id_that_answers_it() -> None:
    from teamtui.notify.events import NotifyEvent, NotifyKind

    event = NotifyEvent(NotifyKind.NEEDS_YOU, TEAM, "#3 held", host="h", at=1.0, request_id=f"held:{TEAM}:3")
    assert json.loads(event.cleaned().to_json())["id"] == f"held:{TEAM}:3"
    assert "id" not in json.loads(NotifyEvent(NotifyKind.TEAM_FINISHED, TEAM, host="h", at=1.0).to_json())


def test_an_id_alone_says_what_it_takes_or_where_it_is_answered(cli: Run, team: NativeTeam) -> None:
    _held(team)
    code, _, err = cli("answer", f"held:{TEAM}:3")
    assert code == 2 and f"held:{TEAM}:3 takes retry, block (`teamtui answer held:{TEAM}:3 retry`)" in err
    code, _, err = cli("answer", f"plan:{TEAM}:p-1", "allow")
    assert code == 2 and "takes no answer from here: approve or reject the plan in the lead's terminal" in err
    code, _, err = cli("answer", f"wait:{TEAM}:lead")
    assert code == 2 and "it waits in the lead's terminal" in err and "()" not in err
