"""The real Claude Code 2.1.328 lead killed (SIGKILL: no clean exit, so the team folder stays and
config.json still names its teammates' panes). teamtui's `S` says at once that nobody can approve a
shutdown and, on `y`, closes the panes that still run the teammates. Its own session, after the
others: the lead does not come back."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.harness import Session, start_idle_team, wait_until
from tests.interop.test_real_claude import claude_installed, dashboard  # noqa: F401 - fixture

pytestmark = pytest.mark.interop


@pytest.fixture
def killed_lead(claude_installed: None, tmp_path: Path) -> Iterator[Session]:
    s = Session(tmp_path / "claude-killed", "tmux")
    try:
        yield start_idle_team(s)
    finally:
        s.stop()


def test_S_with_the_lead_killed_offers_to_close_the_teammates_panes(killed_lead: Session) -> None:
    from teamtui.protocol.claude import ClaudeTeam
    from teamtui.protocol.claude.leadproc import lead_state

    s = killed_lead
    panes = {m["name"]: m["tmuxPaneId"] for m in s.config()["members"] if m["name"] in ("alice", "bob")}
    assert all(p.startswith("%") for p in panes.values()), panes
    os.kill(s.config()["leadProcess"]["pid"], signal.SIGKILL)
    store = ClaudeTeam(s.claude_dir, s.team)
    wait_until(
        lambda: store.read_config() is not None and lead_state(store.lead_process) == "ended", "the lead to be gone", 20
    )
    assert s.team_dir() is not None  # killed, the lead deleted nothing
    pane = dashboard(s)
    s.keys(pane, "S")
    screen = wait_until(
        lambda: (lambda c: c if "team-lead has ended: close their panes?" in c else "")(s.capture(pane)),
        "the offer to close the panes, at once",
        15,
    )
    assert "nobody can approve a shutdown" in screen
    # Nothing was asked of the dead lead: its inbox (a pending queue nobody empties now) has no entry from teamtui.
    lead_inbox = s.claude_dir / "teams" / s.team / "inboxes" / "team-lead.json"
    assert not lead_inbox.exists() or '"teamtui"' not in lead_inbox.read_text()
    assert f"alice ({panes['alice']})" in screen and f"bob ({panes['bob']})" in screen
    s.keys(pane, "y")
    wait_until(lambda: not set(panes.values()) & {p["pane_id"] for p in s.panes()}, "the teammates' panes to close", 20)
    assert pane in {p["pane_id"] for p in s.panes()}  # teamtui's own pane stays
    s.tmux("kill-pane", "-t", pane, check=False)
