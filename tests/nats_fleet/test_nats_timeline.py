"""A team's timeline through NATS: the same `timeline` request as over ssh, on the team's request
subject, answered from the publishing host's own history (what it recorded before any room
listened), the answer as big as one stream line may be; a host that is away says so in words."""

from __future__ import annotations

import os
import time

import pytest

from teamtui.protocol.history.ops import TeamIdent
from teamtui.protocol.history.timeline import build_timeline
from teamtui.session.actions import NoHistory
from tests.history.conftest import apply_ops
from tests.remote.test_stream_timeline import history_db, record_past

from .conftest import NATIVE_TEAM, Server, following, key_of, room


def record_chatter(path, team: TeamIdent, t0: float, n: int) -> None:
    """`n` messages between teammates of long names: more than one line carries."""
    ats = [t0 + i * 0.1 for i in range(n)]
    ops = [
        ("message", team, at, (f"{'s' * 120}{i % 50}", "ghost", "message", f"chatter {i}", "", at, None, False))
        for i, at in enumerate(ats)
    ]
    apply_ops(path, ops)


async def test_the_timeline_comes_from_the_publishing_hosts_history(server: Server, hosts) -> None:
    box = hosts("box1")
    past = time.time() - 3 * 3600
    team = TeamIdent("", "native", os.path.realpath(box.project), NATIVE_TEAM)
    db = history_db(box.home / ".state")
    record_past(db, team, past)
    record_chatter(db, team, past + 2000, 30_000)
    box.publish(server.url)
    source = room(server.url)
    async with following(source) as feed:
        await feed.until(lambda: key_of(box) in source.sessions and source.hosts["box1"].connected, "the team")
        session = source.sessions[key_of(box)]
        assert session.actions.timeline is not None
        h = await session.actions.timeline()
        assert h.host == "box1" and h.start <= past
        tl = build_timeline(h)
        assert "ghost" in {lane.name for lane in tl.lanes}
        assert [t.subject for t in tl.tasks] == ["Old migration"]
        # 30,006 messages: the newest 10,000 at most, cut to one line's budget, and said so.
        assert 1000 < len(h.messages) <= 10_000 and h.messages[-1][1].startswith("s" * 120)
        assert "box1 sent what fits in one stream line" in h.note and "messages" in h.note
        assert not [n for n in feed.notices if "timeline" in n], "no word of its own in the room"

        box.stop()  # the host goes away: the room says so once it has not heard it for a while
        await feed.until(lambda: not source.hosts["box1"].connected, "the host away", limit=15)
        with pytest.raises(NoHistory, match="box1 is disconnected since"):
            await session.actions.timeline()
