"""Claude Code 2.1.332 as the real binary wrote it (tests/fixtures/examples/claude-2.1.332-*):
the in-process team whose teammates edited one file, and the hook events of both teammate modes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.claude.transcripts import TeamTranscripts

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
EDITS = EXAMPLES / "claude-2.1.332-edits" / ".claude"
HOOKS = EXAMPLES / "claude-2.1.332-hooks"
TEAM = "session-48868de5"


def test_the_edits_team_reads_as_a_2_1_328_team_does(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    shutil.copytree(EDITS, root)
    cfg = ClaudeTeam(root, TEAM).read_config()
    team = TeamTranscripts(root, cfg.raw, window=100)
    first = team.load()
    assert {"alice", "bob"} <= set(first)
    # alice's Write and Edit, and bob's Edit, are what their activity last showed
    assert any("app.py" in e.text for e in first["alice"].entries)
    assert any("app.py" in e.text for e in first["bob"].entries)


def test_the_live_session_file_names_its_tmux_pane_and_status() -> None:
    (session,) = (EDITS / "sessions").glob("*.json")
    data = json.loads(session.read_text())
    assert data["kind"] == "interactive" and data["tmux"] == "lead:@0.%0" and data["status"] == "idle"


def test_every_recorded_hook_event_has_the_fields_every_event_carries() -> None:
    names = set()
    for mode in ("in-process", "tmux"):
        for line in (HOOKS / mode / "hooks.jsonl").read_text().splitlines():
            event = json.loads(line)["stdin"]
            assert {"session_id", "transcript_path", "cwd", "hook_event_name"} <= set(event)
            names.add(event["hook_event_name"])
    assert {"PermissionRequest", "Notification", "SessionStart", "Stop"} <= names
