"""A Claude Code team whose lead exits: Claude Code deletes the team folder, the dashboard keeps
the team on screen marked "ended HH:MM" (tasks and messages from TeamState), and `watch --team`
opens it later read-only from teamtui's journal."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from teamtui.protocol.claude import journal
from teamtui.tui.widgets.footer import KeyFooter
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.tasks import TaskBoard
from tests.tui.conftest import SIZE, cells, make_in as make, until

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "inprocess-running"
TEAM = "session-8dd2dc96"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("projects"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return root


def header(app) -> str:
    return str(app.dashboard.query_one(TeamHeader).render())


def end_team(root: Path) -> None:
    """What Claude Code does when the lead exits: rename the team folder aside, then delete it."""
    team = root / "teams" / TEAM
    aside = team.with_name(f"{TEAM}.deleted-{uuid.uuid4()}")
    team.rename(aside)
    shutil.rmtree(aside)


def message_alice(home: Path, sender: str, text: str) -> Path:
    """alice's inbox holding one unread message of `sender`'s, as Claude Code writes it."""
    inbox = home / "teams" / TEAM / "inboxes" / "alice.json"
    entry = {"from": sender, "text": text, "timestamp": "2026-11-23T07:02:21.005Z", "msgV": 1}
    inbox.write_text(json.dumps([{**entry, "msg_id": str(uuid.uuid4()), "type": "message", "read": False}]))
    return inbox


async def test_the_team_stays_on_screen_marked_ended(home, tmp_path):
    app = make(home, tmp_path)
    message_alice(home, "team-lead", "LEADMSG hello alice")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and len(app.state.messages) == 1, "the message seen")
        assert "● active" in header(app) or "● inactive" in header(app)
        end_team(home)
        await until(pilot, lambda: "ended " in header(app), "the header to say ended")
        assert "ended " in header(app) and "gone" not in header(app)
        # Everything seen is still shown: both tasks and the message.
        assert len(cells(app.dashboard.query_one(TaskBoard))) == 2
        assert any("LEADMSG hello alice" in r for r in cells(app.dashboard.query_one(MessageTraffic)))
        await pilot.press("m")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert any("Unavailable: the team has ended" in str(n.message) for n in app._notifications)


async def test_watch_team_opens_an_ended_team_read_only_from_the_journal(home, tmp_path):
    app = make(home, tmp_path)
    inbox = message_alice(home, "teamtui", "KEEP ME")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and len(app.state.messages) == 1, "the message seen")
        inbox.write_text("[]")  # alice took it: delivered
        await until(pilot, lambda: any(m.delivered for m in app.state.messages), "the delivery seen")
        end_team(home)
        await until(pilot, lambda: "ended " in header(app), "the end seen")
    journal.flush()

    again = make(home, tmp_path, team=TEAM)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: again.state is not None, "the team opened from the journal")
        assert "ended " in header(again) and TEAM in header(again)
        assert len(cells(again.dashboard.query_one(TaskBoard))) == 2
        rows = cells(again.dashboard.query_one(MessageTraffic))
        assert any("KEEP ME" in r and "| delivered |" in r for r in rows)
        want = {"Message", "Broadcast", "Stop mate", "Stop team"}  # dimmed, and each says why when pressed
        await until(
            pilot,
            lambda: want <= {k.description for k in again.screen.query_one(KeyFooter).slots if not k.usable},
            "the keys that cannot work dimmed",
        )
        for key in ("m", "b", "S", "x"):
            await pilot.press(key)
            assert type(again.screen).__name__ == "DashboardScreen", key
        told = [str(n.message) for n in again._notifications if "Unavailable" in str(n.message)]
        assert len(told) == 2 and all("read-only from teamtui's journal" in t for t in told)  # m and b
        # S and x: nobody is left to approve a shutdown, and that is what they say.
        gone = [str(n.message) for n in again._notifications if "has ended: nobody can approve" in str(n.message)]
        assert [g.split(".")[0] for g in gone] == [
            "team-lead has ended: nobody can approve a shutdown of the team",
            "team-lead has ended: nobody can approve a shutdown of alice",
        ]
    assert not (home / "teams" / TEAM).exists()  # nothing was written back
