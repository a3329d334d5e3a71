"""`teamtui run` leading per-task teammates: shell commands run once per task, real processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from .helpers import env_for_run, processes_of, run_cmd, tasks_on_disk, wait_until

GRAPH = [("schema", []), ("models", [1]), ("flaky", []), ("api", [2, 3]), ("docs", []), ("release", [4, 5])]
# Fails the first time it runs "flaky" (a marker file remembers), succeeds after.
COMMAND = (
    'if [ {subject} = flaky ] && mkdir ../flaked 2>/dev/null; then echo "network down" >&2; exit 1; fi; '
    'echo "$TEAMTUI_NAME built $TEAMTUI_TASK_SUBJECT (#{id})"'
)


def per_task_toml(name: str, mates: list[str], tasks, settings: str = "") -> str:
    out = [f'[team]\nname = "{name}"\npoll_interval = 0.05\nshutdown_deadline = 3\nshutdown_grace = 1\n{settings}']
    for mate in mates:
        out.append(
            f'[[teammates]]\nname = "{mate}"\nprotocol = "per-task"\ncommand = {json.dumps(COMMAND)}\ncwd = "work"\n'
        )
    for subject, deps in tasks:
        out.append(f"[[tasks]]\nsubject = {json.dumps(subject)}\nblocked_by = {json.dumps(deps)}\n")
    return "\n".join(out)


@pytest.mark.parametrize("assign", ["self", "lead"])
def test_a_per_task_team_of_shell_commands_completes_a_task_graph(tmp_path, assign):
    (tmp_path / "work").mkdir()
    tf = tmp_path / "team.toml"
    tf.write_text(per_task_toml("pt", ["ada", "bob"], GRAPH, f'assign = "{assign}"\n'))
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all 6 tasks completed" in res.stdout
    tasks = tasks_on_disk(tmp_path)
    assert all(t["status"] == "completed" for t in tasks.values())
    for t in tasks.values():
        assert t["result"] == f"{t['owner']} built {t['subject']} (#{t['id']})"
        for dep in t["blocked_by"]:
            assert t["claimed_at"] >= tasks[dep]["completed_at"]
    # The flaky command failed once: counted, the task went back to the board and was run again.
    assert (
        tasks["3"]["metadata"]["failure_count"] == 1
        and tasks["3"]["metadata"]["last_failure"] == "exit code 1: network down"
    )
    logs = "".join((tmp_path / f".teams/pt/logs/{n}.log").read_text() for n in ("ada", "bob"))
    assert "network down" in logs and "built schema (#1)" in logs  # the commands' output, in the teammates' logs
    assert processes_of(tmp_path) == []


def test_a_shutdown_stops_a_running_command_with_the_ladder(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        '[team]\nname = "slow"\npoll_interval = 0.05\nshutdown_deadline = 1\nshutdown_grace = 1\n'
        '[[teammates]]\nname = "ada"\nprotocol = "per-task"\ncommand = "trap \'\' TERM; echo started; sleep 30"\n'
        '[[tasks]]\nsubject = "forever"\n'
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamtui", "run", str(tf), "--headless"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for_run(),
    )
    log = tmp_path / ".teams/slow/logs/ada.log"
    wait_until([tmp_path], lambda: log.exists() and "started" in log.read_text())
    proc.send_signal(signal.SIGINT)  # Ctrl-C: the graceful shutdown
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "ada answered the shutdown request: left work unfinished, pending: #1 forever" in out
    assert "sending SIGTERM to ada" in out
    # The command ignored SIGTERM; its teammate did not, and nothing of its group outlives it.
    assert processes_of(tmp_path) == []
    assert "#1 back to pending" in out


@pytest.mark.parametrize("assign", ["self", "lead"])
def test_a_command_that_keeps_failing_leaves_its_task_for_a_person_after_3_failures(tmp_path, assign):
    (tmp_path / "work").mkdir()
    tf = tmp_path / "team.toml"
    graph = [("schema", []), ("broken", []), ("after broken", [2]), ("docs", [1])]
    text = per_task_toml("fails", ["ada", "bob"], graph, f'assign = "{assign}"\n')
    tf.write_text(
        text.replace(
            json.dumps(COMMAND), json.dumps('test {subject} != broken || { echo "cannot build" >&2; exit 3; }; echo ok')
        )
    )
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 1, res.stdout + res.stderr
    assert "#2 broken failed 3 times (last: exit code 3: cannot build): it needs a person" in res.stderr
    tasks = tasks_on_disk(tmp_path)
    assert [tasks[i]["status"] for i in "1234"] == ["completed", "pending", "pending", "completed"]
    assert tasks["2"]["metadata"]["failure_count"] == 3 and tasks["2"]["owner"] == ""
    assert processes_of(tmp_path) == []


def test_the_team_file_s_max_failures_reaches_the_per_task_teammate(tmp_path):
    (tmp_path / "work").mkdir()
    tf = tmp_path / "team.toml"
    text = per_task_toml("five", ["ada"], [("broken", [])], "max_failures = 5\n")
    tf.write_text(
        text.replace(
            json.dumps(COMMAND), json.dumps('echo "limit $TEAMTUI_MAX_FAILURES"; echo "cannot build" >&2; exit 3')
        )
    )
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 1, res.stdout + res.stderr
    assert "#1 broken failed 5 times (last: exit code 3: cannot build): it needs a person" in res.stderr
    logs = tmp_path / ".teams/five/logs"
    output, said = (logs / "ada.log").read_text(), (logs / "ada.jsonl").read_text()
    # The teammate (and so its command) is told the team file's limit, and counts to it with the board.
    assert "limit 5" in output and "limit 3" not in output
    assert "failure 4 of 5" in said and "#1 failed 5 times" in said and "failed 3 times" not in said
    assert tasks_on_disk(tmp_path)["1"]["metadata"]["failure_count"] == 5
    assert processes_of(tmp_path) == []
