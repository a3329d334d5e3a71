"""The journal keeps what was seen of a Claude Code team after Claude Code prunes and deletes it;
the honest sender and the non-member refusal from the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam, journal
from teamtui.protocol.claude.ended import load_state
from teamtui.protocol.claude.journal import TeamJournal, journal_file, list_teams, read_records
from teamtui.protocol.settings import load_settings
from teamtui.protocol.state import TeamState
from tests.conftest import copy_fixture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
REPO = Path(__file__).resolve().parents[2]
TEAM = "session-421dba11"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = copy_fixture(FIXTURES / "tmux-running", tmp_path / "claude")
    (r / "tasks" / TEAM).mkdir(parents=True)
    (r / "tasks" / TEAM / "1.json").write_text(
        json.dumps(
            {
                "id": "1",
                "subject": "probe task one",
                "description": "",
                "status": "pending",
                "blocks": [],
                "blockedBy": [],
            }
        )
    )
    return r


def _entry(sender: str, text: str, mid: str) -> dict:
    return {
        "from": sender,
        "text": text,
        "timestamp": "2026-11-23T08:22:26.517Z",
        "msgV": 1,
        "msg_id": mid,
        "type": "message",
        "read": False,
    }


def test_a_team_is_journaled_until_its_end_and_read_back(root: Path) -> None:
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    inbox = store.inbox_path("alice")
    inbox.write_text(json.dumps([_entry("teamtui", "hello <b>alice</b>", "m-1")]))
    state.apply(inbox)
    inbox.write_text("[]")  # alice took it
    state.apply(inbox)
    task = root / "tasks" / TEAM / "1.json"
    task.write_text(
        task.read_text().replace('"pending"', '"in_progress"').replace('"blocks"', '"owner": "alice", "blocks"')
    )
    state.apply(task)
    cfg = json.loads(store.config_path.read_text())
    cfg["members"] = [m for m in cfg["members"] if m["name"] != "bob"]
    store.config_path.write_text(json.dumps(cfg))
    state.apply(store.config_path)
    shutil.rmtree(store.team_dir)  # the lead exited: Claude Code deletes the folder
    state.apply(store.config_path)
    journal.flush()

    path = journal_file(store)
    kinds = [r["kind"] for r in read_records(path)]
    assert kinds[0] == "team" and {"message", "delivered", "task", "member_left", "team_gone"} <= set(kinds)
    [team] = list_teams()
    assert (team.name, team.layout, team.messages) == (TEAM, "claude", 1) and team.ended_at is not None

    back = load_state(path)
    assert back.name == TEAM and back.lead == "team-lead"
    assert [m.name for m in back.config.members] == ["alice"] and list(back.departed) == ["bob"]
    assert [(t.id, t.status.value, t.owner) for t in back.tasks.values()] == [("1", "in_progress", "alice")]
    [msg] = list(back.messages)
    assert (msg.sender, msg.recipient, msg.content, msg.delivered) == ("teamtui", "alice", "hello <b>alice</b>", True)


def test_a_leads_assignments_are_journaled_and_an_ended_teams_board_shows_them(tmp_path: Path) -> None:
    """Without a task list the board is the work the lead handed out (its transcript): kept in the
    journal, so the team's board is still there once Claude Code deleted its folder."""
    root = copy_fixture(FIXTURES / "tmux-running", tmp_path / "claude")
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    state.load_transcripts()
    state.take_heads(state.count_heads())
    assert state.task_source == "assignments" and state.assigned
    seen = {t.id: (t.subject, t.status, t.owner) for t in state.assigned.values()}
    shutil.rmtree(store.team_dir)
    state.apply(store.config_path)
    journal.flush()

    ended = load_state(journal_file(store))
    assert ended.task_source == "assignments"
    assert {t.id: (t.subject, t.status, t.owner) for t in ended.board.tasks.values()} == seen
    kinds = [r["kind"] for r in read_records(journal_file(store))]
    assert kinds.count("assigned") == len(seen)  # each once: unchanged ones are not written again
    from teamtui.cli.history_cmds import timeline_line

    first = next(r for r in read_records(journal_file(store)) if r["kind"] == "assigned")
    assert timeline_line(first).startswith(f"assignment #{first['id']} ")


