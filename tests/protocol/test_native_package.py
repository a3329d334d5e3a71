"""The native layout is a package with one module per job; what other layers import from it still works."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import teamtui.protocol.native as native
from teamtui.protocol.native import NativeTeam, decode_message_dict, decode_task_dict
from teamtui.protocol.native.config import NativeConfig
from teamtui.protocol.native.inbox import NativeInbox
from teamtui.protocol.native.layout import NativeLayout
from teamtui.protocol.native.tasks import NativeTasks
from teamtui.protocol.store import TeamStore


def test_the_public_names_resolve() -> None:
    assert set(native.__all__) == {
        "CAMEL",
        "CORE_TASK_KEYS",
        "SIDECAR_KEYS",
        "NativeTeam",
        "decode_message_dict",
        "decode_task_dict",
    }
    assert all(hasattr(native, name) for name in native.__all__)


def test_native_team_is_its_four_parts_joined() -> None:
    assert issubclass(NativeTeam, TeamStore)
    for part in (NativeLayout, NativeConfig, NativeInbox, NativeTasks):
        assert issubclass(NativeTeam, part)
    assert not NativeTeam.__abstractmethods__


def test_the_decoders_read_the_example_files(native_root: Path) -> None:
    path = native_root / ".tasks" / "task_2.json"
    task = decode_task_dict(json.loads(path.read_text()), path)
    assert task.id == "2" and task.owner == "hunter"
    msg = decode_message_dict({"type": "message", "sender": "lead", "content": "hi", "timestamp": 1}, path, "scout")
    assert msg.sender == "lead" and msg.recipient == "scout" and msg.timestamp == 1.0


def test_an_unsafe_inbox_file_name_is_not_an_inbox_owner(native_root: Path) -> None:
    team = NativeTeam(native_root, "refactor-auth")
    (team.team_dir / ".hidden_inbox.jsonl").write_text("")
    owners = team.inbox_owners()
    assert ".hidden" not in owners and "scout" in owners


def test_each_part_imports_alone() -> None:
    for module in ("layout", "config", "inbox", "tasks", "team"):
        code = f"import teamtui.protocol.native.{module}, sys; assert 'textual' not in sys.modules"
        subprocess.run([sys.executable, "-c", code], check=True)
