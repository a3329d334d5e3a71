"""The lead under the reference designs' recovery rules, with real teammate processes (shell
scripts calling the CLI): a disappeared teammate's task released, or the teammate restarted;
a task lost too often held as blocked; `teamtui shutdown` handed to a running lead."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from .helpers import ROOT, WORKER, env_for_run, processes_of, run_cmd, start_run, tasks_on_disk, wait_until


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.sh"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


# Answers a shutdown request once it sees one; the rest of a script runs before it.
ANSWER_SHUTDOWN = """
while ! teamtui inbox --json | grep -q '"shutdown_request"'; do sleep 0.2; done
teamtui shutdown-reply --status clean
"""


def _teamfile(tmp_path: Path, name: str, settings: str, teammates: list[tuple[str, str]], tasks: list[str]) -> Path:
    parts = [f'[team]\nname = "{name}"\npoll_interval = 0.1\nshutdown_grace = 1\n{settings}']
    for mate, command in teammates:
        parts.append(f'[[teammates]]\nname = "{mate}"\ncommand = {json.dumps(command)}\n')
    for subject in tasks:
        parts.append(f'[[tasks]]\nsubject = "{subject}"\n')
    tf = tmp_path / "team.toml"
    tf.write_text("\n".join(parts))
    return tf


def test_release_gives_a_disappeared_teammates_task_to_another_and_refuses_its_late_complete(tmp_path):
    # slow claims #2 and goes silent past the health timeout; fast finishes #1, then takes #2 off the board.
    slow = _script(
        tmp_path,
        "slow",
        f"""id=$(teamtui task claim 2) || exit 3
touch "{tmp_path}/claimed"
sleep 4
if teamtui task complete "$id" --result late 2>"{tmp_path}/slow.err"; then echo completed; else echo refused; fi > "{tmp_path}/slow.mark"
{ANSWER_SHUTDOWN}""",
    )
    # fast starts work once slow holds #2.
    fast = _script(
        tmp_path, "fast", f'until [ -e {tmp_path}/claimed ]; do sleep 0.1; done\nexec "$TEAMTUI_PYTHON" {WORKER}\n'
    )
    tf = _teamfile(
        tmp_path,
        "rel",
        'health_timeout = 1.5\non_disappeared = "release"\nshutdown_deadline = 15\n',
        [("slow", str(slow)), ("fast", str(fast))],
        ["parse", "docs"],
    )
    res = run_cmd(["run", str(tf), "--headless"], timeout=120, WORK="0.1")
    assert res.returncode == 0, res.stdout + res.stderr
    tasks = tasks_on_disk(tmp_path)
    assert (
        tasks["2"]["status"] == "completed" and tasks["2"]["owner"] == "fast" and tasks["2"]["result"] == "done by fast"
    )
    assert tasks["2"]["metadata"]["failure_count"] == 1 and tasks["2"]["metadata"]["released_from"] == ["slow"]
    assert "slow disappeared" in res.stdout
    assert "slow's task #2 returned to the board (release)" in res.stdout
    # The old owner's late complete was refused, said so, and left the task as fast completed it.
    assert (tmp_path / "slow.mark").read_text().strip() == "refused"
    assert "completed by fast" in (tmp_path / "slow.err").read_text()
    log = [json.loads(x) for x in (tmp_path / ".teams/rel/logs/slow.jsonl").read_text().splitlines()]
    assert any(e["level"] == "warning" and "refused" in e["text"] for e in log)
    assert processes_of(tmp_path) == []


def test_flag_only_flags_the_teammate_keeps_its_task(tmp_path):
    slow = _script(
        tmp_path,
        "slow",
        f'id=$(teamtui task claim) || exit 3\nsleep 3\nteamtui task complete "$id" --result mine\n{ANSWER_SHUTDOWN}',
    )
    tf = _teamfile(
        tmp_path,
        "flag",
        'health_timeout = 1\non_disappeared = "flag"\nshutdown_deadline = 10\n',
        [("slow", str(slow))],
        ["one"],
    )
    res = run_cmd(["run", str(tf), "--headless"], timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "slow disappeared" in res.stdout and "returned to the board" not in res.stdout
    t = tasks_on_disk(tmp_path)["1"]
    assert (t["owner"], t["result"]) == ("slow", "mine") and "failure_count" not in t.get("metadata", {})


def test_restart_stops_the_disappeared_teammate_and_starts_it_again(tmp_path):
    # First run: claim and hang silently. The run after the restart does the work.
    mate = _script(
        tmp_path,
        "mate",
        f"""if [ ! -e "{tmp_path}/ran" ]; then touch "{tmp_path}/ran"; teamtui task claim >/dev/null; exec sleep 600; fi
