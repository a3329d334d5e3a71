"""A snapshot of a Claude Code 2.1.328 session team (two tmux-pane teammates, a task, messages by
meaning). Deterministic: a frozen copy with fixed mtimes and timestamps, a fixed clock, UTC; the
lead's process is left out of the copy (whether a pid is alive depends on the machine)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from teamtui.tui.app import TeamTUI

from .conftest import SIZE

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
TEAM = "session-421dba11"
CREATED = 1795417306.304
NOW = CREATED + 240


def entry(sender: str, text: str, at: str, **extra) -> dict:
    return {
        "from": sender,
        "text": text,
        "timestamp": f"2026-11-23T07:{at}.000Z",
        "msgV": 1,
        "msg_id": f"00000000-0000-0000-0000-0000000{at.replace(':', '')}",
        "type": "message",
        "read": False,
        **extra,
    }


@pytest.fixture
def frozen_session(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(EXAMPLES / "tmux-running" / "teams", root / "teams")
    shutil.copytree(EXAMPLES / "inprocess-running" / "tasks" / "session-8dd2dc96", root / "tasks" / TEAM)
    team = root / "teams" / TEAM
    cfg = json.loads((team / "config.json").read_text())
    del cfg["leadProcess"]
    cfg["members"][1]["isActive"] = True
    (team / "config.json").write_text(json.dumps(cfg, indent=2))
    idle = json.dumps({"type": "idle_notification", "from": "bob", "idleReason": "available", "result": "BOBIDLE"})
    (team / "inboxes" / "team-lead.json").write_text(
        json.dumps(
            [
                entry("bob", idle, "03:10", color="green"),
                entry("teamtui", "please wrap up by noon", "03:20", summary="wrap up"),
            ]
        )
    )
    assign = json.dumps(
        {"type": "task_assignment", "taskId": "1", "subject": "probe task one", "assignedBy": "team-lead"}
    )
    (team / "inboxes" / "alice.json").write_text(json.dumps([entry("team-lead", assign, "03:05")]))
    for p in sorted(root.rglob("*"), reverse=True):
        os.utime(p, (NOW - 45, NOW - 45), follow_symlinks=False)
    return root


def test_main_claude_2_1_328_session(snap_compare, frozen_session, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('theme = "teamtui-dark"\n', encoding="utf-8")
    app = TeamTUI.watching(frozen_session, None, None, config_path=config, clock=lambda: NOW, cursor_blink=False)
    assert snap_compare(app, terminal_size=SIZE)
