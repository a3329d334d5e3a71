"""A message a Claude Code teammate received is in Messages once, delivered, whether or not a read
of its inbox file ever found it: an in-process teammate takes an entry within 20-110 ms
(FORMATS.md §4), and its transcript says what it received."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.state import TeamState

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
TEAM = "session-8dd2dc96"


def team_of(tmp_path: Path) -> tuple[Path, TeamState]:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "inprocess-running", root)
    state = TeamState(ClaudeTeam(root, TEAM))
    state.load_all()
    state.load_transcripts()
    return root, state


def alice_transcript(root: Path) -> Path:
    return next((root / "projects").rglob("agent-aalice-*.jsonl"))


def received_line(text: str, sender: str = "teamtui") -> bytes:
    """A user line as an in-process teammate's transcript holds a message it took from its inbox."""
    body = f'<teammate-message teammate_id="{sender}" color="blue">\n{text}\n</teammate-message>'
    rec = {"type": "user", "uuid": str(uuid.uuid4()), "isSidechain": True, "timestamp": "2026-11-23T08:00:00.000Z",
           "message": {"role": "user", "content": body}}  # fmt: skip
    return json.dumps(rec).encode() + b"\n"


def entry(text: str, sender: str = "teamtui") -> dict:
    return {"from": sender, "text": text, "timestamp": "2026-11-23T08:00:00.000Z", "msgV": 1,
            "msg_id": str(uuid.uuid4()), "type": "message", "read": False}  # fmt: skip


def shown(state: TeamState, text: str) -> list:
    return [m for m in state.messages if m.content == text]


def test_messages_taken_before_any_read_are_shown_from_the_transcript_delivered(tmp_path: Path) -> None:
    _root, state = team_of(tmp_path)  # the inboxes are empty: the lead's first words were all taken
    for who, text in (
        ("alice", "TMALICE: you are alice. Reply briefly."),
        ("bob", "TMBOB: you are bob. Reply briefly."),
    ):
        (m,) = shown(state, text)
        assert (m.sender, m.recipient, m.delivered) == ("team-lead", who, True)
    state.take_transcripts(state.transcript_files.read())  # every transcript read anew: no second copy
    assert len(shown(state, "TMBOB: you are bob. Reply briefly.")) == 1


def test_a_message_seen_in_the_file_and_then_received_is_one_message(tmp_path: Path) -> None:
    root, state = team_of(tmp_path)
    inbox = root / "teams" / TEAM / "inboxes" / "alice.json"
    inbox.write_text(json.dumps([entry("SEEN-FIRST")]))
    state.resync()
    with alice_transcript(root).open("ab") as fh:
        fh.write(received_line("SEEN-FIRST"))
    state.apply_batch([alice_transcript(root)])
    inbox.write_text("[]")
    changes = state.resync()
    (m,) = shown(state, "SEEN-FIRST")
    assert m.delivered
    assert [c.kind for c in changes].count(ChangeKind.DELIVERED) == 1


def test_a_message_received_before_its_entry_was_read_is_not_a_second_one(tmp_path: Path) -> None:
    root, state = team_of(tmp_path)
    inbox = root / "teams" / TEAM / "inboxes" / "alice.json"
    inbox.write_text(json.dumps([entry("FAST")]))  # written, and taken at once ...
    with alice_transcript(root).open("ab") as fh:
        fh.write(received_line("FAST"))
    changes = state.apply_batch([alice_transcript(root)])  # ... the transcript read first
    assert [c.kind for c in changes].count(ChangeKind.DELIVERED) == 1
    changes = state.resync()  # the file still held it when read
    inbox.write_text("[]")
    changes += state.resync()  # and then it left
    (m,) = shown(state, "FAST")
    assert m.delivered and ChangeKind.DELIVERED not in [c.kind for c in changes]


def test_the_same_text_sent_twice_and_received_twice_is_two_messages(tmp_path: Path) -> None:
    root, state = team_of(tmp_path)
    with alice_transcript(root).open("ab") as fh:
        fh.write(received_line("AGAIN") + received_line("AGAIN"))
    state.apply_batch([alice_transcript(root)])
    assert len(shown(state, "AGAIN")) == 2
