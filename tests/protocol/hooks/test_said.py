"""What a hook event says of a teammate (protocol/hooks/said.py), as Claude Code 2.1.332 sent them."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.hooks.event import record_of
from teamtui.protocol.hooks.said import said_by, said_in_spool
from teamtui.protocol.hooks.spool import write_event
from teamtui.protocol.models import MemberStatus
from tests.protocol.hooks.helpers import recorded


def test_the_real_events_say_who_went_idle_and_who_started() -> None:
    said = [s for e in recorded("in-process") if (s := said_by(record_of(e, 100.0, 1))) is not None]
    team = "session-" + recorded("in-process")[0]["session_id"][:8]
    assert (team, "alice", MemberStatus.WORKING, 100.0) in said  # SubagentStart, its agent_type
    assert (team, "alice", MemberStatus.IDLE, 100.0) in said  # SubagentStop and TeammateIdle
    assert all(s[0] == team for s in said)


def test_odd_events_say_nothing() -> None:
    base = {"session_id": "0123abcd-0000", "at": 1.0}
    assert said_by(base | {"event": "TeammateIdle"}) is None  # nobody named
    assert said_by(base | {"event": "Stop", "agent_type": "alice"}) is None  # not a word of a teammate's status
    assert said_by({"event": "SubagentStart", "agent_type": "alice", "at": True, "session_id": "x"}) is None
    assert said_by({"event": "SubagentStart", "agent_type": "alice", "at": 1.0, "session_id": "not-hex!"}) is None
    assert said_by({"event": ["TeammateIdle"], "teammate_name": "a", "at": 1.0, "session_id": "0123abcd"}) is None


def test_the_spool_says_the_last_word_per_teammate(tmp_path: Path) -> None:
    spool = tmp_path / "hooks"
    spool.mkdir()
    assert said_in_spool(spool / "missing", "t") == {}
    for at, event in ((1.0, "SubagentStart"), (2.0, "SubagentStop"), (3.0, "SubagentStart")):
        write_event(spool, {"v": 1, "at": at, "event": event, "session_id": "0123abcd-1", "agent_type": "bob"})
    write_event(spool, {"v": 1, "at": 4.0, "event": "TeammateIdle", "session_id": "x", "teammate_name": "cy"})
    assert said_in_spool(spool, "session-0123abcd") == {"bob": (MemberStatus.WORKING, 3.0)}


def test_the_leads_session_start_and_end_are_said_of_the_lead() -> None:
    from teamtui.protocol.hooks.said import LEAD

    base = {"session_id": "0123abcd-9", "at": 5.0}
    assert said_by(base | {"event": "SessionEnd"}) == ("session-0123abcd", LEAD, MemberStatus.SHUTDOWN, 5.0)
    assert said_by(base | {"event": "SessionStart"}) == ("session-0123abcd", LEAD, MemberStatus.IDLE, 5.0)
    assert said_by(base | {"event": "SessionEnd", "agent_type": "alice"}) is None  # not the lead's session