def test_a_message_taken_before_the_next_read_is_journaled_with_its_delivery(root: Path) -> None:
    """A teammate may take what the dashboard wrote out of its inbox before the dashboard reads that
    inbox again: what it sent is recorded when sent, and the entry's absence is its delivery."""
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    sent = store.send("alice", "review #3 first", "teamtui")
    changes = state.sent([sent])
    assert [(c.kind, c.key) for c in changes] == [("inbox", "alice")]
    inbox = store.inbox_path("alice")
    inbox.write_text("[]")  # alice took it before any read
    changes = state.apply(inbox)
    assert [m.content for c in changes if c.kind == "delivered" for m in c.messages] == ["review #3 first"]
    assert state.sent([sent]) == []  # recorded once
    journal.flush()

    recs = read_records(journal_file(store))
    [msg] = [r for r in recs if r["kind"] == "message"]
    assert (msg["from"], msg["to"], msg["text"]) == ("teamtui", "alice", "review #3 first")
    assert [r["key"] for r in recs if r["kind"] == "delivered"] == [msg["key"]]
    [back] = list(load_state(journal_file(store)).messages)
    assert back.delivered


def test_journal_files_are_safe_and_distinct_per_team_place(tmp_path: Path) -> None:
    a = journal_file(ClaudeTeam(tmp_path / "one", "session-1"))
    b = journal_file(ClaudeTeam(tmp_path / "two", "session-1"))
    assert a != b and a.parent == b.parent == journal.journal_dir()
    assert a.name.startswith("session-1.") and "/" not in a.name and ".." not in a.name


def test_a_full_journal_file_is_rotated_and_keeps_its_header(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal._WRITER, "max_bytes", 4000)
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    inbox = store.inbox_path("team-lead")
    for i in range(40):
        inbox.write_text(json.dumps([_entry("alice", f"note {i} " + "x" * 200, f"m-{i}")]))
        state.apply(inbox)
    journal.flush()
    path = journal_file(store)
    older = path.with_name(path.name + ".1")
    assert path.stat().st_size <= 4000 and older.stat().st_size <= 4000
    assert json.loads(path.read_text().splitlines()[0])["kind"] == "team"
    assert list_teams()[0].name == TEAM  # the newest file alone still names its team


def test_an_unwritable_journal_never_stops_the_watcher(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("")
    monkeypatch.setattr(journal._WRITER, "errors", [])
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    journal.flush()
    assert state.config is not None and journal._WRITER.errors


# ---------------------------------------------------------------- the CLI


def _cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "teamtui", *args], capture_output=True, text=True, env=full, cwd=cwd, timeout=60
    )


def test_history_lists_teams_and_prints_a_timeline(root: Path) -> None:
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    store.inbox_path("alice").write_text(json.dumps([_entry("teamtui", "line one\n\x1b[31mred", "m-9")]))
    state.apply(store.inbox_path("alice"))
    journal.flush()
    listed = _cli("history", "--json")
    assert [t["team"] for t in json.loads(listed.stdout)["teams"]] == [TEAM]
    plain = _cli("history")
    assert TEAM in plain.stdout and "1 messages" in plain.stdout
    timeline = _cli("history", TEAM)
    assert timeline.returncode == 0 and "teamtui → alice: line one" in timeline.stdout
    assert "\x1b" not in timeline.stdout  # text from files is data
    missing = _cli("history", "nobody")
    assert missing.returncode == 1 and "no team 'nobody' in the history" in missing.stderr


def test_cli_send_uses_the_configured_sender_and_refuses_the_lead(root: Path, tmp_path: Path) -> None:
    r = str(root)
    assert _cli("send", "alice", "one", "--root", r).returncode == 0
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "teamtui" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('sender = "ops-desk"\n')
    assert load_settings(cfg).sender == "ops-desk"
    assert _cli("send", "alice", "two", "--root", r).returncode == 0
    assert _cli("send", "alice", "three", "--root", r, "--from", "me").returncode == 0
    senders = [e["from"] for e in json.loads((root / "teams" / TEAM / "inboxes" / "alice.json").read_text())]
    assert senders == ["teamtui", "ops-desk", "me"]
    for name in ("team-lead", "user", "system"):
        res = _cli("send", "alice", "x", "--root", r, "--from", name)
        assert res.returncode == 1 and f"refusing to send as {name!r}" in res.stderr
    cfg.write_text('sender = "team-lead"\n')
    s = load_settings(cfg)
    assert s.sender == "teamtui" and "sender must be a name of your own" in s.problems[0]


@pytest.mark.parametrize("layout", ["claude", "native"])
def test_cli_send_to_a_non_member_writes_nothing(root: Path, native_root: Path, layout: str) -> None:
    r = root if layout == "claude" else native_root
    before = sorted(str(p) for p in r.rglob("*"))
    res = _cli("send", "nobody", "hi", "--root", str(r))
    assert res.returncode == 1 and "'nobody' is not a member" in res.stderr and res.stderr.count("\n") == 1
    assert sorted(str(p) for p in r.rglob("*")) == before
