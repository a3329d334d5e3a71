"""Answering from a browser (#30): `teamtui serve` runs the same room per browser session; a real
`teamtui hook` waits on a permission request, the browser session (with the token) answers it with
the same keys, the hook prints the decision, and the journal says it came from a browser. Without
the token the websocket never opens (tests/test_serve.py holds the guard itself)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.place import spool_dir
from teamtui.tui.controllers.answers import answer_origin
from tests.protocol.hooks.helpers import start_hook
from tests.remote.test_stream_answers import ALICE_ASKS, ALLOW, TEAM, add_team
from tests.test_serve import Served, _client, _free_port, _read_until, _ws_status, _ws_url


def test_a_browser_session_answers_as_a_browser() -> None:
    assert answer_origin({"TEAMTUI_ANSWER_VIA": "browser", "TEAMTUI_ANSWER_WHERE": "127.0.0.1:8765"}) == (
        "browser",
        f"a browser of teamtui serve on {os.uname().nodename} at 127.0.0.1:8765",
    )
    assert answer_origin({}) == ("room", os.uname().nodename)


async def _room_held(limit: float = 30) -> None:
    from teamtui.protocol.hooks.room import room_running

    end = time.monotonic() + limit
    while not room_running(spool_dir()):
        assert time.monotonic() < end, "the browser's room never held the room lock"
        await asyncio.sleep(0.05)


async def test_a_request_is_allowed_from_a_browser(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    add_team(claude)
    server = Served(["--root", str(claude), "--port", str(_free_port())], tmp_path)
    try:
        async with _client() as session:
            assert await _ws_status(session, _ws_url(server)) == 403  # no token: no room, no answer
            async with session.get(server.url) as resp:
                assert resp.status == 200
            ws = await session.ws_connect(_ws_url(server), origin=server.base)
            try:
                await ws.send_str(json.dumps(["resize", {"width": 140, "height": 40}]))
                await _read_until(ws, TEAM.encode(), server)
                await _room_held()  # a hook started before the browser's room holds the lock is never offered
                hook = start_hook({**os.environ, "CLAUDE_CONFIG_DIR": str(claude)}, ALICE_ASKS)
                try:
                    await _read_until(ws, b"asks permission", server)
                    await ws.send_str(json.dumps(["stdin", "a"]))
                    await _read_until(ws, " allow · ".encode(), server)  # the answer screen's own key line
                    await ws.send_str(json.dumps(["stdin", "a"]))
                    out, err = await asyncio.to_thread(hook.communicate, timeout=30)
                finally:
                    if hook.poll() is None:
                        hook.kill()
            finally:
                await ws.close()
    finally:
        server.stop()
    said = [(e["what"], e.get("decision"), e.get("why")) for e in journal.read(spool_dir())]
    assert (hook.returncode, out, err) != (0, "", ""), f"the hook printed nothing: {said}"
    assert (hook.returncode, json.loads(out), err) == (0, ALLOW, "")
    answered = [e for e in journal.read(spool_dir()) if e["what"] == journal.ANSWERED]
    assert [(e["decision"], e["via"]) for e in answered] == [("allow", "browser")]
    assert answered[0]["where"].startswith(f"a browser of teamtui serve on {os.uname().nodename} at 127.0.0.1:")
