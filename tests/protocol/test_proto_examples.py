"""Round-trip of every example file: read, write back through the store's own write path,
and every key (known or not) survives in the spelling the file used."""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.errors import NotMemberError
from teamtui.protocol.models import ShutdownRequest, ShutdownResponse, TaskAssignment
from teamtui.protocol.native import NativeTeam

# Here, not `from conftest import`: with tests/tmux collected too, "conftest" may be its conftest.
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
SHARED_EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "formats" / "examples"

TEAM = "refactor-auth"


def _all_files(base: Path) -> list[Path]:
    return sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file())


# What the real Claude Code 2.1.328 wrote (FORMATS.md §3): four snapshots of two teams.
V328 = EXAMPLES / "claude-2.1.328"
_V328_CONFIGS = sorted(V328.glob("*/teams/*/config.json"))
_V328_INBOXES = sorted(V328.glob("*/teams/*/inboxes/*.json"))
_V328_TASKS = sorted(V328.glob("*/tasks/*/[0-9]*.json"))
# What the real 2.1.332 wrote (FORMATS.md §4, §5): an in-process team whose teammates edited one file.
V332_EDITS = EXAMPLES / "claude-2.1.332-edits" / ".claude"
_V332_CONFIGS = sorted(V332_EDITS.glob("teams/*/config.json"))
_V332_INBOXES = sorted(V332_EDITS.glob("teams/*/inboxes/*.json"))


# Shared examples of programs teamtui does not read yet (FORMATS.md §6, §7): each is copied here,
# with its round-trips, when its reader lands; a new shared folder must be one or the other.
NOT_YET_READ = {"claude-2.1.332-background", "codex-0.171.0", "gemini-cli-0.61.0", "opencode-1.18.33"}


def test_fixture_copy_matches_the_shared_examples() -> None:
    if not SHARED_EXAMPLES.is_dir():
        pytest.skip(f"{SHARED_EXAMPLES} is not beside this clone; the copy in {EXAMPLES} is what runs")
    copied = {p.name for p in EXAMPLES.iterdir() if p.is_dir()}
    shared = {p.name for p in SHARED_EXAMPLES.iterdir() if p.is_dir()}
    assert copied | NOT_YET_READ == shared and not copied & NOT_YET_READ
    for folder in sorted(copied):
        assert _all_files(EXAMPLES / folder) == _all_files(SHARED_EXAMPLES / folder), folder
        for rel in _all_files(EXAMPLES / folder):
            assert filecmp.cmp(EXAMPLES / folder / rel, SHARED_EXAMPLES / folder / rel, shallow=False), rel


def test_every_example_file_is_covered_by_a_round_trip_below() -> None:
    # Fails when an example is added without a round-trip for it.
    covered = {
        *(f"native/.tasks/task_{i}.json" for i in range(1, 6)),
        "native/.tasks/.teamtui/2.json",
        "native/.teams/refactor-auth/config.json",
        *(f"native/.teams/refactor-auth/{n}_inbox.jsonl" for n in ("hunter", "lead", "scout", "tracer")),
        "native/.teams/refactor-auth/logs/hunter.jsonl",
        "native/.teams/refactor-auth/logs/scout.log",
        "claude/teams/work-team/config.json",
        *(f"claude/teams/work-team/inboxes/{n}.json" for n in ("researcher", "team-lead", "writer")),
        *(f"claude/tasks/work-team/{i}.json" for i in range(1, 6)),
        "claude/tasks/work-team/.highwatermark",
        *(str(p.relative_to(EXAMPLES)) for p in _V328_CONFIGS + _V328_INBOXES + _V328_TASKS),
        # Read only (teamtui never writes them): tests/protocol/test_transcripts*.py and test_claude_2_1_328.py.
        *(str(p.relative_to(EXAMPLES)) for p in V328.rglob("*") if p.is_file() and "projects" in p.parts),
        *(str(p.relative_to(EXAMPLES)) for p in V328.glob("*/tmux-panes.txt")),
        *(str(p.relative_to(EXAMPLES)) for p in V328.glob("*/tasks/*/.highwatermark")),
        *(str(p.relative_to(EXAMPLES)) for p in V328.glob("*/tasks/*/.lock")),
        *(str(p.relative_to(EXAMPLES)) for p in _V332_CONFIGS + _V332_INBOXES),
        # Read only: the edits' transcripts, the live session and settings (tests/protocol/test_claude_2_1_332.py),
        # and the hook events and dialog (the same file).
        *(
            str(p.relative_to(EXAMPLES))
            for p in V332_EDITS.rglob("*")
            if p.is_file() and p not in _V332_CONFIGS + _V332_INBOXES
        ),
        *(str(p.relative_to(EXAMPLES)) for p in (EXAMPLES / "claude-2.1.332-hooks").rglob("*") if p.is_file()),
    }
    assert {str(p) for p in _all_files(EXAMPLES)} == covered


