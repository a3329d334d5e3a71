"""What needs a person, from inbox entries in Claude Code's wire format and from transcripts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from teamtui.protocol.health import disappears_at
from teamtui.protocol.text import UNSAFE_TERMINAL
from teamtui.protocol.claude.transcripts import (
    TranscriptReader,
    notices_from_inbox,
    open_requests,
    silent_teammates,
    stuck_teammates,
)
from teamtui.protocol.claude.transcripts.render import parse_ts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"


def entry(sender: str, payload: dict, ts: str = "2026-11-23T07:10:00.000Z") -> dict:
    return {"from": sender, "text": json.dumps(payload, separators=(",", ":")), "timestamp": ts, "read": False}


PERMISSION = {
    "type": "permission_request",
    "request_id": "perm-1",
    "agent_id": "alice@session-421dba11",
    "tool_name": "Bash",
    "tool_use_id": "toolu_9",
    "description": "rm -rf build\x1b[2J",
    "input": {"command": "rm -rf build"},
    "permission_suggestions": [],
}
PLAN = {
    "type": "plan_approval_request",
    "from": "bob",
    "timestamp": "2026-11-23T07:11:00.000Z",
    "planFilePath": "/home/dev/.claude/plans/p.md",
    "planContent": "# Plan\n1. do it\x1b]0;x\x07",
    "requestId": "plan-7",
}


def test_requests_in_the_leads_inbox_wait_until_answered() -> None:
    inbox = [
        {"from": "alice", "text": "plain words", "timestamp": "2026-11-23T07:09:00.000Z", "read": False},
        entry("alice", PERMISSION),
        entry("bob", PLAN, "2026-11-23T07:11:00.000Z"),
        {"from": "bob", "text": "{not json", "timestamp": "x"},
    ]
    items = open_requests(notices_from_inbox(inbox))
    assert [(i.kind, i.member, i.key) for i in items] == [
        ("permission", "alice", "permission_request:perm-1"),
        ("plan", "bob", "plan_approval_request:plan-7"),
    ]
    assert items[0].since == parse_ts("2026-11-23T07:10:00.000Z")
    assert "Bash" in items[0].text and json.loads(items[0].detail) == PERMISSION["input"]
    assert items[1].detail.startswith("# Plan\n1. do it")
    for i in items:
        assert not UNSAFE_TERMINAL.search(i.text)
        assert not UNSAFE_TERMINAL.search(i.detail.replace("\n", ""))

    answered = inbox + [entry("team-lead", {"type": "permission_response", "request_id": "perm-1", "approved": True})]
    assert [i.key for i in open_requests(notices_from_inbox(answered))] == ["plan_approval_request:plan-7"]


def test_a_teammate_whose_last_idle_notice_says_interrupted_or_failed_needs_you() -> None:
    def idle(who: str, reason: str, ts: str) -> dict:
        return entry(
            who,
            {
                "type": "idle_notification",
                "from": who,
                "timestamp": ts,
                "idleReason": reason,
                "failureReason": "tests red",
            },
            ts,
        )

    inbox = [
        idle("alice", "failed", "2026-11-23T07:00:00.000Z"),
        idle("alice", "available", "2026-11-23T07:05:00.000Z"),  # recovered since
        idle("bob", "interrupted", "2026-11-23T07:06:00.000Z"),
        idle("carol", "failed", "2026-11-23T07:07:00.000Z"),
    ]
    items = stuck_teammates(notices_from_inbox(inbox))
    assert [(i.kind, i.member) for i in items] == [("interrupted", "bob"), ("failed", "carol")]
    # carol wrote to her transcript after the notice: she is working again.
    later = {"carol": parse_ts("2026-11-23T07:09:00.000Z")}
    assert [i.member for i in stuck_teammates(notices_from_inbox(inbox), later)] == ["bob"]


def test_idle_notices_seen_in_the_leads_transcript_count_too(tmp_path: Path) -> None:
    path = tmp_path / "lead.jsonl"
    shutil.copy(FIXTURES / "tmux-running/projects/-src-app/421dba11-a86f-4c03-bd8f-13c51d730076.jsonl", path)
    reader = TranscriptReader(path)
    reader.read()
    assert stuck_teammates(reader.notices) == []  # both said "available"
    body = json.dumps(
        {
            "type": "idle_notification",
            "from": "alice",
            "timestamp": "2026-11-23T07:20:00.000Z",
            "idleReason": "interrupted",
        }
    )
    rec = {
        "type": "user",
        "message": {
            "role": "user",
            "content": f'Another Claude session sent a message:\n<teammate-message teammate_id="alice" color="blue">\n{body}\n</teammate-message>',
        },
        "timestamp": "2026-11-23T07:20:01.000Z",
    }
    with path.open("ab") as fh:
        fh.write(json.dumps(rec, separators=(",", ":")).encode() + b"\n")
    update = reader.read()
    assert [n.payload["idleReason"] for n in update.notices] == ["interrupted"]
    assert [(i.kind, i.member) for i in stuck_teammates(reader.notices)] == [("interrupted", "alice")]


def test_a_task_owner_silent_past_the_timeout_needs_you(tmp_path: Path) -> None:
    sub = FIXTURES / "inprocess-running/projects/-src-app/8dd2dc96-b94b-4a1b-95fb-3eab30f4436d/subagents"
    last = {}
    for name in ("alice", "bob"):
        reader = TranscriptReader(next(sub.glob(f"agent-a{name}-*.jsonl")))
        reader.read()
        last[name] = reader.stats.last_write
    task = json.loads((FIXTURES / "inprocess-running/tasks/session-8dd2dc96/1.json").read_text())
    owners = {task["owner"]: task["id"]}
    due = disappears_at(holds_task=True, stopped=False, last_activity=last[task["owner"]], timeout=60)
    assert silent_teammates(owners=owners, last_write=last, now=due - 1, timeout=60) == []
    items = silent_teammates(owners=owners, last_write=last, now=due + 1, timeout=60)
    assert [(i.kind, i.member) for i in items] == [("silent", task["owner"])]
    assert f"#{task['id']}" in items[0].text
    assert silent_teammates(owners=owners, last_write=last, stopped=[task["owner"]], now=due + 1, timeout=60) == []
    # A teammate with no transcript yet is never called silent (nothing to measure from).
    assert silent_teammates(owners={"dave": "2"}, last_write={}, now=due + 1, timeout=60) == []
