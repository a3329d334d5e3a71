"""A remote team's timeline from that machine's history: a `timeline` request answered from its own
database (a `timeline` line, then the result), bounded and read back as untrusted input, and the
dashboard's `h` on a team over a real OpenSSH server drawing what was recorded there before this
room connected; where that machine cannot give it, the timeline of what is in memory, saying why."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.protocol import stream as wire
from teamtui.protocol.history.db import connect
from teamtui.protocol.history.ops import TeamIdent, Txn
from teamtui.protocol.history.timeline import HistoryMember, TeamHistory, build_timeline
from teamtui.protocol.stream_timeline import (
    LANES_CAP,
    TIMELINE_BUDGET,
    read_timeline,
    thin,
    timeline_json,
)
from teamtui.session.actions import NoHistory
from teamtui.session.ops import LINE_TYPES
from teamtui.session.ops.timeline import NOT_HELD

from .conftest import NATIVE_TEAM, Remote
from .test_ssh_tui import room
from .test_stream_cmd import Stream, stream_env, streaming

T0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC
SIZE = (180, 45)


# ------------------------------------------------------------------ a history recorded there


def history_db(state_home: Path) -> Path:
    """Where `teamtui` with XDG_STATE_HOME=`state_home` keeps its history (protocol/history db_path)."""
    return state_home / "teamtui" / "history" / "history.sqlite3"


def record_past(path: Path, team: TeamIdent, t0: float) -> None:
    """An hour of the team recorded before anyone here looked: `ghost` joined, worked on task #77,
    was messaged by the lead, waited on a person, and left; none of it is in the team's files now."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = connect(path)
    con.execute("BEGIN")
    txn = Txn(con)
    txn.apply(("header", team, t0, ("lead", "", None, [("hunter", "", "", "", "", t0)], {}, True)))
    txn.apply(("member", team, t0, ("ghost", "joined", "", "worker", "red")))
    lines = [("ghost", t0 + s, "info", f"ghost did step {s}", s // 20) for s in range(0, 1500, 20)]
    txn.apply(("entries", team, t0, ("log", lines)))
    txn.apply(("task", team, t0 + 60, ("task", "77", "Old migration", "", "in_progress", "ghost", [])))
    txn.apply(("task", team, t0 + 1500, ("task", "77", "Old migration", "", "completed", "ghost", [])))
    for i in range(6):
        at = t0 + 100 + i * 200
        txn.apply(("message", team, at, ("lead", "ghost", "message", f"old message {i}", "", at, None, False)))
    txn.apply(("need_open", team, t0 + 600, ("k1", "permission", "ghost", "ghost asks to drop a table", t0 + 600)))
    txn.apply(("need_closed", team, t0 + 900, ("k1", "allowed")))
    txn.apply(("member", team, t0 + 1800, ("ghost", "left", "", "", "")))
    txn.finish()
    con.execute("COMMIT")
    con.close()


# ------------------------------------------------------------------ the serializer


def long_run(members: int = 10, hours: float = 8.0) -> TeamHistory:
    """`members` teammates writing every 2 s in bursts over `hours`, whole seconds (as a line's time)."""
    t, activity = T0, []
    for i in range(members):
        for burst in range(0, int(hours * 3600), 1800):
            activity += [(T0 + burst + s, f"mate-{i}") for s in range(0, 900 + 60 * i, 2)]
    activity.sort()
    return TeamHistory(
        name="eight-hours",
        start=t,
        end=T0 + hours * 3600,
        members=[HistoryMember(f"mate-{i}", joined_at=T0) for i in range(members)],
        activity=activity,
        member_events=[(T0 + 3600, "mate-1", "left", ""), (T0 + 7200, "mate-1", "joined", "")],
        task_events=[
            (T0 + 60 * i, "task", str(i), "in_progress", f"mate-{i % members}", f"task {i}") for i in range(50)
        ],
        messages=[(T0 + 30 * i, "lead", f"mate-{i % members}", "message") for i in range(900)],
        needs=[(T0 + 4000, T0 + 4600, "mate-2", "permission", "mate-2 asks", "allowed")],
    )


def line_of(h: TeamHistory, budget: int = TIMELINE_BUDGET) -> dict:
    """The timeline line a machine would write, as this side parses it."""
    history, left_out = timeline_json(h, budget)
    data = wire.dumps(
        {"type": "timeline", "id": "r1", "team": ["native", "/p", h.name], "history": history, "left_out": left_out}
    )
    assert len(data) <= wire.MAX_LINE
    obj = wire.parse(data, LINE_TYPES)
    assert obj is not None
    return obj


def spans(h: TeamHistory) -> dict[str, list[tuple[float, float, str]]]:
    tl = build_timeline(h, T0, h.end)
    return {lane.name: [(s.start, s.end, s.state) for s in lane.spans] for lane in tl.lanes}


def test_a_long_run_goes_in_one_line_and_draws_the_same_lanes() -> None:
    h = long_run()
    line = line_of(h)
    assert line["left_out"] == {}, "eight hours of ten teammates fit"
    assert len(line["history"]["activity"]) < len(h.activity) / 10, "thinned to the moments that draw the lanes"
    back = read_timeline(line, "box")
    assert back is not None and back.host == "box" and back.note == ""
    assert spans(back) == spans(h), "the same lanes, span for span"
    assert build_timeline(back).tasks == build_timeline(h).tasks
    assert back.messages == h.messages and back.needs == h.needs


def test_thin_keeps_the_ends_of_every_span() -> None:
    assert thin([1.0, 2.0, 3.0, 200.0, 201.0], 60) == [1.0, 3.0, 200.0, 201.0]
    # Each needed: dropping one would leave more than 60 s between two kept.
    assert thin([0.0, 50.0, 100.0, 150.0], 60) == [0.0, 50.0, 100.0, 150.0]
    assert thin([0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0], 60) == [0.0, 60.0, 70.0]


def test_past_its_budget_the_oldest_are_left_out_and_said() -> None:
    h = long_run(members=LANES_CAP + 20, hours=2)
    h.messages = [(T0 + i, "lead", "mate-0", "message" * 4) for i in range(30_000)]
    budget = 200 * 1024
    line = line_of(h, budget)
    assert len(wire.dumps(line["history"])) < budget
    left = line["left_out"]
    assert left["lanes"] == 20 and left["messages"] > 20_000 - 10_000  # capped at 10,000, then cut to the budget
    back = read_timeline(line, "box")
    assert back is not None and len({lane.name for lane in build_timeline(back).lanes}) <= LANES_CAP
    assert back.messages[-1] == (T0 + 29_999, "lead", "mate-0", "message" * 4), "the newest kept"
    assert "box sent what fits in one stream line" in back.note
    assert (
        f"20 teammates past the first {LANES_CAP}" in back.note
        and "the oldest" in back.note
        and "messages" in back.note
    )


def test_the_biggest_history_still_fits_in_one_line() -> None:
    """Every string at its cap and escaped six bytes a character, every part past its cap, the
    team's key and the request's id at theirs: the line is still one line."""
    from teamtui.session.ops.timeline import answer_budget

    n = "é" * 5000
    h = TeamHistory(
        name=n,
        lead=n,
        start=T0,
        end=T0 + 9e5,
        members=[HistoryMember(f"{i}{n}", n, n, T0, None) for i in range(300)],
        activity=[(T0 + i * 0.5, f"{i % 300}{n}") for i in range(200_000)],
        member_events=[(T0 + i, f"{i % 300}{n}", "status", n) for i in range(20_000)],
        task_events=[(T0 + i, "task", n, n, n, n) for i in range(20_000)],
        messages=[(T0 + i, n, n, n) for i in range(20_000)],
        needs=[(T0 + i, None, n, n, n, n) for i in range(5000)],
    )
    rid, key = "x" * 128, [n[:4096]] * 3
    history, left_out = timeline_json(h, answer_budget(rid, key))
    line = {"type": "timeline", "id": rid, "team": key, "history": history, "left_out": left_out}
    assert len(wire.dumps(line)) <= TIMELINE_BUDGET < wire.MAX_LINE
    assert len(history["lanes"]) == LANES_CAP and left_out["lanes"] == 200
    assert all(history[part] for part in ("activity", "member_events", "task_events", "messages", "needs"))
    back = read_timeline(wire.parse(wire.dumps(line), LINE_TYPES) or {}, "box")
    assert back is not None and back.messages[-1][0] == T0 + 19_999, "the newest kept"


def test_a_hostile_timeline_line_is_checked() -> None:
    lanes = ["ok", "evil\x1b]0;pwn\x07", "[bold red]markup[/]", "x" * 5000]
    raw = {
        "type": "timeline",
        "history": {
            "name": "t\x1b[2J\u202e",
            "start": T0,
            "end": 1e300,  # a ruler of centuries: refused
            "lead": ["not", "a", "string"],
            "lanes": lanes + [7, None] * 200,
            "members": [
                ["ok", "worker", "blue", T0, None],
                ["ok", "dup", "", T0, None],
                "junk",
                [1, 2],
                ["b", 1, 2, "x", 1e20],
            ],
            "activity": [
                [T0 + 1, 0],
                [T0 + 2, 1],
                [T0 + 3, 99],
                [T0 + 4, -1],
                [T0 + 5, True],
                [T0 + 6, 2],
                ["soon", 0],
                [float("nan"), 0],
                [1e300, 0],
                [T0 + 6, 2, 3],
            ]
            + [[T0 + 7, 3]] * 60_000,
            "member_events": [
                [T0, 0, "joined", "x"],
                [T0, 0, "exploded", ""],
                [T0, 0, ["joined"], ""],
                [T0, 9, "left", ""],
            ],
            "task_events": [
                [T0, "task", "1", "completed", "ok", "s" * 999],
                [T0, "evil", "2", "x", "", ""],
                [T0, "task", None, "x", "", ""],
            ],
            "messages": [[T0, "a\x07", "b", "message"], [T0, 1, 2, 3], [-5, "a", "b", "m"]],
            "needs": [[T0, None, "ok", "permission", "y" * 9999, "\x1b[31mno"], [T0, "later", "", "k", "", ""]],
            "extra": {"nested": [[[[[]]]]]},
        },
        "left_out": {"messages": "many", "activity": 2**70, "needs": -3, "x": 5},
    }
    h = read_timeline(json.loads(json.dumps(raw)), "box")  # as the wire has it (NaN allowed by json)
    assert h is not None
    assert h.name == "t\ufffd[2J\ufffd" and h.lead == "" and h.end == h.start == T0
    # The second "ok" is a twin; "b" has a colour of 2 and a time of 1e20: dropped.
    assert [(m.name, m.agent_type, m.color, m.joined_at) for m in h.members] == [("ok", "worker", "blue", T0)]
    who = {w for _, w in h.activity}
    assert who == {"ok", "evil\ufffd]0;pwn\ufffd", "[bold red]markup[/]", "x" * 128}
    assert len(h.activity) <= 50_000
    assert h.member_events == [(T0, "ok", "joined", "x")]
    assert h.task_events == [(T0, "task", "1", "completed", "ok", "s" * 200)]
    assert h.messages == [(T0, "a\ufffd", "b", "message")]
    assert h.needs == [(T0, None, "ok", "permission", "y" * 500, "\ufffd[31mno")]
    assert h.note == "", "nothing readable was said to be left out"
    for bad in ({}, {"history": "x"}, {"history": {"name": ""}}, {"history": {"name": "t", "start": "x"}}):
        assert read_timeline(bad, "box") is None


async def test_the_screen_draws_a_hostile_timeline_inert() -> None:
    from tests.tui.test_history_screens import timeline_app, timeline_shown

    h = read_timeline(
        {
            "history": {
                "name": "[b]t[/b]",
                "start": T0,
                "end": T0 + 600,
                "lanes": ["[red]x\x1b[0m"],
                "activity": [[T0 + 10, 0]],
                "task_events": [[T0, "task", "1", "pending", "", "[link=http://x]y[/link]"]],
            },
            "left_out": {"messages": 3},
        },
        "box\x1b",
    )
    assert h is not None
    app = timeline_app(h)
    async with app.run_test(size=SIZE) as pilot:
        await timeline_shown(pilot)
        body, head = str(app.screen._body.render()), str(app.screen._header.render())
        assert "[red]x" in body and "#1 [link=http:" in body and "\x1b" not in body
        assert "[b]t[/b]" in head and "the oldest 3 messages left out" in head and "\x1b" not in head


# ------------------------------------------------------------------ the stream answers it


@pytest.fixture
def stream_with_history(tmp_path: Path) -> Iterator[tuple[Stream, TeamIdent]]:
    """`teamtui stream` over an empty machine whose history holds an ended team it no longer lists."""
    state = tmp_path / "state"
    team = TeamIdent("", "native", "/gone/project", "old-team")
    record_past(history_db(state), team, T0)
    with streaming(stream_env(tmp_path, state=state), tmp_path) as s:
        yield s, team


def test_a_timeline_request_is_answered_from_that_machines_history(stream_with_history) -> None:
    s, team = stream_with_history
    s.until(lambda o: o["type"] == "ready", "the snapshot")
    s.ask({"id": "t1", "op": "timeline", "team": ["native", "/gone/project", "old-team"]})
    line = s.until(lambda o: o["type"] == "timeline" and o["id"] == "t1", "the timeline")
    result = s.until(lambda o: o["type"] == "result" and o["id"] == "t1", "its result")
    assert result["ok"] is True and line["team"] == ["native", "/gone/project", "old-team"]
    h = read_timeline(line, "box")
    assert h is not None and h.name == "old-team" and h.ended_at is None
    assert "ghost" in {lane.name for lane in build_timeline(h).lanes}
    assert [t.subject for t in build_timeline(h).tasks] == ["Old migration"]
    assert len(h.messages) == 6 and h.needs[0][4] == "ghost asks to drop a table"
    for n, (team_field, why) in enumerate(
        (
            (["native", "/nowhere", "old-team"], NOT_HELD),
            (["native", "/gone/project"], "team must be"),
            ("old-team", "team must be"),
            (None, "team must be"),
        )
    ):
        s.ask({"id": f"bad{n}", "op": "timeline", "team": team_field})
        result = s.until(lambda o, n=n: o["type"] == "result" and o["id"] == f"bad{n}", f"{team_field} refused")
        assert result["ok"] is False and why in result["error"], (team_field, result)
    assert not any(o["type"] == "timeline" and o["id"].startswith("bad") for o in s.lines)


# ------------------------------------------------------------------ the room, over ssh


async def open_timeline(pilot, app, host, key):
    """The room's row of the box's native team opened (enter), then `h` on its dashboard."""
    from teamtui.tui.screens.dashboard import DashboardScreen
    from teamtui.tui.screens.timeline import TimelineScreen
    from teamtui.tui.widgets.fleet import FleetTable
    from tests.tui.conftest import cells, until

    await until(pilot, lambda: key in host.sessions and host.connected, "the box's team", limit=30)
    table = app.screen.query_one(FleetTable)
    await until(pilot, lambda: any(c.startswith(NATIVE_TEAM) for c in cells(table)), "its row")
    table.move_cursor(row=next(i for i, c in enumerate(cells(table)) if c.startswith(NATIVE_TEAM)))
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
    assert app.screen.session is host.sessions[key]
    await pilot.press("h")
    await until(
        pilot,
        lambda: isinstance(app.screen, TimelineScreen) and app.screen.history is not None,
        "the timeline read",
        limit=30,
    )
    await pilot.pause()
    return app.screen


async def test_h_on_a_remote_team_draws_what_its_machine_recorded_before_we_connected(
    remote: Remote, tmp_path: Path
) -> None:
    past = time.time() - 3 * 3600
    record_past(
        history_db(remote.home / ".local" / "state"),
        TeamIdent("", "native", os.path.realpath(remote.project), NATIVE_TEAM),
        past,
    )
    app, host = room(remote, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_timeline(pilot, app, host, remote.native_key)
        session = host.sessions[remote.native_key]
        assert "ghost" not in {m.name for m in session.state.config.members}, "never in what the stream carried"
        h = screen.history
        assert h.host == "box" and h.note == "" and h.start <= past
        body, head = str(screen._body.render()), str(screen._header.render())
        lanes = {line.split()[0] for line in body.splitlines()[1:] if line.strip()}
        assert {"ghost", "hunter"} <= lanes, body
        assert "#77 Old migrat" in body  # as far as its label goes
        assert sum(t.at <= past + 1500 for t in build_timeline(h).ticks) == 6, "the lead's old messages, as ticks"
        assert [n.text for n in build_timeline(h).needs] == ["ghost asks to drop a table"]
        assert "in memory" not in head


async def test_a_machine_whose_history_lacks_the_team_says_so_and_memory_is_shown(
    remote: Remote, tmp_path: Path
) -> None:
    off = remote.teamtui().replace("env ", "env TEAMTUI_HISTORY=0 ", 1)  # that machine records nothing
    app, host = room(remote, tmp_path, teamtui=off)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_timeline(pilot, app, host, remote.native_key)
        h = screen.history
        assert h.note == f"box: {NOT_HELD}: shown from what this room has in memory"
        head = str(screen._header.render())
        assert "box: its history does not hold this team" in head and "in memory" in head
        body = str(screen._body.render())
        assert {"hunter", "scout"} <= {line.split()[0] for line in body.splitlines()[1:] if line.strip()}


async def test_a_host_that_is_away_or_too_old_is_said_in_words() -> None:
    from teamtui.protocol.settings import HostSettings
    from teamtui.session.ops.base import Asks
    from teamtui.session.ops.timeline import RemoteTimeline, why
    from teamtui.session.remote import RemoteHost

    down = RemoteHost(HostSettings("down", "me@down"), ssh="/bin/false")
    down.reason = "ssh: connect to host down port 22: Connection refused"
    with pytest.raises(NoHistory, match="down is ssh: connect to host down port 22: Connection refused"):
        await RemoteTimeline(Asks(down, ("native", "/p", "t")))()
    assert why("box", "unknown op 'timeline'") == "box runs an older teamtui that sends no timelines: upgrade it there"
