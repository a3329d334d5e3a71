"""What the room asks of every host reaches the hosts of a NATS server too, as it reaches an ssh
host: its search (`/`) is answered from each publishing host's own history, labelled with the
host; and a permission request of no team on a publishing host (a lone Claude Code session's) is
listed among the room's needs and answered from there."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from teamtui.protocol.history.ops import TeamIdent
from teamtui.protocol.history.search import SearchHit
from teamtui.session.fleet import Fleet
from teamtui.session.items import Outcome
from teamtui.session.ops.search import search_hosts
from tests.protocol.hooks.helpers import start_hook
from tests.remote.test_stream_answers import LEAD_ASKS
from tests.remote.test_stream_timeline import history_db, record_past

from .conftest import NATIVE_TEAM, Server, following, room


async def test_the_rooms_search_asks_each_host_of_a_nats_server(server: Server, hosts) -> None:
    boxes = [hosts("box1"), hosts("box2")]
    past = time.time() - 3 * 3600
    for box in boxes:
        record_past(
            history_db(box.home / ".state"), TeamIdent("", "native", os.path.realpath(box.project), NATIVE_TEAM), past
        )
        box.publish(server.url)
    source = room(server.url)
    async with following(source) as feed:
        await feed.until(
            lambda: {"box1", "box2"} <= {h.name for h in source.hosts.values() if h.connected}, "both hosts"
        )
        answered: dict[str, tuple[list[SearchHit], str]] = {}
        asked = search_hosts([source], "migration", 10, lambda host, hits, why: answered.update({host: (hits, why)}))
        assert sorted(asked) == ["box1", "box2"]
        await feed.until(lambda: len(answered) == 2, "both hosts' hits")
        for name in ("box1", "box2"):
            hits, why = answered[name]
            assert why == "" and hits, (name, why)
            assert {(h.host, h.team) for h in hits} == {(name, NATIVE_TEAM)}
            assert any(marked and text.lower() == "migration" for h in hits for text, marked in h.segments)

        boxes[1].stop()  # a host away is said in words, not waited for
        await feed.until(lambda: not source.hosts["box2"].connected, "box2 away", limit=15)
        answered.clear()
        search_hosts([source], "migration", 10, lambda host, hits, why: answered.update({host: (hits, why)}))
        await feed.until(lambda: len(answered) == 2, "both answers")
        hits, why = answered["box2"]
        assert answered["box1"][0] and hits == [] and "disconnected since" in why, why


async def test_a_request_of_no_team_on_a_nats_host_is_a_need_of_the_room(server: Server, hosts, tmp_path: Path) -> None:
    box = hosts("box1")
    box.publish(server.url)
    source = room(server.url)
    fleet = Fleet([source])
    hook = None
    try:
        async with following(source) as feed:
            await feed.until(lambda: "box1" in source.hosts and source.hosts["box1"].connected, "the host")
            lone = {**box.env(), "CLAUDE_CONFIG_DIR": str(tmp_path / "elsewhere")}  # a session with no agent team
            hook = start_hook(lone, LEAD_ASKS)  # the publisher holds the room lock: the hook waits
            await feed.until(lambda: any(a.items() for _, a in fleet.loose()), "the lone request")
            ((where, answers),) = [(w, a) for w, a in fleet.loose() if a.items()]
            (item,) = answers.items()
            assert where == "box1" and (item.kind, item.who) == ("permission", "team-lead")
            said: list[Outcome] = []
            answers.answer(
                item.id, "deny", "not on a Friday", via="room", where="ann's room", report=said.append, background=None
            )
            await feed.until(lambda: bool(said), "its outcome")
            assert said[0].taken, said
            out, _ = await asyncio.to_thread(hook.communicate, timeout=20)
            assert json.loads(out)["hookSpecificOutput"]["decision"] == {
                "behavior": "deny",
                "message": "not on a Friday",
            }
            await feed.until(lambda: not any(a.items() for _, a in fleet.loose()), "the request gone from the room")
    finally:
        if hook is not None and hook.poll() is None:
            hook.kill()
