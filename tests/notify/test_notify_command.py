"""The `command` channel with real processes: each event's JSON on stdin exactly once; a command
that fails or is missing is reported once; one that hangs is killed at its deadline and never
holds up the caller."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from teamtui.notify import CommandSink, Notifier, NotifyEvent, NotifyKind
from teamtui.protocol.processes import running

APPEND_STDIN = "import sys; f = open(sys.argv[1], 'ab'); f.write(sys.stdin.buffer.read()); f.close()"


def _events() -> list[NotifyEvent]:
    return [
        NotifyEvent(NotifyKind.NEEDS_YOU, "alpha", "bob asks: may I push?", host="box", at=100.0),
        NotifyEvent(NotifyKind.TEAMMATE_STUCK, "alpha", "carol: no progress for 10 min", host="box", at=101.5),
        NotifyEvent(NotifyKind.TEAM_FINISHED, "beta", "", host="", at=102.0),
    ]


def test_the_command_gets_each_event_as_json_on_stdin_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "events.jsonl"
    problems: list[str] = []
    sink = CommandSink([sys.executable, "-c", APPEND_STDIN, str(out)], on_problem=problems.append)
    n = Notifier([sink])
    for e in _events():
        assert n.notify(e)
    assert n.wait_idle(30)
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines == [e.to_json() for e in _events()]
    assert json.loads(lines[0]) == {
        "kind": "needs_you",
        "team": "alpha",
        "host": "box",
        "text": "bob asks: may I push?",
        "at": 100.0,
    }
    assert problems == []
    n.close()


def test_a_failing_command_is_reported_once(tmp_path: Path) -> None:
    problems: list[str] = []
    fail = "import sys; sys.stdin.read(); sys.stderr.write('ntfy: no route to host\\n'); sys.exit(3)"
    sink = CommandSink([sys.executable, "-c", fail], on_problem=problems.append)
    for e in _events():
        sink.send(e)
    assert sink.wait_idle(30)
    assert len(problems) == 1
    assert problems[0].startswith("notify command ") and problems[0].endswith(
        "exited with status 3: ntfy: no route to host"
    )
    sink.close()


def test_a_command_that_works_again_re_arms_the_report(tmp_path: Path) -> None:
    flag = tmp_path / "fail"
    flag.touch()
    flaky = f"import os, sys; sys.stdin.read(); sys.exit(1 if os.path.exists({str(flag)!r}) else 0)"
    problems: list[str] = []
    sink = CommandSink([sys.executable, "-c", flaky], on_problem=problems.append)
    sink.send(_events()[0])
    sink.send(_events()[1])
    assert sink.wait_idle(30) and len(problems) == 1
    flag.unlink()
    sink.send(_events()[0])
    assert sink.wait_idle(30)
    flag.touch()
    sink.send(_events()[0])
    assert sink.wait_idle(30) and len(problems) == 2
    sink.close()


def test_a_missing_program_is_reported_once() -> None:
    problems: list[str] = []
    sink = CommandSink(["teamtui-no-such-notifier", "x"], on_problem=problems.append)
    sink.send(_events()[0])
    sink.send(_events()[1])
    assert sink.wait_idle(30)
    assert problems == ["notify command 'teamtui-no-such-notifier': not found"]
    sink.close()


def test_a_hanging_command_is_killed_at_its_deadline_without_blocking_the_caller(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # The shell and a child of its own (sleep 60): both must end at the deadline.
    hang = ["sh", "-c", f"echo $$ > {pids}; sleep 60 & echo $! >> {pids}; wait"]
    problems: list[str] = []
    n = Notifier([CommandSink(hang, timeout=1.0, on_problem=problems.append)])
    start = time.monotonic()
    assert n.notify(_events()[0])
    assert n.notify(_events()[1])
    returned = time.monotonic() - start
    assert returned < 0.1, f"notify waited {returned:.3f} s for the command"
    assert n.wait_idle(30)
    took = time.monotonic() - start
    # Two runs, one after the other, each stopped at 1 s.
    assert 2.0 <= took < 10.0, took
    assert problems == ["notify command 'sh' still ran after 1 s and was stopped"]
    for pid in map(int, pids.read_text().split()):
        deadline = time.monotonic() + 5
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(pid), f"process {pid} outlived the deadline"
    n.close()


def test_an_empty_command_is_refused() -> None:
    try:
        CommandSink([])
    except ValueError:
        return
    raise AssertionError("an empty argv was accepted")
