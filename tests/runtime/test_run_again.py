"""`teamtui run team.toml` again on a team already on disk: it resumes the team as the last run left
it (held tasks retried by a person run again), `--fresh` starts it over, and a team another live run
leads is refused. Real `teamtui run` processes, real teammate processes."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.runtime.resume import FRESH_REMOVES

from .helpers import processes_of, run_cmd, start_run, tasks_on_disk, team_toml, wait_until

# A per-task teammate whose agent fails until the person fixes the cause (a file ok.<task id>).
FAILING_AGENT = 'test -e ok.$TEAMTUI_TASK_ID || { echo "agent not found" >&2; exit 127; }; echo "done $TEAMTUI_TASK_ID"'


def per_task_team(name: str, tasks: list[tuple[str, list[int]]]) -> str:
    out = [f'[team]\nname = "{name}"\npoll_interval = 0.05\nshutdown_deadline = 3\nshutdown_grace = 1\n']
    out.append(f'[[teammates]]\nname = "builder"\nprotocol = "per-task"\ncommand = {json.dumps(FAILING_AGENT)}\n')
    for subject, deps in tasks:
        out.append(f"[[tasks]]\nsubject = {json.dumps(subject)}\nblocked_by = {json.dumps(deps)}\n")
    return "\n".join(out)


def retry(root: Path, team: str, task_id: str) -> None:
    res = run_cmd(["--root", str(root), "--team", team, "task", "retry", task_id])
    assert res.returncode == 0, res.stderr


def test_running_a_team_file_again_resumes_the_team_with_the_tasks_retried(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(per_task_team("again", [("fix", []), ("docs", []), ("review", [1, 2])]))
    first = run_cmd(["run", str(tf), "--headless"])
    assert first.returncode == 1, first.stdout + first.stderr
    assert f"team 'again' created at {tmp_path} with 3 tasks" in first.stdout
    assert "#1 fix failed 3 times" in first.stderr and "#2 docs failed 3 times" in first.stderr
    assert "to go on: fix the cause, `teamtui task retry ID`, then run the team file again" in first.stdout

    # The README's way on: fix the cause, `teamtui task retry ID`, and run again. Only #1 is retried.
    (tmp_path / "ok.1").touch()
    (tmp_path / "ok.3").touch()
    retry(tmp_path, "again", "1")
    second = run_cmd(["run", str(tf), "--headless"])
    assert "already exists" not in second.stderr
    assert (
        f"team 'again' resumed at {tmp_path}: its board as it was [0/3 tasks completed]; "
        "still held for a person: #2 (`teamtui task retry ID`); the team file's tasks are not added again"
    ) in second.stdout
    tasks = tasks_on_disk(tmp_path)
    assert tasks["1"]["status"] == "completed" and tasks["1"]["result"] == "done 1"  # retried, assigned, done
    assert tasks["2"]["metadata"]["failure_count"] == 3  # still held, and not tried again
    assert second.returncode == 1 and "#2 docs failed 3 times" in second.stderr and "#1" not in second.stderr

    (tmp_path / "ok.2").touch()
    retry(tmp_path, "again", "2")
    third = run_cmd(["run", str(tf), "--headless"])
    assert third.returncode == 0, third.stdout + third.stderr
    assert "resumed" in third.stdout and "all 3 tasks completed [3/3 tasks completed]" in third.stdout
    assert sorted(tasks_on_disk(tmp_path)) == ["1", "2", "3"]  # the team file's tasks were not added again
    # The team's files as the earlier runs left them: the first run's failures are still in its log.
    assert "agent not found" in (tmp_path / ".teams/again/logs/builder.log").read_text()
    assert processes_of(tmp_path) == []


def test_fresh_starts_the_team_over_and_says_what_it_removed(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(per_task_team("over", [("fix", [])]))
    first = run_cmd(["run", str(tf), "--headless"])
    assert first.returncode == 1 and "#1 fix failed 3 times" in first.stderr
    assert f"team 'over' created at {tmp_path} with 1 task\n" in first.stdout  # not "1 tasks"

    (tmp_path / "ok.1").touch()
    fresh = run_cmd(["run", str(tf), "--headless", "--fresh"])
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    removed = FRESH_REMOVES.replace("<team>", "over")
    assert f"--fresh: removed team 'over' at {tmp_path}: {removed} (1 task was on the board)" in fresh.stdout
    assert f"team 'over' created at {tmp_path} with 1 task" in fresh.stdout
    assert "the 1 task completed [1/1 task completed]" in fresh.stdout
    task = tasks_on_disk(tmp_path)["1"]
    assert task["status"] == "completed" and "failure_count" not in task.get("metadata", {})  # counted anew
    assert "agent not found" not in (tmp_path / ".teams/over/logs/builder.log").read_text()  # the old log went
    # `teamtui run --help` says the same of --fresh as the run does.
    usage = " ".join(run_cmd(["run", "--help"]).stdout.split())
    assert FRESH_REMOVES in usage
    assert processes_of(tmp_path) == []


def test_a_team_another_live_run_leads_is_refused_with_one_line(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("busy", teammates=["a"], tasks=[("long", [])]))
    proc = start_run(tf, WORK="60")
    try:
        wait_until([tmp_path], lambda: tasks_on_disk(tmp_path).get("1", {}).get("status") == "in_progress")
        for extra in ([], ["--fresh"]):
            res = run_cmd(["run", str(tf), "--headless", *extra])
            assert res.returncode == 1, res.stdout + res.stderr
            assert res.stderr == (
                f"teamtui: team 'busy' at {tmp_path} is already led by another `teamtui run` (pid {proc.pid}): "
                f"stop that run first, or watch it with `teamtui watch {tmp_path} --team busy`\n"
            )
        # Neither touched the team it leads.
        assert tasks_on_disk(tmp_path)["1"]["status"] == "in_progress"
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert processes_of(tmp_path) == []


def test_a_run_resumed_after_its_lead_was_killed_takes_back_what_its_teammates_held(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("killed", teammates=["a"], tasks=[("long", []), ("next", [1])]))
    proc = start_run(tf, WORK="60")
    try:
        wait_until([tmp_path], lambda: tasks_on_disk(tmp_path).get("1", {}).get("status") == "in_progress")
    finally:
        proc.kill()  # no graceful shutdown: its teammate keeps running, holding #1
        proc.communicate(timeout=30)
    for pid in processes_of(tmp_path):
        os.kill(pid, signal.SIGKILL)  # what `teamtui cleanup` or the person does with what is left
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.05")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "#1 released from a: back on the board" in res.stdout
    assert "all 2 tasks completed" in res.stdout
    assert processes_of(tmp_path) == []


def test_the_last_run_s_shutdown_request_and_answers_do_not_stop_the_resumed_team(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("stale", teammates=["a"], tasks=[("long", []), ("next", [1])]))
    proc = start_run(tf, WORK="60")
    try:
        wait_until([tmp_path], lambda: tasks_on_disk(tmp_path).get("1", {}).get("status") == "in_progress")
        # Busy for a minute, `a` never reads the lead's request: the ladder's SIGTERM ends it.
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert '"shutdown_request"' in (tmp_path / ".teams/stale/a_inbox.jsonl").read_text()
    # And an answer to it that came after its lead had gone.
    NativeTeam(tmp_path, "stale").send_shutdown_response("a", "0ld0ld00", approve=True)
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.05")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "a: the last run's shutdown request, never read, taken out of its inbox" in res.stdout
    assert "agreed to a shutdown request from outside the lead" not in res.stdout
    assert "all 2 tasks completed" in res.stdout
    assert processes_of(tmp_path) == []


def test_taking_the_requests_out_of_an_inbox_keeps_every_other_line_as_it_was(tmp_path):
    team = NativeTeam.create_team(tmp_path, "kept")
    team.add_member("a")
    team.send("a", "before", "ann")
    team.send_shutdown_request("a", "lead", "done", 30)
    inbox = team.inbox_path("a")
    with inbox.open("ab") as fh:
        fh.write(b"{not json\n")
    team.send("a", "after", "lead")
    before = inbox.read_bytes().splitlines(keepends=True)
    taken = team.take_out("a", lambda m: m.type == "shutdown_request" and m.sender == "lead")
    assert [m.type for m in taken] == ["shutdown_request"]
    assert inbox.read_bytes() == b"".join(before[0:1] + before[2:])


def test_a_team_whose_config_cannot_be_read_is_not_resumed_and_says_fresh_starts_it_over(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(per_task_team("broken", [("fix", [])]))
    (tmp_path / "ok.1").touch()
    assert run_cmd(["run", str(tf), "--headless"]).returncode == 0
    config = tmp_path / ".teams/broken/config.json"
    config.write_text("{not json")
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith(f"teamtui: {config}: invalid JSON")
    assert res.stderr.endswith(": the team cannot be resumed (--fresh starts it over)\n")
    assert config.read_text() == "{not json"  # never rewritten
    again = run_cmd(["run", str(tf), "--headless", "--fresh"])
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(config.read_text())["name"] == "broken"


def test_a_task_held_after_one_failure_says_1_time(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        per_task_team("once", [("fix", [])]).replace("shutdown_grace = 1\n", "shutdown_grace = 1\nmax_failures = 1\n")
    )
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 1, res.stdout + res.stderr
    assert "#1 fix failed 1 time (last: exit code 127: agent not found): it needs a person" in res.stderr
    assert "1 times" not in res.stdout + res.stderr
    assert "failed 1 time (last" in tasks_on_disk(tmp_path)["1"]["metadata"]["blocked_reason"]
