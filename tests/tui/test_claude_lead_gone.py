"""`S` and `x` on a Claude Code team whose lead has ended: nobody can approve a shutdown, so the
dashboard says so at once (no request, no wait) and offers to close the panes config.json names
that still run their teammates, on a real private tmux server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.tui.conftest import SIZE, until
from tests.tui.test_claude_shutdown import (  # noqa: F401
    TEAM,
    claude_home,
    edit_config,
    in_tmux,
    make,
    set_lead,
    tmux_socket,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="whether a lead lives is read from /proc")


@pytest.fixture
def ended_lead(claude_home: Path) -> Path:
    """config.json names a lead whose process has ended (a real pid of this machine, now dead)."""
    gone = subprocess.Popen(["sleep", "3600"])
    set_lead(claude_home, gone.pid)
    gone.kill()
    gone.wait()
    return claude_home


def teammate_pane(tmux, name: str) -> str:
    """A pane started the way Claude Code starts a teammate (`--agent-id NAME@TEAM` on its command line)."""
    return tmux("split-window", "-d", "-P", "-F", "#{pane_id}", f"sleep 3600; : --agent-id {name}@{TEAM}").strip()


def inbox(root: Path, who: str) -> str:
    return (root / "teams" / TEAM / "inboxes" / f"{who}.json").read_text()


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def loaded(pilot) -> None:
    app = pilot.app
    await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")


async def test_S_says_the_lead_has_ended_and_closes_the_open_teammate_panes_on_yes(
    ended_lead, tmp_path, tmux_socket, monkeypatch
):
    socket, tmux = tmux_socket
    alice = teammate_pane(tmux, "alice")
    # bob's pane id now belongs to another program: it is not offered, and never closed.
    other = tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "sleep 3600").strip()
    in_tmux(ended_lead, socket, monkeypatch, alice=alice, bob=other)
    lead_inbox = inbox(ended_lead, "team-lead")
    app = make(ended_lead, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("S")
        # At once: no shutdown dialog, no request to a lead that cannot answer, no deadline to wait for.
        assert type(app.screen).__name__ == "ClosePanesConfirm"
        assert "team-lead has ended: nobody can approve a shutdown of the team." in notes(app)
        offer = str(app.screen.query_one(".dialog-sub").render())
        assert f"alice ({alice})" in offer and "bob" not in offer
        assert "team-lead has ended: close their panes?" in str(app.screen.query_one(".dialog-title").render())
        assert inbox(ended_lead, "team-lead") == lead_inbox and app.shutdown_run is None
        await pilot.press("y")
        await until(pilot, lambda: f"Closed the pane of alice ({alice})" in notes(app), "alice's pane closed")
        panes = tmux("list-panes", "-a", "-F", "#{pane_id}").split()
        assert alice not in panes and other in panes
        assert type(app.screen).__name__ == "DashboardScreen"


async def test_x_says_the_lead_has_ended_and_keeps_the_pane_on_no(ended_lead, tmp_path, tmux_socket, monkeypatch):
    socket, tmux = tmux_socket
    alice = teammate_pane(tmux, "alice")
    bob = teammate_pane(tmux, "bob")
    in_tmux(ended_lead, socket, monkeypatch, alice=alice, bob=bob)
    app = make(ended_lead, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.selected == "alice"
        await pilot.press("x")
        assert type(app.screen).__name__ == "ClosePanesConfirm"
        assert "team-lead has ended: nobody can approve a shutdown of alice." in notes(app)
        offer = str(app.screen.query_one(".dialog-sub").render())
        assert f"alice ({alice})" in offer and "bob" not in offer  # x is for one teammate
        await pilot.press("n")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert {alice, bob} <= set(tmux("list-panes", "-a", "-F", "#{pane_id}").split())


async def test_with_no_teammate_pane_left_it_only_says_so(ended_lead, tmp_path, tmux_socket, monkeypatch):
    socket, tmux = tmux_socket
    monkeypatch.setenv("TMUX", f"{socket},1,0")  # config.json's %1 and %2 are not open on this server
    app = make(ended_lead, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("S")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert (
            "team-lead has ended: nobody can approve a shutdown of the team. "
            "No pane config.json names for them is still open."
        ) in notes(app)
        assert json.loads(inbox(ended_lead, "team-lead")) == json.loads(
            (
                Path(__file__).resolve().parents[1]
                / "fixtures"
                / "examples"
                / "claude-2.1.328"
                / "tmux-running"
                / "teams"
                / TEAM
                / "inboxes"
                / "team-lead.json"
            ).read_text()
        )


async def test_outside_tmux_it_says_the_panes_cannot_be_looked_for(ended_lead, tmp_path, monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    app = make(ended_lead, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("S")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert any(
            n.startswith(
                "team-lead has ended: nobody can approve a shutdown of the team. Its teammates' panes "
                "cannot be looked for"
            )
            for n in notes(app)
        )


async def test_a_team_marked_ended_offers_the_panes_still_open(ended_lead, tmp_path, tmux_socket, monkeypatch):
    import shutil

    from tests.tui.test_claude_ended import header

    socket, tmux = tmux_socket
    bob = teammate_pane(tmux, "bob")
    edit_config(ended_lead, lambda cfg: cfg["members"][2].__setitem__("tmuxPaneId", bob))
    monkeypatch.setenv("TMUX", f"{socket},1,0")
    app = make(ended_lead, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        shutil.rmtree(ended_lead / "teams" / TEAM)  # the lead's exit deleted the folder: the team is shown as it ended
        await until(pilot, lambda: "ended " in header(app), "the header to say ended")
        await pilot.press("S")
        assert "team-lead has ended: nobody can approve a shutdown of the team." in notes(app)
        assert f"bob ({bob})" in str(app.screen.query_one(".dialog-sub").render())
        await pilot.press("y")
        await until(pilot, lambda: bob not in tmux("list-panes", "-a", "-F", "#{pane_id}").split(), "bob's pane closed")


async def test_m_and_b_write_and_say_nobody_may_read_it_now(ended_lead, tmp_path):
    """The message is written (nothing lost), and the toast says what `S` says: the lead has ended."""
    app = make(ended_lead, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.selected == "alice"
        await pilot.press("m", *"are you there?", "enter")
        await until(pilot, lambda: any(n.startswith("Message written to alice") for n in notes(app)), "written")
        assert (
            "Message written to alice's inbox. team-lead has ended: nobody may read it now (it stays in the inbox)."
            in notes(app)
        )
        assert json.loads(inbox(ended_lead, "alice"))[-1]["text"] == "are you there?"
        await pilot.press("b", *"anyone?", "enter")
        await until(pilot, lambda: any(n.startswith("Broadcast written to") for n in notes(app)), "broadcast")
        said = next(n for n in notes(app) if n.startswith("Broadcast written to"))
        assert said.endswith(". team-lead has ended: nobody may read it now (it stays in their inboxes).")
        assert json.loads(inbox(ended_lead, "bob"))[-1]["text"] == "anyone?"


async def test_m_with_the_lead_running_says_only_where_it_was_written(claude_home, tmp_path):
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("m", *"are you there?", "enter")
        await until(pilot, lambda: any(n.startswith("Message written to alice") for n in notes(app)), "written")
        assert "Message written to alice's inbox" in notes(app)
