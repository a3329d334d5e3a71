"""Per-task teammates: a command run once per task, with real shell processes and real teams."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from teamtui.protocol.models import Task
from teamtui.protocol.native import NativeTeam
from teamtui.runtime.per_task import last_lines, run_task, task_command, task_env
from teamtui.runtime.failures import failures, given_up
from teamtui.runtime.per_task_teammate import launch
from teamtui.protocol.processes import group_alive
from teamtui.runtime.spawn import ChildProcess, ProcessSpawner

from .helpers import ROOT

HOSTILE = 'it\'s "x"; touch pwned $(touch pwned2) `touch pwned3` {id}'


def run(tmp_path: Path, command: str, task: Task, **kw):
    out = tmp_path / "out.log"
    with open(out, "ab") as f:
        outcome = run_task(command, task, cwd=tmp_path, env=dict(os.environ), out=f.fileno(), **kw)
    return outcome, out.read_text()


# ------------------------------------------------------------------ one run
def test_placeholders_are_replaced_shell_quoted_and_the_shells_own_braces_are_left():
    task = Task(id="3", subject="Fix bug", description="in auth")
    assert task_command("agent --task {id} -m {subject} {description}", task) == "agent --task 3 -m 'Fix bug' 'in auth'"
    assert task_command("echo ${id} {other} {{id}}", task) == "echo ${id} {other} {3}"
    env = task_env({"PATH": "/bin"}, Task(id="3", subject="a\0b", description=""))
    assert env == {"PATH": "/bin", "TEAMTUI_TASK_ID": "3", "TEAMTUI_TASK_SUBJECT": "ab", "TEAMTUI_TASK_DESCRIPTION": ""}


def test_the_task_reaches_the_command_verbatim_and_nothing_in_it_runs(tmp_path):
    task = Task(id="7", subject=HOSTILE, description="line one\nline two")
    out, _ = run(tmp_path, 'printf "%s\\n" {subject} "$TEAMTUI_TASK_SUBJECT" "$TEAMTUI_TASK_ID" {description}', task)
    assert out.ok and out.code == 0
    assert out.result.split("\n") == [HOSTILE, HOSTILE, "7", "line one", "line two"]
    assert not list(tmp_path.glob("pwned*"))


def test_exit_zero_completes_with_the_last_lines_of_output_as_the_result(tmp_path):
    out, log = run(
        tmp_path,
        "seq 1 500; printf 'progress 10%%\\rprogress 100%%\\n'; echo; echo done >&2",
        Task(id="1", subject="count"),
    )
    assert out.ok and out.reason == ""
    lines = out.result.split("\n")
    assert len(lines) == 20
    assert lines[-3:] == ["500", "progress 100%", "done"]
    assert log.startswith("1\n2\n3\n") and log.endswith("done\n")  # all of it passed on to the log


def test_a_non_zero_exit_is_a_failure_that_says_why(tmp_path):
    out, _ = run(tmp_path, "echo trying; echo 'no API key' >&2; exit 4", Task(id="2", subject="s"))
    assert not out.ok and out.code == 4
    assert out.reason == "exit code 4: no API key"
    out, _ = run(tmp_path, "kill -KILL $$", Task(id="3", subject="s"))
    assert out.reason == "killed by SIGKILL"


def test_a_large_output_keeps_only_its_end_in_memory(tmp_path):
    out, log = run(
        tmp_path,
        f"{sys.executable} -c \"print('a' * (1 << 20)); [print('line', i) for i in range(100)]\"",
        Task(id="1", subject="s"),
    )
    assert out.result.split("\n")[-2:] == ["line 98", "line 99"]
    assert len(log) > 1 << 20
    assert last_lines(b"\x1b[31mred\x1b[0m \x1b]0;title\x07text\n") == "red text"
    assert last_lines(b"tail of a cut line\nwhole\n", cut=True) == "whole"


def test_a_quiet_command_gives_the_caller_its_turns(tmp_path):
    calls: list[float] = []
    out, _ = run(tmp_path, "sleep 0.5; echo late", Task(id="1", subject="s"), quiet_every=0.05, on_quiet=calls.append)
    assert out.result == "late"
    assert len(calls) >= 3 and calls == sorted(calls)


# ------------------------------------------------------------------ the teammate process
def team(tmp_path: Path, tasks: list[tuple[str, list[str]]]) -> NativeTeam:
    store = NativeTeam(tmp_path, "pt")
    store.create()
    for subject, deps in tasks:
        store.create_task(subject, blocked_by=deps)
    return store


def start(store: NativeTeam, name: str, command: str, *, assign: str = "self") -> ChildProcess:
    line, extra = launch(command)
    store.add_member(name, command=command)
    env = {
        **os.environ,
        **extra,
        "PYTHONPATH": str(ROOT),
        "TEAMTUI_ROOT": str(store.root),
        "TEAMTUI_TEAM": store.name,
        "TEAMTUI_NAME": name,
        "TEAMTUI_ASSIGN": assign,
        "TEAMTUI_POLL": "0.05",
        "TEAMTUI_PYTHON": sys.executable,
        "PYTHONUNBUFFERED": "1",
    }
    return ProcessSpawner().spawn(name, line, cwd=store.root, env=env, log_path=store.logs_dir / f"{name}.log")


def wait_for(cond, timeout: float = 20) -> None:
    # The teammates are separate processes writing files: the test waits for what they write.
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def tasks_of(store: NativeTeam) -> dict[str, Task]:
    return {t.id: t for t in store.list_tasks()[0]}


def lead_messages(store: NativeTeam) -> list:
    return store.peek("lead").messages


def stop(store: NativeTeam, procs: list[ChildProcess]) -> None:
    for p in procs:
        store.send_shutdown_request(p.name, "lead", "phase_complete", 5)
    for p in procs:
        assert p.popen.wait(10) == 0
        p.kill()


def test_two_per_task_teammates_complete_a_task_graph_and_a_failing_task_is_left_after_3_failures(tmp_path):
    graph = [("schema", []), ("models", ["1"]), ("broken", []), ("after broken", ["3"]), ("docs", [])]
    store = team(tmp_path, graph)
    cmd = 'echo "did $TEAMTUI_TASK_SUBJECT"; test {subject} != broken || { echo "cannot build" >&2; exit 3; }'
    procs = [start(store, "ada", cmd), start(store, "bob", cmd)]
    wait_for(
        lambda: (
            {t.id for t in tasks_of(store).values() if t.status.value == "completed"} == {"1", "2", "5"}
            and failures(store, "3") >= 3
        )
    )
    time.sleep(0.5)  # time enough for a fourth attempt, were one coming
    tasks = tasks_of(store)
    assert tasks["2"].claimed_at >= tasks["1"].completed_at
    assert {tasks[i].result for i in "125"} == {"did schema", "did models", "did docs"}
    assert failures(store, "3") == 3
    assert tasks["3"].status.value == "pending" and tasks["3"].owner == ""
    assert tasks["4"].status.value == "pending"  # never started: its blocker never completed
    assert tasks["3"].metadata["last_failure"] == "exit code 3: cannot build"
    assert "failed 3 times" in tasks["3"].metadata["blocked_reason"]  # held: the board shows it blocked
    logs = "".join((tmp_path / f".teams/pt/logs/{n}.jsonl").read_text() for n in ("ada", "bob"))
    assert "#3 failed 3 times, last: exit code 3: cannot build; blocked" in logs
    assert given_up(store, tasks.values()) == {"3": "#3 broken failed 3 times (last: exit code 3: cannot build)"}
    out = (tmp_path / ".teams/pt/logs/ada.log").read_text() + (tmp_path / ".teams/pt/logs/bob.log").read_text()
    assert "did schema" in out and "cannot build" in out  # the commands' output is in the teammates' logs
    assert any(
        m.type == "idle_notification" and getattr(m.payload, "completed_task_id", "") for m in lead_messages(store)
    )
    stop(store, procs)


def test_with_assign_lead_it_runs_what_it_is_given(tmp_path):
    store = team(tmp_path, [("only", [])])
    p = start(store, "ada", "echo ran {id}", assign="lead")
    wait_for(lambda: any(m.type == "idle_notification" for m in lead_messages(store)))
    assert tasks_of(store)["1"].status.value == "pending"  # it does not claim for itself
    task = store.claim_task("1", "ada")
    store.send(
        "ada", "Please work on #1", "lead", type="task_assignment", extra={"task_id": task.id, "subject": task.subject}
    )
    # The status and the result are two files: wait for both.
    wait_for(lambda: tasks_of(store)["1"].status.value == "completed" and tasks_of(store)["1"].result is not None)
    assert tasks_of(store)["1"].result == "ran 1"
    stop(store, [p])


def test_a_shutdown_during_a_run_is_answered_with_the_pending_task_and_the_run_finishes(tmp_path):
    store = team(tmp_path, [("slow", [])])
    p = start(store, "ada", "sleep 1; echo finished")
    wait_for(lambda: tasks_of(store)["1"].owner == "ada")
    rid = store.send_shutdown_request("ada", "lead", "phase_complete", 10)
    wait_for(lambda: any(m.type == "shutdown_response" for m in lead_messages(store)))
    reply = next(m for m in lead_messages(store) if m.type == "shutdown_response")
    assert reply.payload.request_id == rid and reply.payload.status == "in_progress"
    assert reply.payload.pending_work == ["#1 slow"]
    assert p.popen.wait(10) == 0
    assert tasks_of(store)["1"].status.value == "completed"


@pytest.mark.parametrize("command", ["sleep 60 & sleep 61 & wait", "trap '' TERM; while :; do sleep 0.05; done"])
def test_the_ladder_stops_the_running_command_with_its_teammate(tmp_path, command):
    store = team(tmp_path, [("long", [])])
    p = start(store, "ada", command)
    log = tmp_path / ".teams/pt/logs/ada.jsonl"
    wait_for(lambda: log.exists() and "running the command for #1" in log.read_text())
    time.sleep(0.2)
    p.terminate()  # the lead's SIGTERM to the teammate's group
    try:
        p.popen.wait(1)
    except Exception:  # noqa: BLE001 - the teammate itself is gone; its command may ignore SIGTERM
        pass
    if group_alive(p.pgid):
        p.kill()  # ... then SIGKILL after the grace
    wait_for(lambda: not group_alive(p.pgid), timeout=5)
    assert p.popen.wait(5) in (-signal.SIGTERM, -signal.SIGKILL)
    assert tasks_of(store)["1"].owner == "ada"  # released by the lead when it sees the exit, not counted a failure
    assert failures(store, "1") == 0


def test_a_task_file_that_does_not_read_counts_no_failures(tmp_path: Path) -> None:
    store = NativeTeam.create_team(tmp_path, "pt")
    task = store.create_task("read me")
    store.task_path(task.id).write_text("{not json")  # a torn or hand-broken file
    assert failures(store, task.id) == 0
