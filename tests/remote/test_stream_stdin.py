"""`teamtui stream` whose stdin is no pipe (nohup, cron, a service): /dev/null, nohup's write-only
/dev/null, no stdin at all, a plain file. A stdin that cannot be read is a closed one: the stream
says what it has, answers what the file asks, and ends, with no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import EXAMPLES, NATIVE_TEAM, copy_tree
from .test_stream_cmd import stream_env


@pytest.fixture
def there(tmp_path: Path) -> Path:
    copy_tree(EXAMPLES / "native", tmp_path / "proj")
    (tmp_path / "claude").mkdir()
    return tmp_path


def stream_with_stdin(there: Path, stdin: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "teamtui", "stream", "--heartbeat", "0.3", str(there / "proj")]
    if stdin == "closed":  # fd 0 not open at all
        command = ["sh", "-c", 'exec "$@" <&-', "sh", *command]
    with open(os.devnull, "wb" if stdin == "write-only" else "rb") as null:  # nohup opens it write-only
        return subprocess.run(
            command,
            stdin=subprocess.DEVNULL if stdin == "closed" else null,
            capture_output=True,
            env=stream_env(there),
            cwd=there,
            timeout=30,
        )


@pytest.mark.parametrize("stdin", ["/dev/null", "write-only", "closed"])
def test_a_stdin_that_gives_nothing_is_closed_the_stream_says_its_teams_and_ends(there: Path, stdin: str) -> None:
    proc = stream_with_stdin(there, stdin)
    assert proc.stderr.decode() == ""
    assert proc.returncode == 0
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["type"] == "hello"
    assert [o["team"][2] for o in lines if o["type"] == "team"] == [NATIVE_TEAM]
    assert lines[-1] == {"type": "ready", "teams": 1}


def test_a_plain_file_on_stdin_is_read_as_requests_then_the_stream_ends(there: Path) -> None:
    asks = there / "asks.jsonl"
    asks.write_text(json.dumps({"id": 1, "op": "ping"}) + "\n" + json.dumps({"id": 2, "op": "ping"}) + "\n")
    with asks.open("rb") as stdin:
        proc = subprocess.run(
            [sys.executable, "-m", "teamtui", "stream", str(there / "proj")],
            stdin=stdin,
            capture_output=True,
            env=stream_env(there),
            cwd=there,
            timeout=30,
        )
    assert proc.stderr.decode() == "" and proc.returncode == 0
    results = [o for line in proc.stdout.splitlines() if (o := json.loads(line))["type"] == "result"]
    assert [(o["id"], o["ok"]) for o in results] == [(1, True), (2, True)]
