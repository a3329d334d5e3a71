"""Every Change TeamState reports carries a ChangeKind, and each kind still reads as its string."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from teamtui.protocol import ChangeKind, TeamState, find_team


def _kinds(changes) -> list[ChangeKind]:
    assert all(isinstance(c.kind, ChangeKind) for c in changes)
    return [c.kind for c in changes]


def test_a_kind_compares_and_hashes_as_its_string() -> None:
    assert ChangeKind.TASK_REMOVED == "task_removed"
    assert "log" in {ChangeKind.LOG} and ChangeKind.INBOX in {"inbox"}
    assert f"{ChangeKind.TEAM_GONE}" == "team_gone"


def test_each_kind_comes_from_a_real_change(native_root: Path) -> None:
    store = find_team(native_root)
    state = TeamState(store)
    assert ChangeKind.CONFIG in _kinds(state.load_all())
    seen: set[ChangeKind] = set()

    def apply(path: Path) -> None:
        seen.update(_kinds(state.apply(path)))

    store.add_member("newcomer")
    apply(store.config_path)
    store.update_member("scout", status="shutdown")
    apply(store.config_path)
    store.update_config(lambda d: d.update(members=[m for m in d["members"] if m["name"] != "newcomer"]))
    apply(store.config_path)
    store.complete_task("2")
    apply(store.task_path("2"))
    store.task_path("5").unlink()
    apply(store.task_path("5"))
    store.send("hunter", "hello", "lead")
    apply(store.inbox_path("hunter"))
    store.drain("hunter")
    apply(store.inbox_path("hunter"))
    store.log("hunter", "working")
    apply(store.log_paths("hunter")[0])
    store.task_path("1").write_text("{not json")
    apply(store.task_path("1"))
    store.task_path("1").write_text(json.dumps({"id": "1", "subject": "fixed"}))
    apply(store.task_path("1"))
    shutil.rmtree(store.team_dir)
    apply(store.config_path)
    # Only a layout whose inboxes are pending queues (Claude Code) reports a delivery, and only one
    # with transcripts their drift (tests/protocol/test_claude_drift.py) and the files a teammate
    # changed (tests/protocol/test_edits.py).
    assert seen == set(ChangeKind) - {ChangeKind.DELIVERED, ChangeKind.DRIFT, ChangeKind.FILES}


def test_a_claude_code_delivery_is_its_own_kind(claude_root: Path) -> None:
    store = find_team(claude_root)
    state = TeamState(store)
    state.load_all()
    path = store.inbox_path("researcher")
    entries = json.loads(path.read_text())
    path.write_text(json.dumps(entries[1:], indent=2))  # Claude Code took the first entry out
    changes = state.apply(path)
    assert ChangeKind.DELIVERED in _kinds(changes)
    [delivered] = [m for c in changes if c.kind == ChangeKind.DELIVERED for m in c.messages]
    assert delivered.delivered and delivered.raw == entries[0]
