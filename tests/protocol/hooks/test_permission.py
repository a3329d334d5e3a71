"""A permission request through `teamtui hook`: real hook processes, a real room lock, answers
given as the room and the CLI give them. What Claude Code then does with the printed decision is
tests/interop/test_hooks.py's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.answers import (
    ALLOWED,
    DENIED,
    GONE,
    MOVED,
    OPEN,
    AnswerRefused,
    answer,
    list_asks,
    read_ask,
)
from teamtui.protocol.hooks.room import RoomPresence, room_running
from tests.protocol.hooks.helpers import (
    env_for,
    hook,
    recorded,
    spool_lines,
    spool_of,
    start_hook,
    wait_for,
    write_config,
)
from tests.sigint import sigint_default

# As the real 2.1.332 sent them: the lead's own Bash request, and in-process alice's.
_ASKED = [e for e in recorded("in-process") if e["hook_event_name"] == "PermissionRequest"]
LEAD_ASKS = next(e for e in _ASKED if "agent_type" not in e)
ALICE_ASKS = next(e for e in _ASKED if e.get("agent_type") == "alice")
ALLOW_JSON = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}


@pytest.fixture
def base(tmp_path: Path) -> Path:
    spool_of(tmp_path).mkdir(parents=True, mode=0o700)
    os.chmod(spool_of(tmp_path).parent, 0o700)
    return tmp_path


@pytest.fixture
def room(base: Path):
    with RoomPresence(spool_of(base)) as presence:
        yield presence


def _asked(base: Path) -> str:
    """The id of the request the hook made, once it can be answered."""
    asks = wait_for(lambda: list_asks(spool_of(base)), "the hook's request")
    assert len(asks) == 1
    return asks[0].id


def _done(proc: subprocess.Popen[str], timeout: float = 20) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def test_no_room_running_the_hook_exits_at_once_with_no_output(base: Path) -> None:
    done = hook(env_for(base), LEAD_ASKS)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    (line,) = spool_lines(base)
    assert line["event"] == "PermissionRequest" and line["outcome"] == "no room running"
    assert list_asks(spool_of(base), closed=True) == []
    assert journal.read(spool_of(base))[-1]["outcome"] == "no room running"


def test_answer_wait_0_turns_answering_off_even_with_a_room(base: Path, room: RoomPresence) -> None:
    write_config(base, "answer_wait = 0\n")
    done = hook(env_for(base), LEAD_ASKS)
    assert (done.returncode, done.stdout) == (0, "")
    assert spool_lines(base)[0]["outcome"] == "answering is off (answer_wait = 0)"


def test_allowed_from_the_room_the_hook_prints_claude_codes_allow(base: Path, room: RoomPresence) -> None:
    proc = start_hook(env_for(base), ALICE_ASKS)
    rid = _asked(base)
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.state == OPEN
    assert (ask.asker, ask.tool["name"], ask.tool["command"]) == ("alice", "Bash", ALICE_ASKS["tool_input"]["command"])
    assert ask.summary == f"Bash: {ALICE_ASKS['tool_input']['command']}"
    answer(spool_of(base), rid, "allow", via="room", where="this room")
    code, out, _ = _done(proc)
    assert code == 0 and json.loads(out) == ALLOW_JSON
    assert read_ask(spool_of(base), rid).state == ALLOWED  # type: ignore[union-attr]
    whats = [(j["what"], j.get("via")) for j in journal.read(spool_of(base))]
    assert whats == [("asked", None), ("answered", "room"), ("carried_out", None)]
    with pytest.raises(AnswerRefused) as late:  # a second answer is told what came first, as a state
        answer(spool_of(base), rid, "deny", via="cli")
    assert late.value.closed == ALLOWED and "already allowed" in str(late.value)


def test_denied_with_a_reason_the_reason_reaches_claude_code_as_data(base: Path, room: RoomPresence) -> None:
    reason = 'not on main; "$(rm -rf ~)"\n`id` \x1b[31m'
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    answer(spool_of(base), rid, "deny", message=reason, via="cli")
    code, out, _ = _done(proc)
    assert json.loads(out) == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": reason},
        }
    }
    assert read_ask(spool_of(base), rid).state == DENIED  # type: ignore[union-attr]


def test_left_to_the_lead_the_hook_prints_nothing(base: Path, room: RoomPresence) -> None:
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    answer(spool_of(base), rid, "lead", via="cli")
    assert _done(proc)[:2] == (0, "")
    assert read_ask(spool_of(base), rid).state == MOVED  # type: ignore[union-attr]


def test_the_first_answer_wins_and_nothing_is_answered_twice(base: Path, room: RoomPresence) -> None:
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    env = env_for(base)
    racers = [
        subprocess.Popen(
            [sys.executable, "-m", "teamtui", "answer", rid, "allow" if i % 2 else "deny", "-m", f"racer {i}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    results = [(r.wait(30), r.stderr.read()) for r in racers]
    assert sorted(code for code, _ in results) == [0] + [1] * 7
    assert all("already" in err for code, err in results if code)
    code, out, _ = _done(proc)
    decision = json.loads(out)["hookSpecificOutput"]["decision"]["behavior"]
    winner = read_ask(spool_of(base), rid)
    assert winner is not None and winner.answer is not None and winner.answer["decision"] == decision
    assert [j["what"] for j in journal.read(spool_of(base))].count("answered") == 1


def test_nobody_answers_within_answer_wait_the_request_moves_to_the_lead(base: Path, room: RoomPresence) -> None:
    write_config(base, "answer_wait = 1\n")
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    assert _done(proc)[:2] == (0, "")
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.state == MOVED and ask.answer is not None
    assert ask.answer["why"] == "nobody answered within 1 s"
    with pytest.raises(AnswerRefused, match="left to the lead's terminal"):
        answer(spool_of(base), rid, "allow")


def test_a_room_that_quits_while_a_request_waits_hands_it_to_the_lead(base: Path) -> None:
    env = env_for(base)
    room = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom teamtui.protocol.hooks.room import RoomPresence\n"
            "RoomPresence().hold(); print('held', flush=True); time.sleep(600)",
        ],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert room.stdout is not None and room.stdout.readline().strip() == "held"
        proc = start_hook(env, LEAD_ASKS)
        rid = _asked(base)
        room.kill()  # however it ends, the kernel drops its lock
        room.wait()
        assert _done(proc)[:2] == (0, "")
    finally:
        room.kill()
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.state == MOVED and ask.answer is not None and ask.answer["why"] == "the room quit"


def test_a_hook_that_was_killed_is_no_longer_answerable(base: Path, room: RoomPresence) -> None:
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    proc.kill()
    proc.wait()
    assert read_ask(spool_of(base), rid).state == GONE  # type: ignore[union-attr]
    with pytest.raises(AnswerRefused, match="no longer waiting"):
        answer(spool_of(base), rid, "allow")


def test_a_hook_claude_code_ends_hands_the_request_to_the_lead(base: Path, room: RoomPresence) -> None:
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    proc.send_signal(signal.SIGTERM)
    assert _done(proc)[:2] == (0, "")
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.state == MOVED and ask.answer is not None
    assert ask.answer["why"] == "Claude Code ended the hook"


@pytest.mark.parametrize("rid", ["../../x", "", "z" * 32, "A" * 32, "0" * 31])
def test_an_id_that_is_no_request_id_is_refused_before_any_path(base: Path, rid: str) -> None:
    with pytest.raises(AnswerRefused, match="not a permission request id"):
        answer(spool_of(base), rid, "allow")


def test_an_answer_that_is_not_one_to_this_very_request_is_not_carried_out(base: Path, room: RoomPresence) -> None:
    proc = start_hook(env_for(base), LEAD_ASKS)
    rid = _asked(base)
    folder = spool_of(base) / "requests" / rid
    forged = {"v": 1, "id": "0" * 32, "decision": "allow", "via": "cli", "from": "x", "at": 1.0}
    (folder / "answer.json").write_text(json.dumps(forged))
    os.open(folder / "wake", os.O_WRONLY | os.O_NONBLOCK).__class__  # noqa: B018 - the FIFO is there
    fd = os.open(folder / "wake", os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, b"!")
    os.close(fd)
    assert _done(proc)[:2] == (0, "")  # no allow printed
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.answer is not None and ask.answer["why"] == "a malformed answer was left"


def _transcript(base: Path, event: dict) -> tuple[dict, Path]:
    """The event pointed at a transcript holding its tool use, as Claude Code writes it before the dialog."""
    path = base / "projects" / "-src-app" / f"{event['session_id']}.jsonl"
    path.parent.mkdir(parents=True)
    use = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_probe1", "name": "Bash", "input": event["tool_input"]}],
        },
    }
    path.write_text(json.dumps({"type": "user", "message": {"content": "go"}}) + "\n" + json.dumps(use) + "\n")
    return {**event, "transcript_path": str(path)}, path


def test_answered_in_the_lead_s_terminal_the_hook_stops_waiting(base: Path, room: RoomPresence) -> None:
    event, path = _transcript(base, LEAD_ASKS)
    proc = start_hook(env_for(base), event)
    rid = _asked(base)
    time.sleep(0.5)  # the watcher is up (a result before it would be found by its first read too)
    result = {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_probe1", "content": "done"}]},
    }
    with path.open("a") as fh:
        fh.write(json.dumps({"type": "permission-mode"}) + "\n" + json.dumps(result) + "\n")
    assert _done(proc)[:2] == (0, "")
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.state == MOVED and ask.answer is not None
    assert (ask.answer["via"], ask.answer["why"]) == ("terminal", "answered in the lead's terminal")


def test_an_in_process_teammates_result_is_read_from_its_own_transcript(base: Path, room: RoomPresence) -> None:
    lead_event, lead_path = _transcript(base, ALICE_ASKS)
    lead_path.write_text("")  # the lead's transcript has no such tool use: alice's has
    sub = lead_path.with_suffix("") / "subagents" / f"agent-{ALICE_ASKS['agent_id']}.jsonl"
    sub.parent.mkdir(parents=True)
    use = {
        "type": "assistant",
        "message": {
            "content": [{"type": "tool_use", "id": "toolu_a1", "name": "Bash", "input": ALICE_ASKS["tool_input"]}]
        },
    }
    done = {
        "type": "user",
        "timestamp": _iso(time.time() + 2),  # answered after the hook began, before it looked
        "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_a1", "content": "ok"}]},
    }
    sub.write_text(json.dumps(use) + "\n" + json.dumps(done) + "\n")
    proc = start_hook(env_for(base), lead_event)
    assert _done(proc)[:2] == (0, "")
    (ask,) = list_asks(spool_of(base), closed=True)
    assert ask.answer is not None and ask.answer["why"] == "answered in the lead's terminal"


def _iso(t: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_a_tool_use_written_after_the_hook_started_is_still_watched(base: Path, room: RoomPresence) -> None:
    """Claude Code queues its transcript writes: the tool use can land after the hook looked. An
    older, identical command answered before the hook began is not taken for this one."""
    event, path = _transcript(base, LEAD_ASKS)
    older = {
        "type": "user",
        "timestamp": _iso(time.time() - 60),
        "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_probe1", "content": "old"}]},
    }
    with path.open("a") as fh:
        fh.write(json.dumps(older) + "\n")
    proc = start_hook(env_for(base), event)
    rid = _asked(base)
    time.sleep(0.5)
    assert proc.poll() is None  # the older command's result answers nothing
    use = {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_new", "name": "Bash"}]}}
    use["message"]["content"][0]["input"] = event["tool_input"]
    result = {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_new"}]}}
    with path.open("a") as fh:
        fh.write(json.dumps(use) + "\n")
        fh.flush()
        time.sleep(0.3)
        assert proc.poll() is None  # its tool use alone is not an answer
        fh.write(json.dumps(result) + "\n")
    assert _done(proc)[:2] == (0, "")
    ask = read_ask(spool_of(base), rid)
    assert ask is not None and ask.answer is not None and ask.answer["via"] == "terminal"


def test_the_room_lock_is_held_while_a_room_runs_and_released_with_it(base: Path) -> None:
    spool = spool_of(base)
    assert not room_running(spool)
    presence = RoomPresence(spool).hold()
    assert room_running(spool)
    other = RoomPresence(spool).hold()  # rooms share it
    presence.release()
    assert room_running(spool)
    other.release()
    assert not room_running(spool)


def test_an_edit_request_says_the_file_and_the_edit(base: Path, room: RoomPresence) -> None:
    edit = {
        **LEAD_ASKS,
        "tool_name": "Edit",
        "tool_input": {"file_path": "/src/app/app.py", "old_string": "x = 1", "new_string": "x = 2"},
    }
    proc = start_hook(env_for(base), edit)
    rid = _asked(base)
    ask = read_ask(spool_of(base), rid)
    assert ask is not None
    assert {k: ask.tool[k] for k in ("name", "file_path", "old_string", "new_string")} == {
        "name": "Edit",
        "file_path": "/src/app/app.py",
        "old_string": "x = 1",
        "new_string": "x = 2",
    }
    assert ask.summary == "Edit /src/app/app.py"
    answer(spool_of(base), rid, "lead")
    _done(proc)


def test_two_requests_at_once_each_get_their_own_answer(base: Path, room: RoomPresence) -> None:
    a = start_hook(env_for(base), LEAD_ASKS)
    b = start_hook(env_for(base), ALICE_ASKS)
    asks = wait_for(lambda: len(list_asks(spool_of(base))) == 2 and list_asks(spool_of(base)), "both requests")
    by_who = {x.asker: x.id for x in asks}
    threads = [
        threading.Thread(target=answer, args=(spool_of(base), by_who["team-lead"], "deny"), kwargs={"message": "no"}),
        threading.Thread(target=answer, args=(spool_of(base), by_who["alice"], "allow")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert json.loads(_done(a)[1])["hookSpecificOutput"]["decision"]["behavior"] == "deny"
    assert json.loads(_done(b)[1])["hookSpecificOutput"]["decision"]["behavior"] == "allow"


def test_requests_follow_is_a_room_that_prints_each_request_as_it_comes(base: Path) -> None:
    env = env_for(base)
    room = subprocess.Popen(
        [sys.executable, "-m", "teamtui", "requests", "--follow", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_default,  # it is stopped with Ctrl-C
    )
    try:
        wait_for(lambda: room_running(spool_of(base)), "the room to hold the lock")
        proc = start_hook(env, ALICE_ASKS)
        assert room.stdout is not None
        printed = json.loads(room.stdout.readline())
        assert (printed["kind"], printed["who"], printed["answers"]) == (
            "permission",
            "alice",
            ["allow", "deny", "lead"],
        )
        assert printed["detail"]["what"]["command"] == ALICE_ASKS["tool_input"]["command"]
        done = subprocess.run(
            [sys.executable, "-m", "teamtui", "answer", printed["id"], "allow"], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stdout.startswith("allowed: request ")
        assert json.loads(_done(proc)[1]) == ALLOW_JSON
    finally:
        room.send_signal(signal.SIGINT)
        room.wait(10)
    assert not room_running(spool_of(base))  # the room's lock went with it
