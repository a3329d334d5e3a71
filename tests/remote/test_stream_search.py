"""Searching another machine's history over its stream: a `search` request answered from that
machine's own database (a `hits` line, then the result), bounded and read back as untrusted input,
and the room's `/` showing a host's hits beside this machine's, labelled with the host, `enter`
opening the host's team."""

from __future__ import annotations

import os
import time
from pathlib import Path


from teamtui.protocol import stream as wire
from teamtui.protocol.stream_history import HITS_CAP, QUERY_CAP, SEGMENT_CAP, read_hits

from .conftest import copy_tree, empty_local_fleet
from .test_stream_changes import EDITS, TEAM, edits_stream, local_stream  # noqa: F401 - a fixture
from .test_stream_cmd import Stream


def ask_until_found(s: Stream, query: str, limit: float = 20.0, kind: str = "") -> dict:
    """The stream records its teams as it reads them (a commit a second): asked until they are there."""
    end, n = time.monotonic() + limit, 0
    while time.monotonic() < end:
        n += 1
        s.ask({"id": f"s{n}", "op": "search", "query": query, "limit": 10})
        line = s.until(lambda o, n=n: o["type"] == "hits" and o["id"] == f"s{n}", "the hits")
        result = s.until(lambda o, n=n: o["type"] == "result" and o["id"] == f"s{n}", "its result")
        assert result["ok"] is True
        if any(not kind or h["kind"] == kind for h in line["hits"]):
            return line
        time.sleep(0.3)
    raise AssertionError(f"no hit for {query!r}")


def test_a_search_is_answered_from_that_machines_history(edits_stream: Stream) -> None:
    s = edits_stream
    s.until(lambda o: o["type"] == "ready", "the snapshot")
    line = ask_until_found(s, "app")
    hits = read_hits(line, "box")
    assert hits and all(h.team == TEAM and h.host == "box" and h.root for h in hits)
    assert any(marked and text.lower() == "app" for h in hits for text, marked in h.segments)
    assert hits == sorted(hits, key=lambda h: -h.at)
    # What needs the person there is recorded there too (no room runs there): alice and bob on app.py.
    needs = read_hits(ask_until_found(s, '"both changed"', kind="need"), "box")
    assert [(h.kind, h.who, h.text) for h in needs if h.kind == "need"] == [
        ("need", "alice", "alice and bob both changed app.py")
    ]
    for n, (bad, why) in enumerate(
        (
            ({"query": ""}, "query must be"),
            ({"query": "x" * (QUERY_CAP + 1)}, "query must be"),
            ({"query": 7}, "query must be"),
            ({"query": '"unclosed'}, "quote is not closed"),
            ({"query": "ab*"}, "at least 3 letters"),
        )
    ):
        s.ask({"id": f"bad{n}", "op": "search", **bad})
        result = s.until(lambda o, n=n: o["type"] == "result" and o["id"] == f"bad{n}", f"{bad} refused")
        assert result["ok"] is False and why in result["error"], (bad, result)


def test_hostile_hits_are_checked_and_bounded() -> None:
    raw = {
        "hits": [
            {
                "team": "t\x1b[2J",
                "host": "",
                "root": "/r",
                "at": 5,
                "kind": "message",
                "who": "a\x07",
                "segments": [["x" * (SEGMENT_CAP + 50), True], ["\x1b]0;pwn\x07", False], "junk", [1, 2, 3]],
            },
            {"team": "no time", "kind": "log"},
            {"team": "t2", "host": "far", "at": "soon", "kind": "log"},
            {"team": "t3", "host": "far", "at": 9, "kind": "log", "segments": "not a list"},
            "not a hit",
        ]
        + [{"team": f"n{i}", "at": i, "kind": "log"} for i in range(HITS_CAP + 20)]
    }
    hits = read_hits(raw, "box")
    assert len(hits) <= HITS_CAP
    first = next(h for h in hits if h.team.startswith("t\ufffd"))
    assert first.who == "a\ufffd" and first.host == "box"
    assert len(first.segments[0][0]) == SEGMENT_CAP and first.segments[1] == ("\ufffd]0;pwn\ufffd", False)
    assert len(first.segments) == 2  # the malformed parts dropped
    (t3,) = [h for h in hits if h.team == "t3"]
    assert t3.host == "box/far" and t3.segments == []  # a team that machine had from another: said so
    assert not [h for h in hits if h.team in ("no time", "t2")]
    assert len(wire.dumps(raw)) < wire.MAX_LINE


async def test_the_rooms_search_shows_a_hosts_hits_labelled_and_opens_its_team(tmp_path: Path) -> None:
    from teamtui.protocol.settings import HostSettings
    from teamtui.session.fleet import Fleet
    from teamtui.session.remote import RemoteHost
    from teamtui.tui.app import TeamTUI
    from teamtui.tui.screens.search import SearchScreen
    from tests.tui.conftest import until

    claude = tmp_path / "there" / "claude"
    copy_tree(EDITS, claude)
    host = RemoteHost(HostSettings("box", "me@box"), ssh=local_stream(tmp_path, claude), stall=10.0, heartbeat=0.5)
    down = RemoteHost(HostSettings("down", "me@down"), ssh="/bin/false", backoff_first=30.0)
    fleet = Fleet([empty_local_fleet(tmp_path), host, down])
    app = TeamTUI(fleet, config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)
    key = ("ssh:box", os.path.realpath(claude), TEAM)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: key in host.sessions and host.connected, "the box's team", limit=30)
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "the search")
        screen = app.screen
        for ch in "fix app":
            await pilot.press(ch)

        for _ in range(30):  # the box records what it reads a second at a time: typed again until it has it
            try:
                await until(pilot, lambda: screen.host_said.get("box") == "" and screen.hits, "the box's hits", 3)
                break
            except AssertionError:
                await pilot.press("backspace", "p")
        assert all(h.host == "box" and h.team == TEAM for h in screen.hits)
        status = screen.query_one("#search-status").render().plain
        assert "box:" in status and "down:" in status  # the host that is down says why
        options = screen.query_one("#search-results")
        assert f"{TEAM}@box" in options.get_option_at_index(0).prompt.plain
        await pilot.press("enter", "enter")
        await until(pilot, lambda: app.session is not None and app.session.name == TEAM, "the box's team opened")
        assert app.session is host.sessions[key]
