"""The answers of #30 through NATS: a real `teamtui hook` waits on the publishing host (its
`teamtui stream --publish` holds the room lock for the rooms that follow it), the host's stored
state lists the request, and the room answers it through the team's own capability
(`TeamActions.answers`, RemoteAnswers: an `answer` request, no NATS code of its own); the hook
there prints the decision, journaled as from a host over NATS."""

from __future__ import annotations

import json

from teamtui.protocol.hooks import journal
from teamtui.session.items import Outcome
from tests.protocol.hooks.helpers import start_hook
from tests.remote.test_stream_answers import ALICE_ASKS, ALLOW, TEAM, add_team

from .conftest import Server, following, room


async def test_a_permission_request_there_is_answered_from_the_room(server: Server, hosts) -> None:
    box = hosts("box1")
    add_team(box.claude)
    box.publish(server.url)
    source = room(server.url)
    hook = None
    try:
        async with following(source) as feed:
            await feed.until(lambda: any(k[2] == TEAM for k in source.sessions), "the asking session's team")
            key = next(k for k in source.sessions if k[2] == TEAM)
            answers = source.sessions[key].actions.answers
            assert answers is not None
            hook = start_hook(box.env(), ALICE_ASKS)  # the publisher holds the room lock: the hook waits
            await feed.until(lambda: len(answers.items()) == 1, "the request, listed in the host's state")
            (item,) = answers.items()
            assert (item.kind, item.who) == ("permission", "alice") and "allow" in item.answers
            said: list[Outcome] = []
            answers.answer(item.id, "allow", "", via="room", where="ann's room", report=said.append, background=None)
            await feed.until(lambda: bool(said), "its outcome")
            assert said[0].taken and "allowed alice's Bash" in said[0].text, said
            out, err = hook.communicate(timeout=20)
            assert (hook.returncode, json.loads(out), err) == (0, ALLOW, "")
            await feed.until(lambda: answers.items() == [], "the request gone from the host's state")
    finally:
        if hook is not None and hook.poll() is None:
            hook.kill()
    answered = [e for e in journal.read(box.home / ".state" / "teamtui" / "hooks") if e["what"] == "answered"]
    assert [(e["decision"], e["via"], e["where"]) for e in answered] == [("allow", "host", "ann's room over NATS")]