id=$(teamtui task claim) || exit 3
teamtui task complete "$id" --result "second run"
{ANSWER_SHUTDOWN}""",
    )
    tf = _teamfile(
        tmp_path,
        "rst",
        'health_timeout = 3\non_disappeared = "restart"\nrestarts = 0\nshutdown_deadline = 10\n',
        [("mate", str(mate))],
        ["one"],
    )
    res = run_cmd(["run", str(tf), "--headless"], timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "mate disappeared" in res.stdout
    assert "restarting mate: it disappeared" in res.stdout
    t = tasks_on_disk(tmp_path)["1"]
    assert (t["status"], t["result"]) == ("completed", "second run")
    assert processes_of(tmp_path) == []


def test_a_task_lost_max_failures_times_is_blocked_and_the_person_told(tmp_path):
    crasher = _script(tmp_path, "crasher", "teamtui task claim >/dev/null; exit 7\n")
    tf = _teamfile(
        tmp_path,
        "fails",
        "restarts = 5\nmax_failures = 2\nshutdown_deadline = 5\n",
        [("crasher", str(crasher))],
        ["flaky"],
    )
    res = run_cmd(["run", str(tf), "--headless"], timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
    t = tasks_on_disk(tmp_path)["1"]
    assert t["status"] == "pending" and t["owner"] == ""
    assert t["metadata"]["failure_count"] == 2
    assert "failed 2 times" in t["metadata"]["blocked_reason"]
    assert "#1 flaky is blocked: failed 2 times" in res.stdout
    assert "the team cannot finish" in res.stderr + res.stdout
    # Only two runs of the teammate: nothing was assigned once the task was held.
    assert res.stdout.count("crashed (exit code 7)") == 2
    out = run_cmd(["tasks", "--root", str(tmp_path)])
    assert "failed 2 times" in out.stdout
    assert run_cmd(["task", "retry", "1", "--root", str(tmp_path)]).returncode == 0
    assert "(ready)" in run_cmd(["tasks", "--root", str(tmp_path)]).stdout


def _wait_members_started(root: Path, team: str, names: set[str]) -> None:
    def started() -> bool:
        try:
            cfg = json.loads((root / f".teams/{team}/config.json").read_text())
        except (OSError, ValueError):
            return False
        return names <= {m["name"] for m in cfg.get("members", []) if m.get("pid")}

    wait_until([root], started, timeout=60)


def test_teamtui_shutdown_wait_hands_the_whole_team_to_the_running_lead(tmp_path):
    waiter = _script(
        tmp_path,
        "waiter",
        """while ! teamtui inbox --json | grep -q '"shutdown_request"'; do sleep 0.2; done
teamtui inbox --drain >/dev/null
teamtui shutdown-reply --status in_progress --pending "#$TEAMTUI_NAME left half done"
""",
    )
    tf = _teamfile(
        tmp_path,
        "asked",
        'assign = "lead"\nshutdown_deadline = 20\n',
        [("w1", str(waiter)), ("w2", str(waiter))],
        ["a", "b"],
    )
    lead = start_run(tf)
    try:
        _wait_members_started(tmp_path, "asked", {"w1", "w2"})
        res = run_cmd(["shutdown", "--wait", "--reason", "timeout", "--root", str(tmp_path)], timeout=90)
        out, err = lead.communicate(timeout=60)
    finally:
        if lead.poll() is None:
            lead.kill()
    assert res.returncode == 0, res.stdout + res.stderr
    assert "asked the lead to shut down the whole team" in res.stdout
    assert "every teammate accounted for" in res.stdout
    lines = res.stdout.splitlines()
    assert any(x.startswith("  w1: left work unfinished · pending: #w1 left half done") for x in lines)
    assert any(x.startswith("  w2: left work unfinished · pending: #w2 left half done") for x in lines)
    assert lead.returncode == 0, out + err
    assert "user asked for the team to shut down (timeout)" in out
    # The lead sent the requests in its own name, with the reason asked for.
    assert processes_of(tmp_path) == []
    assert not (tmp_path / ".teams/asked/lead.json").exists()


def test_teamtui_shutdown_of_one_teammate_leaves_the_rest_running(tmp_path):
    waiter = _script(tmp_path, "waiter", ANSWER_SHUTDOWN)
    tf = _teamfile(
        tmp_path,
        "part",
        'assign = "lead"\nshutdown_deadline = 20\n',
        [("w1", str(waiter)), ("w2", str(waiter))],
        ["a", "b"],
    )
    lead = start_run(tf)
    try:
        _wait_members_started(tmp_path, "part", {"w1", "w2"})
        res = run_cmd(["shutdown", "w1", "--wait", "--root", str(tmp_path)], timeout=90)
        assert res.returncode == 0, res.stdout + res.stderr
        assert any(x.startswith("  w1: clean") for x in res.stdout.splitlines())
        assert "w2" not in res.stdout
        cfg = json.loads((tmp_path / ".teams/part/config.json").read_text())
        status = {m["name"]: m["status"] for m in cfg["members"]}
        assert status["w2"] != "shutdown"
        assert lead.poll() is None  # the team runs on with w2
        lead.send_signal(signal.SIGTERM)
        out, err = lead.communicate(timeout=60)
    finally:
        if lead.poll() is None:
            lead.kill()
    assert "w1 exited" in out
    assert "restarted w1" not in out
    assert processes_of(tmp_path) == []


def test_shutdown_to_a_lead_that_is_gone_is_sent_directly(tmp_path):
    # A lead.json left by a lead that died: no lead runs, so the CLI asks the teammates itself.
    from teamtui.protocol.native import NativeTeam

    store = NativeTeam(tmp_path, "orphan")
    store.create()
    store.add_member("m1")
    (store.team_dir / "lead.json").write_text(json.dumps({"pid": 2**22 + 12345, "started": "1"}))
    res = run_cmd(["shutdown", "--root", str(tmp_path)])
    assert res.returncode == 0, res.stderr
    assert "asked m1 to shut down" in res.stdout
    assert store.peek("m1").messages[-1].type == "shutdown_request"
    assert store.peek("lead").messages == []
