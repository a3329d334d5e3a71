"""Per-task teammates: a command run once per task, with real shell processes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from teamtui.protocol.models import Task
from teamtui.runtime.procs import group_alive
from teamtui.runtime.per_task import TaskRun, output_tail, start_task, task_command, task_env

HOSTILE = "it's \"x\"; touch pwned $(touch pwned2) `touch pwned3` {id}"


def run(tmp_path: Path, command: str, task: Task, **env: str) -> TaskRun:
    return start_task("ada", command, task, cwd=tmp_path, env={**os.environ, **env}, log_path=tmp_path / "logs" / "ada.log")


def finish(r: TaskRun, timeout: float = 10) -> None:
    r.popen.wait(timeout)


def test_placeholders_are_replaced_shell_quoted_and_the_shells_own_braces_are_left():
    task = Task(id="3", subject="Fix bug", description="in auth")
    assert task_command("agent --task {id} -m {subject} {description}", task) == "agent --task 3 -m 'Fix bug' 'in auth'"
    assert task_command('echo ${id} {other} {{id}}', task) == "echo ${id} {other} {3}"
    env = task_env({"PATH": "/bin"}, Task(id="3", subject="a\0b", description=""))
    assert env == {"PATH": "/bin", "TEAMTUI_TASK_ID": "3", "TEAMTUI_TASK_SUBJECT": "ab", "TEAMTUI_TASK_DESCRIPTION": ""}


def test_the_task_reaches_the_command_verbatim_and_nothing_in_it_runs(tmp_path):
    task = Task(id="7", subject=HOSTILE, description="line one\nline two")
    r = run(tmp_path, 'printf "%s\\n" {subject} "$TEAMTUI_TASK_SUBJECT" "$TEAMTUI_TASK_ID" {description}', task)
    finish(r)
    out = r.outcome()
    assert out.ok and out.code == 0
    assert out.result.split("\n") == [HOSTILE, HOSTILE, "7", "line one", "line two"]
    assert not list(tmp_path.glob("pwned*"))


def test_exit_zero_completes_with_the_last_lines_of_output_as_the_result(tmp_path):
    r = run(tmp_path, "seq 1 500; printf 'progress 10%%\\rprogress 100%%\\n'; echo; echo done >&2", Task(id="1", subject="count"))
    finish(r)
    out = r.outcome()
    assert out.ok and out.reason == ""
    lines = out.result.split("\n")
    assert len(lines) == 20
    assert lines[-3:] == ["500", "progress 100%", "done"]
    log = (tmp_path / "logs" / "ada.log").read_text()
    assert log.startswith("[teamtui] task #1: count\n1\n2\n")  # the whole output is in the log


def test_a_second_run_reports_only_its_own_output(tmp_path):
    first = run(tmp_path, "echo first", Task(id="1", subject="a"))
    finish(first)
    assert first.outcome().result == "first"
    second = run(tmp_path, "true", Task(id="2", subject="b"))
    finish(second)
    assert second.outcome().result == ""
    assert first.outcome().result == "first"  # read at its end, kept


def test_a_non_zero_exit_is_a_failure_that_says_why(tmp_path):
    r = run(tmp_path, "echo trying; echo 'no API key' >&2; exit 4", Task(id="2", subject="s"))
    finish(r)
    out = r.outcome()
    assert not out.ok and out.code == 4
    assert out.reason == "exit code 4: no API key"
    r = run(tmp_path, "cd /nonexistent-dir-for-test", Task(id="3", subject="s"))
    finish(r)
    assert not r.outcome().ok


def test_sigterm_stops_the_command_and_everything_it_started(tmp_path):
    r = run(tmp_path, "sleep 60 & sleep 61 & wait", Task(id="1", subject="long"))
    time.sleep(0.2)
    assert group_alive(r.pgid)
    with pytest.raises(RuntimeError, match="has not ended"):
        r.outcome()
    r.terminate()
    finish(r)
    assert r.outcome().reason.startswith("killed by SIGTERM")
    deadline = time.monotonic() + 5
    while group_alive(r.pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_alive(r.pgid)


def test_a_command_that_ignores_sigterm_is_stopped_by_sigkill(tmp_path):
    r = run(tmp_path, "trap '' TERM; echo armed; while :; do sleep 0.05; done", Task(id="1", subject="stubborn"))
    log = tmp_path / "logs" / "ada.log"
    deadline = time.monotonic() + 5
    while "armed" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.02)
    r.terminate()
    try:
        r.popen.wait(0.5)
        raise AssertionError("the command should have ignored SIGTERM")
    except subprocess.TimeoutExpired:
        pass
    r.kill()
    finish(r)
    assert r.outcome().code == -signal.SIGKILL


def test_output_tail_reads_only_the_end_of_a_large_log(tmp_path):
    log = tmp_path / "big.log"
    log.write_bytes(b"a" * (1 << 20) + b"\n" + b"".join(b"line %d\n" % i for i in range(100)))
    assert output_tail(log, 0, lines=3) == "line 97\nline 98\nline 99"
    assert output_tail(tmp_path / "missing.log", 0) == ""
    log.write_bytes(b"\x1b[31mred\x1b[0m \x1b]0;title\x07text\n")
    assert output_tail(log, 0) == "red text"


async def test_runs_are_awaitable_from_the_event_loop(tmp_path):
    r = run(tmp_path, "sleep 0.1; echo ok", Task(id="1", subject="s"))
    await asyncio.get_running_loop().run_in_executor(None, r.popen.wait)
    assert r.outcome().result == "ok"
