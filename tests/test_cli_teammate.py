"""The teammate commands of the CLI on real team files, and `teamtui shutdown --wait` against
real teammate processes (shell scripts calling the CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.native import NativeTeam

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NativeTeam:
    store = NativeTeam(tmp_path, "crew")
    store.create()
    for n in ("ana", "bo", "cy"):
        store.add_member(n, status="working")
    monkeypatch.setenv("TEAMTUI_ROOT", str(tmp_path))
    monkeypatch.setenv("TEAMTUI_TEAM", "crew")
    return store


def _as(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("TEAMTUI_NAME", name)


# ----------------------------------------------------------------------------- idle


def test_idle_sends_an_idle_notification_the_lead_can_read(cli, team, monkeypatch):
    _as(monkeypatch, "ana")
    assert cli("idle", "--completed", "7", "--summary", "parser done")[0] == 0
    [msg] = team.peek("lead").messages
    assert msg.type == "idle_notification" and msg.sender == "ana"
    p = msg.payload
    assert (p.idle_reason, p.completed_task_id, p.completed_status, p.summary) == (
        "available",
        "7",
        "resolved",
        "parser done",
    )
    assert team.read_config().member("ana").status.value == "idle"


def test_idle_failed_carries_the_failure(cli, team, monkeypatch):
    _as(monkeypatch, "bo")
    assert cli("idle", "--reason", "failed", "--completed", "2", "--summary", "tests red")[0] == 0
    p = team.peek("lead").messages[-1].payload
    assert (p.idle_reason, p.completed_status, p.failure_reason) == ("failed", "failed", "tests red")


def test_idle_in_claude_code_layout_uses_its_camel_case_fields(cli, claude_root, monkeypatch):
    monkeypatch.setenv("TEAMTUI_NAME", "researcher")
    code, _, err = cli(
        "idle", "--root", str(claude_root), "--team", "work-team", "--reason", "interrupted", "--completed", "2"
    )
    assert code == 0, err
    store = ClaudeTeam(claude_root, "work-team")
    msg = store.peek("team-lead").messages[-1]
    wire = json.loads(msg.content)
    assert (
        wire["type"] == "idle_notification" and wire["idleReason"] == "interrupted" and wire["completedTaskId"] == "2"
    )
    assert msg.payload.completed_task_id == "2"


def test_idle_needs_a_name(cli, team):
    code, _, err = cli("idle")
    assert code == 2 and "TEAMTUI_NAME" in err


def test_idle_reason_is_checked(cli, team, monkeypatch):
    _as(monkeypatch, "ana")
    assert cli("idle", "--reason", "bored")[0] == 2
    assert team.peek("lead").messages == []


# ----------------------------------------------------------------------------- shutdown-reply


def test_shutdown_reply_answers_the_request_in_my_inbox_with_its_id(cli, team, monkeypatch):
    rid = team.send_shutdown_request("bo", "lead", "phase_complete", 30)
    _as(monkeypatch, "bo")
    assert (
        cli("shutdown-reply", "--status", "in_progress", "--pending", "T3 half done", "wire API", "--committed")[0] == 0
    )
    [msg] = team.peek("lead").messages
    p = msg.payload
    assert (p.request_id, p.approves, p.status, p.pending_work, p.artifacts_committed) == (
        rid,
        True,
        "in_progress",
        ["T3 half done", "wire API"],
        True,
    )
    assert team.read_config().member("bo").status.value == "shutdown"


def test_shutdown_reply_after_draining_has_no_request_id_and_reject_keeps_me_running(cli, team, monkeypatch):
    team.send_shutdown_request("cy", "lead", "", 30)
    team.drain("cy")
    _as(monkeypatch, "cy")
    assert cli("shutdown-reply", "--status", "in_progress", "--reject", "mid-commit")[0] == 0
    p = team.peek("lead").messages[-1].payload
    assert (p.request_id, p.approve) == ("", False)
    assert team.peek("lead").messages[-1].content == "mid-commit"
    assert team.read_config().member("cy").status.value == "working"


def test_shutdown_reply_status_is_required_and_checked(cli, team, monkeypatch):
    _as(monkeypatch, "ana")
    assert cli("shutdown-reply")[0] == 2
    assert cli("shutdown-reply", "--status", "fine")[0] == 2
    assert team.peek("lead").messages == []


# ----------------------------------------------------------------------------- tasks


def test_task_complete_with_result_and_a_late_complete_refused_and_logged(cli, team, monkeypatch):
    t = team.create_task("parse")
    team.claim_task(t.id, "ana")
    _as(monkeypatch, "bo")
    code, _, err = cli("task", "complete", t.id)
    assert code == 1 and "held by ana" in err
    _as(monkeypatch, "ana")
    assert cli("task", "complete", t.id, "--result", "3 files parsed")[:2] == (0, f"{t.id}\n")
    done = team.get_task(t.id)
    assert (done.status.value, done.result) == ("completed", "3 files parsed")

    u = team.create_task("check")
    team.claim_task(u.id, "ana")
    code, out, _ = cli("task", "fail", u.id, "--reason", "lint failed")
    assert code == 0 and "failed (1/3)" in out
    code, _, err = cli("task", "complete", u.id)
    assert code == 1 and "taken back from ana" in err
    assert team.get_task(u.id).status.value == "pending"
    last = json.loads(team.log_paths("ana")[0].read_text().splitlines()[-1])
    assert last["level"] == "warning" and "refused" in last["text"]


def test_a_person_without_a_name_completes_any_task(cli, team):
    t = team.create_task("x")
    team.claim_task(t.id, "ana")
    assert cli("task", "complete", t.id)[0] == 0


def test_task_fail_holds_at_the_teams_max_failures_and_tasks_shows_why(cli, team, monkeypatch):
    team.update_config(lambda d: d.update(max_failures=2))
    t = team.create_task("deploy")
    team.create_task("other")
    for n in (1, 2):
        team.claim_task(t.id, "bo")
        _as(monkeypatch, "bo")
        code, out, _ = cli("task", "fail", t.id, "--reason", f"timeout {n}")
        assert code == 0
    assert "held as blocked" in out
    code, out, _ = cli("tasks")
    line = next(x for x in out.splitlines() if "deploy" in x)
    assert "failed 2 times" in line and "timeout 2" in line
    data = json.loads(cli("tasks", "--json")[1])
    row = next(x for x in data["tasks"] if x["id"] == t.id)
    assert row["state"] == "blocked" and row["failures"] == 2 and "failed 2 times" in row["held"]
    # Not claimable, not the next ready one ...
    code, out, _ = cli("task", "claim", "--as", "cy")
    assert out.strip() != t.id
    # ... until retried.
    assert cli("task", "retry", t.id)[0] == 0
    row = next(x for x in json.loads(cli("tasks", "--json")[1])["tasks"] if x["id"] == t.id)
    assert row["state"] == "ready" and row["failures"] == 0


def test_task_fail_needs_a_reason_and_the_holder(cli, team, monkeypatch):
    t = team.create_task("x")
    team.claim_task(t.id, "ana")
    assert cli("task", "fail", t.id)[0] == 2
    _as(monkeypatch, "cy")
    code, _, err = cli("task", "fail", t.id, "--reason", "r")
    assert code == 1 and "not held by cy" in err
    assert team.get_task(t.id).owner == "ana"


def test_tasks_says_which_ready_task_waits_on_a_touched_file(cli, team, monkeypatch):
    mine = team.create_task("mine", files=["src/lib/auth.ts"])
    other = team.create_task("other")
    team.update_task(other.id, metadata={"scope": {"files_to_modify": ["src/lib/auth.ts"]}})
    team.claim_task(mine.id, "ana")
    _as(monkeypatch, "ana")
    code, out, _ = cli("broadcast", "TOUCHING_FILE src/lib/auth.ts")
    assert code == 0 and set(out.split()) == {"bo", "cy", "lead"}
    code, out, _ = cli("tasks")
    line = next(x for x in out.splitlines() if "other" in x)
    assert "waits on src/lib/auth.ts (touched by ana)" in line
    row = next(x for x in json.loads(cli("tasks", "--json")[1])["tasks"] if x["id"] == other.id)
    assert row["waits_on"] == [{"file": "src/lib/auth.ts", "touched_by": "ana"}]


# ----------------------------------------------------------------------------- send


def test_send_with_a_type_and_fields(cli, team, monkeypatch):
    _as(monkeypatch, "ana")
    code, _, err = cli(
        "send",
        "bo",
        "T3 done",
        "--type",
        "dev_progress",
        "--field",
        "task=01-01/T3",
        "--field",
        "concerns=[]",
        "--field",
        "commit=abc1234",
    )
    assert code == 0, err
    [msg] = team.peek("bo").messages
    assert msg.type == "dev_progress" and msg.raw["task"] == "01-01/T3" and msg.raw["concerns"] == []


def test_send_a_protocol_message_in_the_patterns_schema(cli, team, monkeypatch):
    team.send_shutdown_request("ana", "lead", "", 30)
    _as(monkeypatch, "ana")
    code, _, err = cli(
        "send",
        "lead",
        "",
        "--type",
        "shutdown_response",
        "--field",
        "status=clean",
        "--field",
        "pending_work=[]",
        "--field",
        "artifacts_committed=true",
    )
    assert code == 0, err
    p = team.peek("lead").messages[-1].payload
    assert (p.request_id, p.approves, p.status, p.artifacts_committed) == ("", True, "clean", True)


@pytest.mark.parametrize(
    "args, why",
    [
        (["--field", "no-equals"], "KEY=VALUE"),
        (["--field", "sender=mallory"], "envelope"),
        (["--field", "../x=1"], "KEY=VALUE"),
        (["--type", "bad type"], "not a message type"),
        (["--type", "shutdown_response", "--field", 'pending_work={"a": 1}'], "not a valid shutdown_response"),
    ],
)
def test_send_refuses_bad_types_and_fields_and_writes_nothing(cli, team, monkeypatch, args, why):
    _as(monkeypatch, "ana")
    code, _, err = cli("send", "bo", "x", *args)
    assert code in (1, 2) and why in err and err.count("\n") == 1
    assert not team.inbox_path("bo").exists()


# ----------------------------------------------------------------------------- shutdown


def test_shutdown_refuses_a_name_that_is_not_a_teammate(cli, team):
    code, _, err = cli("shutdown", "ana", "nobody")
    assert code == 1 and "nobody" in err
    assert not team.inbox_path("ana").exists()


def test_shutdown_without_wait_sends_one_request_each(cli, team):
    code, out, _ = cli("shutdown", "--reason", "timeout", "--deadline", "5")
    assert code == 0 and out.count("asked ") == 3
    for n in ("ana", "bo", "cy"):
        [req] = team.peek(n).messages
        assert req.type == "shutdown_request" and req.raw["reason"] == "timeout" and req.raw["deadline_seconds"] == 5


REPLIER = """\
#!/bin/sh
# Waits for the request, then answers as $HOW says (or never, for "silent").
while ! teamtui inbox --json | grep -q '"shutdown_request"'; do sleep 0.1; done
case $HOW in
  clean) teamtui shutdown-reply --status clean --committed ;;
  pending) teamtui inbox --drain >/dev/null; teamtui shutdown-reply --status in_progress --pending "README not updated" "T4" ;;
  patterns) teamtui send lead "" --type shutdown_response --field status=error --field 'pending_work=[]' ;;
  silent) ;;
