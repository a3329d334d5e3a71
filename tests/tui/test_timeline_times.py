"""The timeline's times, from real history databases: the axis ends at now (or the team's end), each
zoom changes the span and says it, a team recorded days after it ran places its tasks and its
messages when they happened, and a 'waiting for you' ends when its item went."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.history.ops import TeamIdent
from teamtui.protocol.history.query import open_history, read_history, team_by_key, team_history
from teamtui.protocol.history.recorder import HistoryRecorder, ident_of
from teamtui.protocol.history.writer import HistoryWriter
from teamtui.protocol.state import TeamState
from teamtui.tui.screens.timeline import TimelineScreen
from teamtui.tui.screenshots import make_app
from tests.history.conftest import apply_ops

from .conftest import SIZE, until
from .test_history_screens import timeline_app, timeline_shown

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "tmux-running"
TEAM = "session-421dba11"
DAY = 86400.0


def apply(path: Path, *ops: tuple) -> None:
    apply_ops(path, list(ops))


def lane(screen: TimelineScreen, name: str) -> str:
    return next(line for line in str(screen._body.render()).splitlines() if line.startswith(name))[16:]


def header(screen: TimelineScreen) -> str:
    return str(screen._header.render())


async def test_the_axis_ends_at_now_and_each_zoom_says_its_span(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    now = time.time()
    team = TeamIdent("", "native", str(tmp_path), "young")
    apply(
        path,
        ("header", team, now - 40 * 60, ("lead", "", None, [("ada", "", "", "", "", now - 40 * 60)], {}, True)),
        ("entries", team, now - 30 * 60, ("log", [("ada", now - 30 * 60, "info", "started", 1)])),
        # An edit stamped by a clock an hour ahead: the team's last sight moves past now.
        ("change", team, now + 3600, ("ada", "a.py", "modified", "", 1, 0, None)),
    )
    history = read_history(("native", str(tmp_path), "young"), path)
    assert history is not None and history.end > now + 3000
    app = timeline_app(history)
    async with app.run_test(size=SIZE) as pilot:
        await timeline_shown(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen) and screen.window is not None
        start, end = screen.window
        assert end <= time.time() and end > now - 5, "the axis ends at now, not at the clock ahead"
        assert abs(start - (now - 40 * 60)) < 1 and "(40 min)" in header(screen)
        await pilot.press("minus")
        # The whole run already: the same start, the end still now (a moment later on a loaded machine).
        assert screen.window[0] == start and end <= screen.window[1] <= time.time()
        assert "(40 min, the whole run)" in header(screen)
        spans = []
        for _ in range(6):
            await pilot.press("plus")
            a, b = screen.window
            spans.append(round(b - a))
            assert f"({round((b - a) / 60)} min" in header(screen), "each zoom says its span"
        assert spans == [1200, 600, 300, 150, 75, 60], "each press zooms in, down to a minute"
        await pilot.press("plus")
        assert round(screen.window[1] - screen.window[0]) == 60 and "as far in as it goes" in header(screen)
        await pilot.press("minus")
        assert round(screen.window[1] - screen.window[0]) == 120 and "as far" not in header(screen)
        await pilot.press("0")
        assert screen.window[0] == start and end <= screen.window[1] <= time.time(), "the whole run, to now"


def write_json(path: Path, data: object, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    os.utime(path, (mtime, mtime))


async def test_a_team_recorded_days_later_places_its_tasks_with_its_messages(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES, root)
    ran = float(int(time.time() - 8 * DAY))  # the team ran eight days ago; its history is recorded now
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))  # noqa: E731
    inbox = root / "teams" / TEAM / "inboxes" / "alice.json"
    messages = [
        {"from": "team-lead", "text": f"step {i}", "timestamp": iso(ran + i * 600), "type": "message", "read": True}
        for i in range(4)
    ]
    write_json(inbox, messages, ran + 1800)
    tasks = root / "tasks" / TEAM
    write_json(
        tasks / "1.json", {"id": "1", "subject": "Port the ledger", "status": "completed", "owner": "alice"}, ran + 1200
    )
    write_json(
        tasks / "2.json", {"id": "2", "subject": "Refund flow", "status": "in_progress", "owner": "bob"}, ran + 1500
    )
    own = {"created_at": ran + 60, "claimed_at": ran + 300, "completed_at": ran + 900}  # a task with its own times
    write_json(
        tasks / "3.json", {"id": "3", "subject": "Audit", "status": "completed", "owner": "bob", **own}, ran + 900
    )
    os.utime(tasks / "3.json")  # its file touched today: its own times win
    db = tmp_path / "h.sqlite3"
    writer = HistoryWriter(db, keep_days=3650)
    try:
        store = ClaudeTeam(root, TEAM)
        TeamState(store, journal=HistoryRecorder(ident_of(store), writer, live=False)).load_all()
        assert writer.flush()
    finally:
        writer.close()
    con = open_history(db, import_journals=False)
    try:
        row = team_by_key(con, ident_of(store)[1:])
        assert row is not None
        history = team_history(con, row.id)
    finally:
        con.close()
    steps = sorted((tid, round(ts - ran), status) for ts, _, tid, status, *_ in history.task_events)
    assert steps == [
        ("1", 1200, "completed"),
        ("2", 1500, "in_progress"),
        ("3", 60, "pending"),
        ("3", 300, "in_progress"),
        ("3", 900, "completed"),
    ], "at their own times, or their files' times, not today"
    assert [round(at - ran) for at, *_ in history.messages] == [0, 600, 1200, 1800]
    app = timeline_app(history)
    async with app.run_test(size=SIZE) as pilot:
        await timeline_shown(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        body = str(screen._body.render()).splitlines()
        ticks = next(line for line in body if line.startswith("messages"))[16:]
        bar = next(line for line in body if line.startswith("#1 Port"))[16:]
        first_tick = len(ticks) - len(ticks.lstrip())
        assert abs(bar.index("━") - first_tick) <= 1, "the task sits with its messages, eight days back"


async def test_a_wait_ends_when_its_item_went(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    t0 = time.time() - 10 * DAY
    team = TeamIdent("", "native", str(tmp_path), "collided")
    members = [("ada", "", "", "", "", t0), ("bob", "", "", "", "", t0), ("cy", "", "", "", "", t0)]
    apply(
        path,
        ("header", team, t0, ("lead", "", None, members, {}, True)),
        # ada's collision: listed, never closed (the room that listed it stopped); she went on working.
        ("need_open", team, t0 + 60, ("collide:a.py", "collision", "ada", "ada and bob changed a.py", t0 + 60)),
        ("entries", team, t0 + 300, ("log", [("ada", t0 + 300 + i * 30, "info", f"line {i}", i) for i in range(20)])),
        # bob's permission: answered ten minutes later.
        ("need_open", team, t0 + 120, ("ask:1", "permission", "bob", "bob asks to run rm", t0 + 120)),
        ("need_closed", team, t0 + 720, ("ask:1", "answered")),
        # cy's question: still open when the team ended, 8.6 days on.
        ("need_open", team, t0 + 180, ("ask:2", "ask", "cy", "cy asks which branch", t0 + 180)),
        ("event", team, t0 + 8.6 * DAY, ("team_gone", "")),
    )
    con = open_history(path, import_journals=False)
    try:
        closed = dict(con.execute("SELECT key, answered_at FROM needs").fetchall())
    finally:
        con.close()
    assert closed["ask:2"] == t0 + 8.6 * DAY, "what was open went with the team"
    history = read_history(("native", str(tmp_path), "collided"), path)
    assert history is not None
    app = timeline_app(history)
    async with app.run_test(size=SIZE) as pilot:
        await timeline_shown(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert lane(screen, "ada").count("▒") <= 1, "a collision is no days-long wait"
        assert lane(screen, "bob").count("▒") <= 1
        screen.window = (t0, t0 + 900)  # the first quarter hour
        screen.draw()
        ada, bob, cy = lane(screen, "ada"), lane(screen, "bob"), lane(screen, "cy")
        assert "▒" in ada and "█" in ada[ada.rindex("▒") :], "her wait ended when she wrote again"
        assert 0 < ada.count("▒") < bob.count("▒") < cy.count("▒"), "each wait as long as it lasted"


async def test_a_team_not_recorded_draws_its_tasks_at_their_own_times(
    frozen_native: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAMTUI_HISTORY", "0")  # no history: the timeline is what the room has in memory
    app = make_app(frozen_native)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team read")
        await pilot.press("h")
        await timeline_shown(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen) and screen.history is not None
        assert "from what this room has in memory" in header(screen)
        steps = [(status, ts) for ts, _, tid, status, *_ in screen.history.task_events if tid == "2"]
    # Task 2's file says when it was created and claimed: drawn then, not at the memory's start.
    assert steps == [("pending", 1763712010.0), ("in_progress", 1763712031.0)]