# ---------------------------------------------------------------- native


@pytest.mark.parametrize("tid", ["1", "2", "3", "4", "5"])
def test_native_task_round_trip_keeps_every_key_and_spelling(native_root: Path, tid: str) -> None:
    store = NativeTeam(native_root, TEAM)
    path = store.task_path(tid)
    # An unknown key from a future peer rides along too.
    original = json.loads(path.read_text())
    original["x_future"] = {"nested": [1, None]}
    path.write_text(json.dumps(original, indent=2))

    store.update_task(tid, subject=original["subject"] + " (edited)")

    after = json.loads(path.read_text())
    assert list(after) == list(original)
    assert after == {**original, "subject": original["subject"] + " (edited)"}


def test_native_camel_case_task_keeps_its_spelling_when_claimed(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.claim_task("3", "scout")
    after = json.loads(store.task_path("3").read_text())
    assert after["id"] == 3  # still an int, as the peer wrote it
    assert "blockedBy" in after and "blocked_by" not in after
    assert "active_form" not in after and "activeForm" not in after
    assert (after["owner"], after["status"]) == ("scout", "in_progress")
    # teamtui's extras went to the sidecar, not into the peer's file.
    assert set(after) == {"id", "subject", "description", "status", "owner", "blocks", "blockedBy"}
    assert "claimed_at" in json.loads(store.sidecar_path("3").read_text())


def test_native_sidecar_round_trip(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    before = json.loads(store.sidecar_path("2").read_text())
    task = store.complete_task("2", result="all green")
    after = json.loads(store.sidecar_path("2").read_text())
    assert {k: after[k] for k in before} == before
    assert after["result"] == "all green" and "completed_at" in after
    assert task.files == ["tests/test_auth.py"]
    # `files` written in the task file itself is read from there.
    assert store.get_task("4").files == ["src/auth/middleware.py"]


def test_native_config_round_trip_keeps_unknown_keys(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    original = json.loads(store.config_path.read_text())
    original["x_team_extra"] = "kept"
    original["members"][1]["x_member_extra"] = [1, 2]
    store.config_path.write_text(json.dumps(original, indent=2))

    store.update_member("hunter", status="idle", pid=4242)

    after = json.loads(store.config_path.read_text())
    expected = json.loads(json.dumps(original))
    expected["members"][0].update(status="idle", pid=4242)
    assert after == expected
    assert list(after) == list(original)
    assert list(after["members"][0])[:3] == ["name", "agent_id", "status"]


def test_native_config_decodes(native_root: Path) -> None:
    cfg = NativeTeam(native_root, TEAM).read_config()
    assert cfg.name == TEAM and cfg.lead == "lead" and cfg.created_at == 1763712000.25
    assert [(m.name, m.status.value) for m in cfg.members] == [
        ("hunter", "working"),
        ("scout", "idle"),
        ("tracer", "shutdown"),
    ]


@pytest.mark.parametrize("member", ["hunter", "lead", "scout", "tracer"])
def test_native_inbox_round_trip(native_root: Path, member: str) -> None:
    store = NativeTeam(native_root, TEAM)
    path = store.inbox_path(member)
    before_bytes = path.read_bytes()
    before = [json.loads(line) for line in before_bytes.splitlines()]

    store.send(member, "appended", "lead")

    assert path.read_bytes().startswith(before_bytes)
    peeked = store.peek(member)
    assert peeked.errors == []
    drained = store.drain(member)
    assert drained.errors == []
    assert [m.raw for m in drained.messages[:-1]] == before  # every key of every line, as written
    assert drained.messages[-1].content == "appended"
    assert path.read_bytes() == b""


def test_native_protocol_messages_decode_without_the_envelope(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    [req] = store.peek("scout").messages
    assert isinstance(req.payload, ShutdownRequest)
    assert (req.payload.request_id, req.payload.reason, req.payload.deadline_seconds) == (
        "a1b2c3d4",
        "phase_complete",
        30,
    )
    assert req.content == "Phase complete, please wrap up."
    assert req.payload.model_extra == {}  # sender/content/timestamp belong to the message, not the payload
    [resp] = store.peek("lead").messages
    assert isinstance(resp.payload, ShutdownResponse)
    assert resp.payload.approve is True and resp.payload.artifacts_committed is True
    assert resp.payload.model_extra == {}


def test_native_log_round_trip(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    jsonl, plain = store.log_paths("hunter")
    before = jsonl.read_bytes()
    store.log("hunter", "one more", "warning")
    data = jsonl.read_bytes()
    assert data.startswith(before)
    last = json.loads(data.splitlines()[-1])
    assert (last["level"], last["text"]) == ("warning", "one more")
    assert store.log_paths("scout")[1].read_text() == "plain stdout line from scout\nanother line\n"


# ---------------------------------------------------------------- claude


def test_claude_config_decodes_and_keeps_raw(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    original = json.loads(store.config_path.read_text())
    cfg = store.read_config()
    assert cfg.raw == original
    assert cfg.lead == "team-lead"
    assert [(m.name, m.status.value, m.agent_type, m.color) for m in cfg.members] == [
        ("researcher", "working", "general-purpose", "blue"),
        ("writer", "idle", "general-purpose", "green"),
    ]
    assert cfg.members[0].raw == original["members"][1]  # prompt, cwd, planModeRequired ... all kept
    assert cfg.members[0].tmux_pane_id == "%1"


@pytest.mark.parametrize("member", ["researcher", "team-lead", "writer"])
def test_claude_inbox_round_trip(claude_root: Path, member: str) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    path = store.inbox_path(member)
    before = json.loads(path.read_text())
    store.send(member, "appended", "teamtui")
    after = json.loads(path.read_text())
    assert after[:-1] == before
    assert set(after[-1]) == {"from", "text", "timestamp", "read"}
    assert (after[-1]["from"], after[-1]["text"], after[-1]["read"]) == ("teamtui", "appended", False)
    assert after[-1]["timestamp"].endswith("Z") and len(after[-1]["timestamp"]) == 24
    assert path.read_text().startswith("[\n  {")  # pretty-printed, indent 2
    assert [m.raw for m in store.peek(member).messages] == after


def test_claude_protocol_messages_are_decoded(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    msgs = store.peek("researcher").messages
    assert isinstance(msgs[1].payload, TaskAssignment)
    assert (msgs[1].payload.task_id, msgs[1].payload.assigned_by) == ("2", "team-lead")
    [req] = store.peek("writer").messages
    assert isinstance(req.payload, ShutdownRequest)
    assert req.payload.request_id == "shutdown-1771105300000@writer"


def test_claude_shutdown_request_is_stringified_as_formats_md_shows(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    rid = store.send_shutdown_request("researcher", "teamtui", "done", 30)
    entry = json.loads(store.inbox_path("researcher").read_text())[-1]
    payload = json.loads(entry["text"])
    assert list(payload) == ["type", "requestId", "from", "reason", "timestamp"]
    assert payload["type"] == "shutdown_request" and payload["requestId"] == rid
    assert rid.startswith("shutdown-") and rid.endswith("@researcher")
    assert entry["text"] == json.dumps(payload, separators=(",", ":"))


@pytest.mark.parametrize("tid", ["1", "2", "3", "4", "5"])
def test_claude_task_read_keeps_raw(claude_root: Path, tid: str) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    path = store.task_path(tid)
    task = store.read_task(path)
    assert task.raw == json.loads(path.read_text())
    assert task.id == tid


def test_claude_internal_tasks_are_hidden(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    shown, errors = store.list_tasks()
    assert errors == []
    assert [t.id for t in shown] == ["1", "2", "3", "4"]
    assert [t.id for t in store.list_tasks(include_internal=True)[0]] == ["1", "2", "3", "4", "5"]
    assert store.get_task("2").blocked_by == ["1"] and store.get_task("2").active_form == "Mapping the grammar"
    # .highwatermark is not a task.
    assert (store.tasks_dir / ".highwatermark").read_text().strip() == "5"


# ---------------------------------------------------------------- claude 2.1.328


def _v328_team(tmp_path: Path, file: Path) -> tuple[ClaudeTeam, Path]:
    """A writable copy of the snapshot that holds `file`, and that file's path in the copy."""
    snapshot = file.relative_to(V328).parts[0]
    root = tmp_path / snapshot
    shutil.copytree(V328 / snapshot, root)
    copied = root / file.relative_to(V328 / snapshot)
    team = next((root / "teams").iterdir()).name if (root / "teams").is_dir() else copied.parent.name
    return ClaudeTeam(root, team), copied


@pytest.mark.parametrize("path", _V328_CONFIGS, ids=lambda p: str(p.relative_to(V328)))
def test_v328_config_decodes_and_keeps_raw(tmp_path: Path, path: Path) -> None:
    store, copied = _v328_team(tmp_path, path)
    original = json.loads(copied.read_text())
    cfg = store.read_config()
    assert cfg.raw == original  # leadProcess, backendType, tmuxPaneId, isActive ... all kept
    assert {m.name for m in cfg.members} | {cfg.lead} == {m["name"] for m in original["members"]}


@pytest.mark.parametrize("path", _V328_INBOXES, ids=lambda p: str(p.relative_to(V328)))
def test_v328_inbox_round_trip(tmp_path: Path, path: Path) -> None:
    store, copied = _v328_team(tmp_path, path)
    member = copied.stem
    before = json.loads(copied.read_text())
    cfg = store.read_config()
    if member not in {m.name for m in cfg.members} | {cfg.lead}:
        # A teammate that shut down left members; its inbox stays behind, and nothing more goes in.
        with pytest.raises(NotMemberError):
            store.send(member, "appended", "teamtui")
        assert json.loads(copied.read_text()) == before
        return
    store.send(member, "appended", "teamtui")
    after = json.loads(copied.read_text())
    assert after[:-1] == before  # msgV, msg_id, lead_sig, type ... every entry kept as written
    assert (after[-1]["from"], after[-1]["text"], after[-1]["read"]) == ("teamtui", "appended", False)


@pytest.mark.parametrize("path", _V328_TASKS, ids=lambda p: str(p.relative_to(V328)))
def test_v328_task_read_keeps_raw(tmp_path: Path, path: Path) -> None:
    store, copied = _v328_team(tmp_path, path)
    task = store.read_task(copied)
    assert task.raw == json.loads(copied.read_text())
    assert task.id == copied.stem


# ---------------------------------------------------------------- claude 2.1.332


def _v332_team(tmp_path: Path, file: Path) -> tuple[ClaudeTeam, Path]:
    root = tmp_path / ".claude"
    shutil.copytree(V332_EDITS, root)
    copied = root / file.relative_to(V332_EDITS)
    return ClaudeTeam(root, next((root / "teams").iterdir()).name), copied


@pytest.mark.parametrize("path", _V332_CONFIGS, ids=lambda p: str(p.relative_to(V332_EDITS)))
def test_v332_config_decodes_and_keeps_raw(tmp_path: Path, path: Path) -> None:
    store, copied = _v332_team(tmp_path, path)
    original = json.loads(copied.read_text())
    cfg = store.read_config()
    assert cfg.raw == original
    assert {m.name for m in cfg.members} | {cfg.lead} == {m["name"] for m in original["members"]}


@pytest.mark.parametrize("path", _V332_INBOXES, ids=lambda p: str(p.relative_to(V332_EDITS)))
def test_v332_inbox_round_trip(tmp_path: Path, path: Path) -> None:
    store, copied = _v332_team(tmp_path, path)
    before = json.loads(copied.read_text())
    store.send(copied.stem, "appended", "teamtui")
    after = json.loads(copied.read_text())
    assert after[:-1] == before
    assert (after[-1]["from"], after[-1]["text"], after[-1]["read"]) == ("teamtui", "appended", False)
