"""The bounded message history keeps the newest messages by time, whatever order files arrive in."""

from __future__ import annotations

import json

from teamtui.protocol import TeamState, find_team


def _append(path, lines):
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)


def test_a_flood_of_old_messages_does_not_push_out_a_newer_one(native_root):
    store = find_team(native_root)
    state = TeamState(store, message_limit=50)
    state.load_all()
    team = native_root / ".teams" / store.name
    # One batch: a newer message to the lead, then 1,000 old-stamped ones to hunter (a peer replaying history).
    _append(team / "lead_inbox.jsonl", [{"type": "message", "sender": "scout", "content": "newest", "timestamp": 2e9}])
    _append(
        team / "hunter_inbox.jsonl",
        [{"type": "message", "sender": "scout", "content": f"old {i}", "timestamp": 1.9e9 + i} for i in range(1000)],
    )
    state.apply(team / "lead_inbox.jsonl")
    state.apply(team / "hunter_inbox.jsonl")
    kept = list(state.messages)
    assert len(kept) == 50
    assert kept[-1].content == "newest"
    assert [m.content for m in kept[:-1]] == [f"old {i}" for i in range(951, 1000)]


def test_live_messages_in_time_order_keep_the_latest(native_root):
    store = find_team(native_root)
    state = TeamState(store, message_limit=20)
    state.load_all()
    inbox = native_root / ".teams" / store.name / "lead_inbox.jsonl"
    for i in range(60):
        _append(inbox, [{"type": "message", "sender": "scout", "content": f"m{i}", "timestamp": 2e9 + i}])
        state.apply(inbox)
    assert [m.content for m in state.messages] == [f"m{i}" for i in range(40, 60)]
