"""A pane teammate's permission request answered from the room (the same keys as every other
answer): the room lists it from the lead's inbox, `a` then `a` presses Yes in the lead's own dialog
in a real tmux pane, and the lead's signed response in the teammate's inbox confirms it. The lead
is the stand-in of test_lead_dialog.py (2.1.332's dialog); the real one is tests/interop's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tmux_support import TmuxServer

from teamtui.protocol.hooks.place import ensure_spool
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from tests.tmux.test_lead_dialog import COMMAND, Lead, in_tmux  # noqa: F401 - fixture
from tests.tui.conftest import SIZE, open_from_strip, toasts, until

pytestmark = pytest.mark.tmux


def _asked(lead: Lead) -> None:
    """alice's request in the lead's inbox, as a pane teammate writes it (FORMATS.md §4)."""
    request = {
        "type": "permission_request",
        "request_id": "perm-1-abc",
        "agent_id": "alice",
        "tool_name": "Bash",
        "tool_use_id": "toolu_pane1",
        "description": "alice probe",
        "input": {"command": COMMAND, "description": "alice probe"},
        "permission_suggestions": [],
    }
    entry = {"from": "alice", "text": json.dumps(request), "timestamp": "2026-11-27T02:46:25.479Z", "read": False}
    (lead.inbox.parent / "team-lead.json").write_text(json.dumps([entry]))


async def test_allowed_from_the_room_through_the_leads_dialog(in_tmux: TmuxServer, tmp_path: Path) -> None:  # noqa: F811
    lead = Lead(in_tmux, tmp_path, "Yes,Yes and switch to auto mode,No")
    _asked(lead)
    app = TeamTUI.watching(
        lead.claude, hooks=ensure_spool(), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        await open_from_strip(pilot, app, "permission", "alice's request in the strip")
        await pilot.press("a")  # allow: pressed in the lead's dialog
        said = "allowed in the lead's dialog"
        await until(pilot, lambda: any(said in t for t in toasts(app)), "confirmed", 30)
    assert lead.pressed() == "1"  # the key of Yes, read off the screen; nothing else
    signed = [e for e in json.loads(lead.inbox.read_text()) if "permission_response" in e.get("text", "")]
    assert len(signed) == 1 and "lead_sig" in signed[0]  # the lead's own response; teamtui wrote none
