"""The Claude Code shutdown's bookkeeping: which tmux server the team is on, and which messages
arrived after the run began, past the bounded message history."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.model import DEFAULT_MESSAGE_LIMIT
from teamtui.protocol.models import Message
from teamtui.protocol.state import TeamState
from teamtui.session.lead_asked import AskLeadShutdown
from teamtui.tmux.team_panes import team_socket

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "tmux-running"
TEAM = "session-421dba11"


def test_a_tmux_socket_path_with_commas_is_kept_whole(monkeypatch):
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/a,b,c,4242,0")
    assert team_socket(None) == "/tmp/tmux-1000/a,b,c"  # no lead known: this process's $TMUX
    assert team_socket({"TMUX": "/run/team,lead/sock,77,3"}) == "/run/team,lead/sock"  # the lead's $TMUX first


def test_a_message_read_after_the_history_overflows_is_still_followed(tmp_path):
    """The messages there when the run began are told apart by id(); past the history's cap they
    are dropped, and a message read later must not be taken for one of them by a reused id."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("projects"))
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store)
    state.load_all()
    t0 = time.time() + 10**8  # newer than the fixture's messages and the one the run sends: those fall out too

    def chatter(n: int, at: float) -> list[Message]:
        return [
            Message(type="message", sender="bob", recipient="team-lead", content=f"note {i}", timestamp=at + i)
            for i in range(n)
        ]

    state.ingest("team-lead", chatter(DEFAULT_MESSAGE_LIMIT, t0))  # the history is full
    shutdown = AskLeadShutdown(
        lambda report: None,
        state,
        sender="teamtui",
        clock=time.time,
        set_timer=lambda delay, callback: SimpleNamespace(stop=lambda: None),
        background=lambda work, done: None,
        whole_team=False,
    )
    shutdown.start(["alice"], "done", 60.0)
    run = shutdown.run
    assert run is not None and run.asked is not None
    before = {id(m) for m in state.messages}
    # As many again: every message known at the start falls out of the history (and out of memory, unless kept).
    state.ingest("team-lead", chatter(DEFAULT_MESSAGE_LIMIT, t0 + DEFAULT_MESSAGE_LIMIT))
    assert not before & {id(m) for m in state.messages}
    # alice's approval, made where a dropped message was (CPython hands their memory out again): tried
    # until its id is one of theirs, or, while they are kept alive, it can be none of theirs.
    kept = []
    for i in range(10_000):
        approval = Message(
            type="shutdown_approved",
            sender="alice",
            recipient="team-lead",
            content=json.dumps({"type": "shutdown_approved", "from": "alice", "request_id": "r1"}),
            timestamp=t0 + 3 * DEFAULT_MESSAGE_LIMIT + i,
        )
        if id(approval) in before:
            break
        kept.append(approval)  # held, so the next one is made elsewhere
    state.sent([approval])
    assert state.messages[-1] is approval
    shutdown.observe()
    assert "approved" in run.steps["alice"], run.steps["alice"]
