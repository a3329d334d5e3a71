"""Answering over the stream (#30): `teamtui stream` holds the room lock for the room that follows
it, lists the permission requests real `teamtui hook` processes wait on in a `hooks` line (each
under its team, or of no team), and carries out an `answer` request by its own rules, journaled as
from a host; read back as untrusted input. Then the same from a control room over a real OpenSSH
server: `a` on the remote request in the room, and the hook there prints the decision."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.protocol.hooks import journal
from teamtui.protocol.stream_hooks import read_hooks
from teamtui.session.fleet import Fleet
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.answer import AnswerScreen, ReasonScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetNeeds
from tests.conftest import EXAMPLES
from tests.protocol.hooks.helpers import recorded, start_hook

from .conftest import Remote, empty_local_fleet
from tests.tui.conftest import toasts, until

from .test_ssh_tui import SIZE
from .test_stream_cmd import Stream, streaming

ASKED = [e for e in recorded("in-process") if e["hook_event_name"] == "PermissionRequest"]
ALICE_ASKS = next(e for e in ASKED if e.get("agent_type") == "alice")
LEAD_ASKS = next(e for e in ASKED if "agent_type" not in e)
TEAM = "session-" + ALICE_ASKS["session_id"][:8]
ALLOW = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}


def add_team(claude: Path) -> None:
    """The asking session's team in this Claude Code folder (its name is the session's)."""
    team = claude / "teams" / TEAM
    shutil.copytree(EXAMPLES / "claude" / "teams" / "work-team", team)
    cfg = json.loads((team / "config.json").read_text())
    cfg["name"] = TEAM
    (team / "config.json").write_text(json.dumps(cfg))


@pytest.fixture
def there(tmp_path: Path) -> dict[str, str]:
    claude = tmp_path / "claude"
    add_team(claude)
    return {
        **os.environ,
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(claude),
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }


@pytest.fixture
def stream(there: dict[str, str], tmp_path: Path) -> Iterator[Stream]:
    with streaming(there, tmp_path) as s:
        yield s


def _items(stream: Stream, pred, what: str) -> list:
    line = stream.until(lambda o: o["type"] == "hooks" and pred(read_hooks(o)), what)
    return read_hooks(line)


def test_a_request_travels_in_the_stream_and_is_answered_there(stream: Stream, there: dict[str, str]) -> None:
    stream.until(lambda o: o["type"] == "ready", "ready")
    team = next(o["team"] for o in stream.lines if o["type"] == "team" and o["team"][2] == TEAM)
    hook = start_hook(there, ALICE_ASKS)  # the stream holds the room lock: the hook waits for an answer
    try:
        ((key, item),) = _items(stream, lambda items: len(items) == 1, "the request in a hooks line")
        assert key == tuple(team) and item["kind"] == "permission" and item["who"] == "alice"
        assert item["answers"] == ("allow", "deny", "lead")
        assert item["detail"]["what"]["command"] == "echo ALICEPROBE > /src/app/out/aliceprobe.txt"
        stream.ask({"id": "a1", "op": "answer", "team": team, "item": item["id"], "answer": "allow", "from": "laptop"})
        result = stream.until(lambda o: o["type"] == "result" and o["id"] == "a1", "the result")
        assert result["ok"] is True and "allowed alice's Bash" in result["detail"]
        out, err = hook.communicate(timeout=20)
    finally:
        if hook.poll() is None:
            hook.kill()
    assert (hook.returncode, json.loads(out), err) == (0, ALLOW, "")
    _items(stream, lambda items: items == [], "the request gone from the hooks line")
    # A second answer: first answer wins, the second is told so.
    stream.ask({"id": "a2", "op": "answer", "team": team, "item": item["id"], "answer": "deny", "from": "laptop"})
    again = stream.until(lambda o: o["type"] == "result" and o["id"] == "a2", "the second result")
    assert again["ok"] is False and "already allowed" in again["error"]
    assert again["detail"] == "already"  # what became of it, named: the room reads no words
    answered = [e for e in journal.read(Path(there["XDG_STATE_HOME"]) / "teamtui" / "hooks") if e["what"] == "answered"]
    assert [(e["decision"], e["via"], e["where"]) for e in answered] == [("allow", "host", "laptop over ssh")]


def test_a_request_of_no_team_is_answered_without_one(stream: Stream, there: dict[str, str], tmp_path: Path) -> None:
    stream.until(lambda o: o["type"] == "ready", "ready")
    lone = {**there, "CLAUDE_CONFIG_DIR": str(tmp_path / "elsewhere")}  # a session with no agent team
    hook = start_hook(lone, LEAD_ASKS)
    try:
        ((key, item),) = _items(stream, lambda items: len(items) == 1, "the lone request")
        assert key is None and item["who"] == "team-lead"
        stream.ask({"id": "d", "op": "answer", "item": item["id"], "answer": "deny", "message": "not on a Friday"})
        assert stream.until(lambda o: o["type"] == "result" and o["id"] == "d", "the result")["ok"] is True
        out, _ = hook.communicate(timeout=20)
    finally:
        if hook.poll() is None:
            hook.kill()
    assert json.loads(out)["hookSpecificOutput"]["decision"] == {"behavior": "deny", "message": "not on a Friday"}
    # Nothing else is answered without a team, and a bad request is refused in words.
    for rid, req, said in (
        ("x1", {"item": "held:nope:1", "answer": "retry"}, "no request of a team here"),
        ("x2", {"item": "0" * 32, "answer": "allow"}, "no permission request"),
        ("x3", {"item": item["id"], "answer": "rm -rf"}, "allow, deny or lead"),
        ("x4", {"answer": "allow"}, "item must be"),
    ):
        stream.ask({"id": rid, "op": "answer", **req})
        result = stream.until(lambda o, rid=rid: o["type"] == "result" and o["id"] == rid, rid)
        assert result["ok"] is False and said in result["error"], result


def test_a_hostile_hooks_line_is_checked_and_bounded() -> None:
    line = {
        "type": "hooks",
        "items": [
            {
                "key": ["claude", "/x", "t"],
                "id": "a" * 32,
                "kind": "permission",
                "team": "t\x1b[2J",
                "who": "eve\nforged",
                "text": "[bold]x[/]",
                "since": "soon",
                "answers": ["allow", "format-disk", "allow", 7],
                "detail": {"tool": "Bash", "what": {"command": "\x1b]0;pwned\x07ls", "edits": [{"old_string": 5}]}},
            },
            {"id": "../../etc", "kind": "permission", "text": "x"},  # not an id
            {"id": "wait:t:lead", "kind": "wait", "text": "waits", "answers": ["allow"], "detail": {"what": {}}},
            {"id": "b" * 32, "kind": "shell", "text": "x"},
            "not an object",
        ]
        * 300,
    }
    items = read_hooks(line)
    assert len(items) == 200  # the first 500 read (2 of each 5 well formed), the rest dropped unread
    key, first = items[0]
    assert key == ("claude", "/x", "t") and first["answers"] == ("allow",)
    assert "\x1b" not in first["team"] and "\n" not in first["who"] and "since" not in first
    assert "\x1b" not in first["detail"]["what"]["command"] and "edits" not in first["detail"]["what"]
    assert items[1][1]["kind"] == "wait" and items[1][1]["answers"] == () and items[1][1]["detail"] == {}


async def test_a_remote_request_is_denied_with_a_reason_from_the_room_over_ssh(remote: Remote, tmp_path: Path) -> None:
    add_team(remote.claude)
    host = remote.host()
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), host]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    env = {
        **os.environ,
        "HOME": str(remote.home),
        "CLAUDE_CONFIG_DIR": str(remote.claude),
        "XDG_CONFIG_HOME": str(remote.home / ".config"),
        "XDG_STATE_HOME": str(remote.home / ".local" / "state"),
    }
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: host.connected and any(k[2] == TEAM for k in host.sessions), "the host", limit=20)
        hook = start_hook(env, ALICE_ASKS)  # there: the stream holds the room lock for this room
        try:
            asks = lambda: [n for v in app.fleet.needs.values() for n in v if n.kind == "ask"]  # noqa: E731
            await until(pilot, lambda: len(asks()) == 1, "the remote request in the room", limit=20)
            assert asks()[0].team[0] == "ssh:box" and asks()[0].member == "alice"
            assert isinstance(app.screen, FleetScreen)
            await pilot.press("tab")
            await until(pilot, lambda: isinstance(app.screen.focused, FleetNeeds), "the needs list")
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "the request in full")
            assert "on box" in str(app.screen.query_one(".dialog-sub").render())
            await pilot.press("d")
            await until(pilot, lambda: isinstance(app.screen, ReasonScreen), "asked why")
            await pilot.press(*"ask me tomorrow", "enter")
            out, err = await __import__("asyncio").to_thread(hook.communicate, timeout=30)
        finally:
            if hook.poll() is None:
                hook.kill()
        decision = json.loads(out)["hookSpecificOutput"]["decision"]
        assert decision == {"behavior": "deny", "message": "ask me tomorrow"}
        await until(pilot, lambda: any("box: denied alice's Bash" in t for t in toasts(app)), "the outcome told")
        await until(pilot, lambda: not asks(), "gone from the room")
    answered = [
        e for e in journal.read(remote.home / ".local" / "state" / "teamtui" / "hooks") if e["what"] == "answered"
    ]
    assert [(e["decision"], e["via"]) for e in answered] == [("deny", "host")]
    assert answered[0]["where"].startswith(f"{os.uname().nodename} over ssh from 127.0.0.1")


def test_a_held_task_is_retried_over_the_stream(tmp_path: Path) -> None:
    from teamtui.protocol.native import NativeTeam
    from teamtui.protocol.outcomes import record_failure

    from .conftest import NATIVE_TEAM, copy_tree

    copy_tree(EXAMPLES / "native", tmp_path / "proj")
    store = NativeTeam(tmp_path / "proj", NATIVE_TEAM)
    for i in range(3):
        record_failure(store, "3", f"boom {i}")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude")
    with streaming(env, tmp_path, str(tmp_path / "proj")) as s:
        s.until(lambda o: o["type"] == "ready", "ready")
        team = next(o["team"] for o in s.lines if o["type"] == "team")
        s.ask({"id": "h", "op": "answer", "team": team, "item": f"held:{NATIVE_TEAM}:3", "answer": "retry"})
        result = s.until(lambda o: o["type"] == "result" and o["id"] == "h", "the result")
        assert result["ok"] is True and result["detail"] == "#3 back on the board, its failure count reset"
        s.ask({"id": "h2", "op": "answer", "team": team, "item": f"held:{NATIVE_TEAM}:3", "answer": "retry"})
        again = s.until(lambda o: o["type"] == "result" and o["id"] == "h2", "the second result")
        # Refused: by the list there once its watcher saw the change, else by the task itself.
        assert again["ok"] is False and ("waits no more" in again["error"] or "no failures" in again["error"])
        assert again["detail"] == ("already" if "waits no more" in again["error"] else "refused")
    assert not store.get_task("3").metadata.get("failure_count")
    answered = [e for e in journal.read(tmp_path / "state" / "teamtui" / "hooks") if e["what"] == "answered"]
    assert [(e["kind"], e["decision"], e["via"]) for e in answered] == [("held", "retry", "host")]
