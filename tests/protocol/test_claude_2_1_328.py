"""Claude Code 2.1.178+ as the real 2.1.328 wrote it (tests/fixtures/examples/claude-2.1.328)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam, member_backend, member_pane
from teamtui.protocol.claude.leadproc import LeadProcess, lead_state, parse_lead_process
from teamtui.protocol.errors import DishonestSenderError, NotMemberError
from teamtui.protocol.layout import find_team, team_names
from teamtui.protocol.models import IdleNotification, MemberStatus
from teamtui.protocol.state import TeamState
from tests.conftest import copy_fixture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"


def _copy(tmp_path: Path, which: str) -> Path:
    return copy_fixture(FIXTURES / which, tmp_path / which)


def _proc_start(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19]


def _set_lead(root: Path, team: str, pid: int, start: str, space: str | None = None) -> None:
    path = root / "teams" / team / "config.json"
    cfg = json.loads(path.read_text())
    space = space if space is not None else "vm#" + os.readlink("/proc/self/ns/pid")
    cfg["leadProcess"] = {"pid": pid, "pidSpace": space, "claimedAt": 1795417306290, "procStart": start}
    path.write_text(json.dumps(cfg, indent=2))


def _write_inbox(store: ClaudeTeam, member: str, entries: list[dict]) -> None:
    store.inbox_path(member).write_text(json.dumps(entries, indent=2))


# ---------------------------------------------------------------- teams, members, the lead


def _unread(state: TeamState, member: str) -> int:
    """What the team panel shows as unread for `member` (the lead has no row: its inbox is read directly)."""
    views = {v.name: v for v in state.member_views()}
    if member in views:
        return views[member].unread
    return sum(1 for m in state.messages if m.recipient == member and not m.read)


def test_the_session_team_is_found_without_a_name(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tmux-running")
    store = find_team(root)
    assert (store.layout, store.name) == ("claude", "session-421dba11")


def test_a_team_folder_being_deleted_is_not_a_team(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tmux-running")
    # Claude Code renames the folder `<team>.deleted-<uuid>` before removing it.
    (root / "teams" / "session-421dba11").rename(root / "teams" / "session-421dba11.deleted-60850048-c8e2")
    assert team_names(root) == []


@pytest.mark.parametrize(
    ("which", "backends", "panes"),
    [
        ("tmux-running", ["tmux", "tmux"], ["%1", "%2"]),
        ("inprocess-running", ["in-process", "in-process"], [None, None]),
        ("tmux-after-bob-shutdown", ["tmux"], ["%1"]),
    ],
)
def test_members_show_their_backend_and_idle_state(tmp_path: Path, which: str, backends, panes) -> None:
    root = _copy(tmp_path, which)
    store = find_team(root)
    cfg = store.read_config()
    assert cfg.lead == "team-lead"
    assert [member_backend(m) for m in cfg.members] == backends
    assert [member_pane(m) for m in cfg.members] == panes
    # tmux teammates carry isActive false (idle); in-process ones carry none (unknown).
    want = MemberStatus.IDLE if backends[0] == "tmux" else MemberStatus.UNKNOWN
    assert {m.status for m in cfg.members} == {want}


def test_a_member_leaving_is_seen_as_member_left(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tmux-running")
    state = TeamState(find_team(root))
    state.load_all()
    after = FIXTURES / "tmux-after-bob-shutdown" / "teams" / "session-421dba11" / "config.json"
    (root / "teams" / "session-421dba11" / "config.json").write_bytes(after.read_bytes())
    changes = state.apply(state.store.config_path)
    assert [(c.kind, c.key) for c in changes if c.kind == "member_left"] == [("member_left", "bob")]
    assert [v.name for v in state.member_views() if v.departed] == ["bob"]


def test_lead_process_from_the_fixture_is_ended(tmp_path: Path) -> None:
    root = _copy(tmp_path, "tmux-running")
    store = find_team(root)
    store.read_config()
    assert store.lead_process == LeadProcess(27001, "vm#pid:[4026531836]", 1795417306.29, "239927")
    # pid 27001 started at tick 239927 on another machine: not running here (or another process now).
    assert lead_state(store.lead_process) == "ended"


def test_lead_alive_ended_and_unknown_against_real_processes(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start = _proc_start(child.pid)
        assert lead_state(LeadProcess(child.pid, "", None, start)) == "alive"
        # The same pid with another start time is a reused pid: the lead ended.
        assert lead_state(LeadProcess(child.pid, "", None, str(int(start) + 1))) == "ended"
        # Another pid namespace: its pids say nothing here.
        assert lead_state(LeadProcess(child.pid, "vm#pid:[1]", None, start)) == "unknown"
    finally:
        child.kill()
        child.wait()
    assert lead_state(LeadProcess(child.pid, "", None, start)) == "ended"


@pytest.mark.parametrize("raw", [None, [], {"pid": "12"}, {"pid": True}, {"pid": -1}, {"pid": 10**30}, "x"])
def test_a_malformed_lead_process_is_no_lead_process(raw) -> None:
    assert parse_lead_process(raw) is None


# ---------------------------------------------------------------- tasks


def test_tasks_come_from_the_team_list_and_the_highwatermark(tmp_path: Path) -> None:
    root = _copy(tmp_path, "inprocess-running")
    store = find_team(root)
    store.read_config()
    tasks, errors = store.list_tasks()
    assert errors == [] and [(t.id, t.subject, t.owner) for t in tasks] == [
        ("1", "probe task one", "alice"),
        ("2", "probe task two", ""),
    ]
    ended = ClaudeTeam(_copy(tmp_path, "inprocess-after-lead-exit"), "session-8dd2dc96")
    assert ended.highwatermark() == 2
    assert [t.id for t in ended.list_tasks()[0]] == ["1"]  # #2 was deleted; its id stays used


def test_tasks_follow_the_live_leads_task_list_id(tmp_path: Path) -> None:
    root = _copy(tmp_path, "inprocess-running")
    team = "session-8dd2dc96"
    listed = root / "tasks" / "shared-list"
    listed.mkdir()
    (listed / "7.json").write_text(
        json.dumps({"id": "7", "subject": "from the shared list", "status": "pending", "blocks": [], "blockedBy": []})
    )
    env = {**os.environ, "CLAUDE_CODE_TASK_LIST_ID": "shared-list"}
    lead = subprocess.Popen(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        # Until it has exec'd, a child's environment is still its parent's (no task list id in it).
        assert lead.stdout is not None and lead.stdout.readline().strip() == "up"
        _set_lead(root, team, lead.pid, _proc_start(lead.pid))
        state = TeamState(ClaudeTeam(root, team))
        state.load_all()
        assert state.store.task_list == "shared-list"
        assert [t.subject for t in state.tasks.values()] == ["from the shared list"]
    finally:
        lead.kill()
        lead.wait()
    # Once the lead is gone its environment is unreadable: the team's own list again.
    again = ClaudeTeam(root, team)
    again.read_config()
    assert again.task_list == team


# ---------------------------------------------------------------- inbox entries and delivery

IDLE = {
    "from": "alice",
    "text": json.dumps(
        {
            "type": "idle_notification",
            "from": "alice",
            "timestamp": "2026-11-23T08:22:26.517Z",
            "idleReason": "available",
            "result": "ALICEIDLE",
        },
        separators=(",", ":"),
    ),
    "timestamp": "2026-11-23T08:22:26.517Z",
    "color": "blue",
    "msgV": 1,
    "msg_id": "00267136-714d-4b54-a96c-d03d44e32cef",
    "type": "message",
    "read": False,
}
TERMINATED = {
    "from": "system",
    "text": '{"type":"teammate_terminated","message":"bob has shut down."}',
    "timestamp": "2026-11-23T08:23:02.000Z",
    "msgV": 1,
    "msg_id": "5f0c1b7e-0000-4000-8000-000000000001",
    "type": "message",
    "read": False,
}
SIGNED = {
    "from": "team-lead",
    "text": "LEADMSG hello alice",
    "timestamp": "2026-11-23T07:02:21.005Z",
    "msgV": 1,
    "msg_id": "85120232-0000-4000-8000-000000000002",
    "type": "message",
    "read": False,
    "lead_sig": "lfLub0",
}


def test_new_entry_keys_are_read_and_kept(tmp_path: Path) -> None:
    store = find_team(_copy(tmp_path, "tmux-running"))
    _write_inbox(store, "team-lead", [IDLE, TERMINATED])
    _write_inbox(store, "alice", [SIGNED])
    idle, term = store.peek("team-lead").messages
    assert isinstance(idle.payload, IdleNotification) and idle.payload.model_extra["result"] == "ALICEIDLE"
    assert (term.type, term.sender, term.payload.model_extra["message"]) == (
        "teammate_terminated",
        "system",
        "bob has shut down.",
    )
    [signed] = store.peek("alice").messages
    assert (signed.content, signed.raw["lead_sig"], signed.raw["msg_id"]) == (
        "LEADMSG hello alice",
        "lfLub0",
        SIGNED["msg_id"],
    )


def test_an_entry_that_leaves_the_inbox_is_kept_and_marked_delivered(tmp_path: Path) -> None:
    store = find_team(_copy(tmp_path, "tmux-running"))
    state = TeamState(store)
    state.load_all()
    _write_inbox(store, "team-lead", [IDLE])
    changes = state.apply(store.inbox_path("team-lead"))
    assert [m.content for c in changes if c.kind == "inbox" for m in c.messages] == [IDLE["text"]]
    assert _unread(state, "team-lead") == 1
    _write_inbox(store, "team-lead", [TERMINATED])  # the lead took the idle notice; a new entry came
    changes = state.apply(store.inbox_path("team-lead"))
    [delivered] = [c for c in changes if c.kind == "delivered"]
    assert [m.raw["msg_id"] for m in delivered.messages] == [IDLE["msg_id"]]
    kept = state.inbox_messages("team-lead")
    assert [(m.raw["msg_id"], m.delivered) for m in kept] == [(IDLE["msg_id"], True), (TERMINATED["msg_id"], False)]
    assert [m.type for m in state.messages] == ["idle_notification", "teammate_terminated"]
    assert _unread(state, "team-lead") == 1


def test_a_half_written_or_vanished_inbox_delivers_nothing(tmp_path: Path) -> None:
    store = find_team(_copy(tmp_path, "tmux-running"))
    state = TeamState(store)
    state.load_all()
    _write_inbox(store, "alice", [SIGNED])
    state.apply(store.inbox_path("alice"))
    store.inbox_path("alice").write_text('[{"from": "team-le')
    assert [c.kind for c in state.apply(store.inbox_path("alice"))] == ["error"]
    store.inbox_path("alice").unlink()  # the team folder going away is no delivery
    assert not [c for c in state.apply(store.inbox_path("alice")) if c.kind == "delivered"]
    assert [m.delivered for m in state.inbox_messages("alice")] == [False]


def test_the_old_read_flag_is_still_followed(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    state = TeamState(store)
    state.load_all()
    before = _unread(state, "writer")
    data = json.loads(store.inbox_path("writer").read_text())
    for e in data:
        e["read"] = True
    store.inbox_path("writer").write_text(json.dumps(data, indent=2))
    kinds = [c.kind for c in state.apply(store.inbox_path("writer"))]
    assert before > 0 and "inbox_read" in kinds and "delivered" not in kinds
    assert _unread(state, "writer") == 0


# ---------------------------------------------------------------- sending honestly, to members only


@pytest.mark.parametrize("sender", ["team-lead", "user", "system"])
def test_writing_as_the_lead_user_or_system_is_refused(tmp_path: Path, sender: str) -> None:
    store = find_team(_copy(tmp_path, "tmux-running"))
    before = store.inbox_path("alice").read_bytes()
    with pytest.raises(DishonestSenderError, match="refusing to send as"):
        store.send("alice", "hi", sender)
    assert store.inbox_path("alice").read_bytes() == before


def test_an_honest_sender_writes_what_claude_code_accepts(tmp_path: Path) -> None:
    store = find_team(_copy(tmp_path, "tmux-running"))
    store.send("alice", "hello from outside", "teamtui")
    [entry] = json.loads(store.inbox_path("alice").read_text())
    assert {"from", "text", "timestamp", "read"} <= set(entry) and entry["from"] == "teamtui"


@pytest.mark.parametrize("which", ["tmux-running", "inprocess-running"])
def test_a_message_to_a_non_member_writes_nothing(tmp_path: Path, which: str) -> None:
    store = find_team(_copy(tmp_path, which))
    files = sorted(p.name for p in store.inbox_dir.iterdir())
    with pytest.raises(NotMemberError, match="'nobody' is not a member"):
        store.send("nobody", "hi", "teamtui")
    assert sorted(p.name for p in store.inbox_dir.iterdir()) == files


def test_native_message_to_a_non_member_writes_nothing(native_root: Path) -> None:
    store = find_team(native_root)
    before = sorted(p.name for p in store.team_dir.iterdir())
    with pytest.raises(NotMemberError):
        store.send("nobody", "hi", "lead")
    assert sorted(p.name for p in store.team_dir.iterdir()) == before
