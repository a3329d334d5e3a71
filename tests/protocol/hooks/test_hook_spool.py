"""`teamtui hook` records what Claude Code tells it in the spool, and never fails Claude Code's
event: the events the real 2.1.332 sent, then malformed, hostile and huge ones, in real processes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.protocol.hooks.spool import MAX_SPOOL_BYTES, SpoolReader, count_dropped, write_event

from tests.protocol.hooks.helpers import env_for, hook, recorded, spool_lines, spool_of

CHEAP = ("SessionStart", "Notification", "TeammateIdle", "SubagentStart", "SubagentStop", "Stop")


@pytest.mark.parametrize("mode", ["tmux", "in-process"])
def test_every_recorded_event_lands_in_the_spool_as_claude_code_sent_it(tmp_path: Path, mode: str) -> None:
    env = env_for(tmp_path)
    events = [e for e in recorded(mode) if e["hook_event_name"] in CHEAP]
    for e in events:
        done = hook(env, e)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    lines = spool_lines(tmp_path)
    assert [line["event"] for line in lines] == [e["hook_event_name"] for e in events]
    for line, e in zip(lines, events, strict=True):
        assert line["session_id"] == e["session_id"]
        for key in ("notification_type", "message", "teammate_name", "team_name", "agent_id", "agent_type", "source"):
            assert line.get(key) == e.get(key)
        assert line["pid"] > 1 and line["at"] > 0


def test_the_waiting_for_a_person_notification_says_who_and_what(tmp_path: Path) -> None:
    worker = next(e for e in recorded("tmux") if e.get("notification_type") == "worker_permission_prompt")
    hook(env_for(tmp_path), worker)
    (line,) = spool_lines(tmp_path)
    assert line["event"] == "Notification"
    assert line["notification_type"] == "worker_permission_prompt"
    assert line["message"] == "alice needs permission for Bash"


def test_the_spool_folder_is_the_users_alone(tmp_path: Path) -> None:
    hook(env_for(tmp_path), recorded("tmux")[0])
    spool = spool_of(tmp_path)
    for folder in (spool, spool.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((spool / "events.jsonl").stat().st_mode) == 0o600


def test_a_spool_folder_opened_to_others_is_closed_again(tmp_path: Path) -> None:
    spool = spool_of(tmp_path)
    spool.mkdir(parents=True)
    os.chmod(spool, 0o777)
    hook(env_for(tmp_path), recorded("tmux")[0])
    assert stat.S_IMODE(spool.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "data, why",
    [
        (b"", "not JSON"),
        (b"not json at all", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"session_id": "x"}', "no hook_event_name"),
        (b'{"hook_event_name": "Stop"}', "no session_id"),
        (b'{"hook_event_name": "../../etc", "session_id": "x"}', "no hook_event_name"),
        (b"\xff\xfe\x00garbage", "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
        (b'{"hook_event_name": "Stop", "session_id": "' + b"x" * (2 << 20) + b'"}', "larger than"),
    ],
    ids=["empty", "text", "list", "no-event", "no-session", "path-event", "binary", "deep", "huge"],
)
def test_a_malformed_or_hostile_event_is_dropped_and_counted_never_a_crash(
    tmp_path: Path, data: bytes, why: str
) -> None:
    done = hook(env_for(tmp_path), data)
    assert (done.returncode, done.stdout) == (0, "")
    (line,) = spool_lines(tmp_path)
    assert why in line["dropped"]
    assert count_dropped(spool_of(tmp_path)) == 1


def test_hostile_text_is_kept_as_data_and_bounded(tmp_path: Path) -> None:
    event = {
        "hook_event_name": "Notification",
        "session_id": "s1",
        "message": "\x1b]52;c;ZXZpbA==\x07[bold]rm -rf ~[/bold]\u202e" + "y" * 50_000,
        "notification_type": {"nested": ["not", "a", "string"]},
        "unknown_key": "z" * 100_000,
    }
    done = hook(env_for(tmp_path), event)
    assert done.returncode == 0
    (line,) = spool_lines(tmp_path)
    assert line["message"].startswith("\x1b]52;c;ZXZpbA==\x07[bold]rm -rf ~[/bold]\u202e")  # data, untouched
    assert len(line["message"]) <= 2000
    assert "notification_type" not in line and "unknown_key" not in line
    assert len((spool_of(tmp_path) / "events.jsonl").read_bytes()) < 3000


def test_a_spool_that_cannot_be_written_still_exits_0_with_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "teamtui").write_text("a file where the folder should be")
    done = hook(env_for(tmp_path), recorded("tmux")[0])
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.startswith("teamtui hook: ") and len(done.stderr.splitlines()) == 1


def test_the_spool_is_bounded_one_older_generation(tmp_path: Path) -> None:
    spool = tmp_path
    record = {"v": 1, "at": 1.0, "event": "Stop", "session_id": "s", "last_assistant_message": "m" * 1000}
    for _ in range(3 * MAX_SPOOL_BYTES // 1000):
        write_event(spool, record)
    sizes = [(spool / n).stat().st_size for n in ("events.jsonl", "events.1.jsonl")]
    assert all(s <= MAX_SPOOL_BYTES + 2000 for s in sizes)
    assert sorted(p.name for p in spool.iterdir() if p.name.startswith("events")) == ["events.1.jsonl", "events.jsonl"]


def test_a_reader_follows_the_spool_across_a_rotation_without_losing_or_repeating(tmp_path: Path) -> None:
    spool = tmp_path
    reader = SpoolReader(spool)
    seen: list[int] = []
    n = 0
    # Read after every 200 lines: far more often than a rotation (about 900 lines of this size).
    for _ in range(15):
        for _ in range(200):
            write_event(spool, {"v": 1, "at": float(n), "event": "Stop", "session_id": "s", "n": n, "pad": "p" * 1100})
            n += 1
        seen += [int(r["at"]) for r in reader.read()]
    assert seen == list(range(n))
    assert (spool / "events.1.jsonl").exists()  # it did rotate


def test_a_reader_takes_only_whole_lines(tmp_path: Path) -> None:
    reader = SpoolReader(tmp_path, from_start=True)
    path = tmp_path / "events.jsonl"
    line = json.dumps({"v": 1, "at": 1.0, "event": "Stop", "session_id": "s"}) + "\n"
    path.write_text(line + line[:10])
    assert len(reader.read()) == 1
    with path.open("a") as fh:
        fh.write(line[10:])
    assert len(reader.read()) == 1


# Stands in for Claude Code: runs the hook through a shell that stays between them (`; true` keeps
# sh from exec-ing it), as a hook command written for a shell runs, then says its own pid. With its
# session's record, a wrapper (`timeout`) sits between too: only the record can tell then.
_CLAUDE = """
import json, os, subprocess, sys
if sys.argv[1] == "session":
    sessions = os.path.join(os.environ["CLAUDE_CONFIG_DIR"], "sessions")
    os.makedirs(sessions, exist_ok=True)
    with open(os.path.join(sessions, f"{os.getpid()}.json"), "w") as fh:
        json.dump({"pid": os.getpid(), "sessionId": sys.argv[2], "kind": "interactive"}, fh)
    with open(os.path.join(sessions, f"{os.getpid()}.deadbeef.key"), "w") as fh:
        fh.write("secret")
wrap = "timeout 30 " if sys.argv[1] == "session" else ""
subprocess.run(["sh", "-c", f"{wrap}{sys.executable} -m teamtui hook; true"], input=sys.argv[3].encode(), check=True)
print(os.getpid())
"""


@pytest.mark.parametrize("facts", ["session", "none"])
def test_the_recorded_pid_is_claude_codes_even_through_a_shell(tmp_path: Path, facts: str) -> None:
    # Its own sessions/<pid>.json names it on every OS; without one, the process above the shell does.
    env = env_for(tmp_path, CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    event = next(e for e in recorded("tmux") if e["hook_event_name"] == "Notification")
    done = subprocess.run(
        [sys.executable, "-c", _CLAUDE, facts, event["session_id"], json.dumps(event)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert done.returncode == 0, done.stderr
    (line,) = spool_lines(tmp_path)
    assert line["pid"] == int(done.stdout.strip())