esac
"""


def _teammate(tmp_path: Path, name: str, how: str) -> subprocess.Popen:
    # One script per teammate: rewriting a script another teammate's shell is still reading
    # (sh reads as it goes) could hand that shell half a file.
    script = tmp_path / f"replier-{name}.sh"
    script.write_text(REPLIER)
    script.chmod(0o755)
    env = dict(os.environ, TEAMTUI_NAME=name, HOW=how, PYTHONPATH=str(REPO))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    return subprocess.Popen([str(script)], env=env)


def test_shutdown_wait_prints_every_teammates_answer(team, tmp_path):
    mates = [
        _teammate(tmp_path, "ana", "clean"),
        _teammate(tmp_path, "bo", "pending"),
        _teammate(tmp_path, "cy", "patterns"),
    ]
    try:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        res = subprocess.run(
            [sys.executable, "-m", "teamtui", "shutdown", "--wait", "--deadline", "90"],
            capture_output=True,
            text=True,
            timeout=150,
            env=env,
        )
    finally:
        for p in mates:
            p.wait(timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert "not every teammate" not in res.stdout and "every teammate accounted for" in res.stdout
    assert "  ana: clean · artifacts committed" in lines
    # A teammate's outcome and a task's state never share a word: the task is "in progress", the teammate left it.
    assert any(x.startswith("  bo: left work unfinished · pending: README not updated; T4") for x in lines)
    assert any(x.startswith("  cy: error") for x in lines)  # the patterns' schema: no request_id, no approve
    results = {
        json.loads(p.read_text())["teammate"]: json.loads(p.read_text())
        for p in (team.team_dir / "shutdown").glob("*.json")
    }
    assert results["bo"]["pending_work"] == ["README not updated", "T4"]
    # A person's shutdown does not drain the lead's inbox: the replies are still there to read.
    assert {m.sender for m in team.peek("lead").messages} >= {"ana", "bo", "cy"}


def test_shutdown_wait_times_out_a_silent_teammate_and_still_exits_0(team, tmp_path):
    silent = _teammate(tmp_path, "ana", "silent")
    try:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        res = subprocess.run(
            [sys.executable, "-m", "teamtui", "shutdown", "ana", "--wait", "--deadline", "2"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    finally:
        silent.wait(timeout=60)
    assert res.returncode == 0, res.stderr
    assert "  ana: timed out · did not respond within 2s" in res.stdout.splitlines()
    assert "every teammate accounted for" in res.stdout


def test_shutdown_wait_ignores_replies_from_before_it_asked(team, tmp_path):
    # An old reply in the patterns' schema (no request id) sits in the lead's inbox already.
    team.send("lead", "", "ana", type="shutdown_response", extra={"status": "clean"})
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run(
        [sys.executable, "-m", "teamtui", "shutdown", "ana", "--wait", "--deadline", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout[res.stdout.index("{") :])
    assert [(t["teammate"], t["outcome"]) for t in summary["teammates"]] == [("ana", "timed out")]
    assert summary["all_accounted_for"] is True


# ----------------------------------------------------------------------------- start-up


@pytest.mark.parametrize(
    "argv",
    [
        ["idle", "--as", "hunter", "--completed", "2"],
        ["shutdown-reply", "--as", "hunter", "--status", "in_progress", "--pending", "x"],
        ["task", "fail", "2", "--reason", "boom"],
        ["task", "retry", "2"],
        ["task", "complete", "2", "--as", "hunter", "--result", "ok"],
        ["send", "hunter", "x", "--type", "dev_progress", "--field", "task=T1"],
        ["shutdown", "scout"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_the_teammate_commands_load_no_ui_tmux_runtime_or_watcher(argv, native_root, tmp_path):
    from tests.test_cli_imports import HEAVY, WATCHING, _loaded, _run

    if argv[:2] == ["task", "retry"]:
        NativeTeam(native_root, "refactor-auth").update_task(
            "2", metadata={"failure_count": 3, "blocked_reason": "failed 3 times"}
        )
    result = _run(native_root, tmp_path, argv)
    # `shutdown` (without --wait) builds its run from the runtime's shutdown module: that, and nothing else of the runtime.
    allowed = {"teamtui.runtime", "teamtui.protocol.shutdown"} if argv[0] == "shutdown" else set()
    assert set(_loaded(result["modules"], HEAVY + WATCHING)) <= allowed
