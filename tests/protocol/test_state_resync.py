"""A change made between the first full read and the watcher being in place is not lost:
resync re-reads exactly the files that changed since they were read."""

from __future__ import annotations

import json

from teamtui.protocol import TeamState, find_team


def test_resync_reads_only_what_changed_since_the_first_read(native_root):
    store = find_team(native_root)
    state = TeamState(store)
    state.load_all()
    assert state.tasks["3"].status.value == "pending"
    # Another process claims #3 and appends a log line before any watch event reached us.
    store.claim_task("3", "scout")
    store.log("scout", "claimed #3")
    before = state.files_read
    changes = state.resync()
    assert state.tasks["3"].status.value == "in_progress" and state.tasks["3"].owner == "scout"
    assert any(e.text == "claimed #3" for e in state.logs["scout"])
    kinds = {c.kind for c in changes}
    assert "task" in kinds and "log" in kinds
    # task_3.json, its new sidecar, scout's new .jsonl log: nothing else was re-read.
    assert state.files_read - before == 3
    assert state.resync() == []  # nothing changed since: nothing read


def test_resync_notices_a_removed_task(native_root):
    store = find_team(native_root)
    state = TeamState(store)
    state.load_all()
    (native_root / ".tasks" / "task_5.json").unlink()
    changes = state.resync()
    assert "5" not in state.tasks
    assert [c.key for c in changes if c.kind == "task_removed"] == ["5"]


def test_resync_after_a_config_rewrite(native_root):
    store = find_team(native_root)
    state = TeamState(store)
    state.load_all()
    cfg = json.loads(store.config_path.read_text())
    cfg["members"].append({"name": "newbie", "agent_id": "newbie@refactor-auth", "status": "idle"})
    store.config_path.write_text(json.dumps(cfg, indent=2))
    changes = state.resync()
    assert ("member_joined", "newbie") in {(c.kind, c.key) for c in changes}
