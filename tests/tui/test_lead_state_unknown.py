"""A Claude Code lead whose process cannot be told alive or ended is shown as unknown, never as ended (the room's row)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import local_source

TEAM = "session-421dba11"
EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "tmux-running"


def _team_led_by(tmp_path: Path, **lead) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(EXAMPLE / "teams", root / "teams")
    path = root / "teams" / TEAM / "config.json"
    cfg = json.loads(path.read_text())
    cfg["leadProcess"].update(lead)
    path.write_text(json.dumps(cfg))
    return root


def _lead(root: Path) -> str:
    """What the room's row says of the team's lead."""
    source = local_source([root], root, claude_root=None, only_root=root, registry=root / "r", journal=root / "j")
    (row,) = source.rows(time.time())
    return row.lead


def test_a_lead_in_another_pid_namespace_is_unknown(tmp_path: Path) -> None:
    root = _team_led_by(tmp_path, pid=os.getpid(), procStart="", pidSpace="vm#pid:[1]")
    assert _lead(root) == "unknown"


def test_a_lead_psutil_may_not_read_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        root = _team_led_by(
            tmp_path, pid=child.pid, procStart="", pidSpace="", claimedAt=int(time.time() * 1000) + 5000
        )
        assert _lead(root) == "alive"

        def denied(self):
            raise psutil.AccessDenied(self.pid)

        monkeypatch.setattr(psutil.Process, "status", denied)  # as for another user's process where status is private
        assert _lead(root) == "unknown"
    finally:
        child.kill()
        child.wait()
    monkeypatch.undo()
    assert _lead(root) == "ended"
