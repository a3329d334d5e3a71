"""The Messages panel on a Claude Code 2.1.328 team: entries by meaning, and "delivered" when
Claude Code takes an entry out of its inbox (the read receipt of a pending queue)."""

from __future__ import annotations

import json
import os
import uuid

from textual.widgets.data_table import ColumnKey

from teamtui.tui.widgets.messages import MessageTraffic
from tests.tui.conftest import SIZE, cells, until
from tests.tui.test_claude_shutdown import TEAM, claude_home, make, write_entry

__all__ = ["claude_home"]


def proto(**payload) -> str:
    return json.dumps(payload, separators=(",", ":"))


async def test_entries_shown_by_meaning_and_marked_delivered(claude_home, tmp_path):
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        table = app.dashboard.query_one(MessageTraffic)
        # Nothing in the inboxes yet: the empty panel says why it may stay empty.
        await until(pilot, lambda: table.border_subtitle.startswith("none seen yet"), "the empty panel's hint")
        assert "deletes each one once delivered" in table.border_subtitle
        write_entry(
            claude_home,
            "team-lead",
            {
                "from": "alice",
                "text": proto(
                    type="idle_notification", **{"from": "alice"}, idleReason="available", result="BASH-alice done"
                ),
            },
        )
        write_entry(
            claude_home,
            "team-lead",
            {"from": "bob", "text": proto(type="shutdown_approved", requestId="shutdown-1@bob", **{"from": "bob"})},
        )
        write_entry(
            claude_home,
            "team-lead",
            {"from": "system", "text": proto(type="teammate_terminated", message="bob has shut down.")},
        )
        write_entry(
            claude_home,
            "alice",
            {
                "from": "team-lead",
                "text": proto(type="task_assignment", taskId="1", subject="probe task one", assignedBy="team-lead"),
            },
        )
        write_entry(claude_home, "alice", {"from": "teamtui", "text": "[bold]hello[/] \x1b[31m"})
        await until(pilot, lambda: len(table.ordered_rows) == 5, "five messages shown")
        assert table.border_subtitle == ""
        rows = cells(table)
        assert any("alice → team-lead | idle | unread | idle (available) · result: BASH-alice done" in r for r in rows)
        assert any("bob → team-lead | shutdown | unread | shutdown approved" in r for r in rows)
        assert any("system → team-lead | terminated | unread | bob has shut down." in r for r in rows)
        assert any("team-lead → alice | assign | unread | assigned #1 probe task one" in r for r in rows)
        assert any("[bold]hello[/]" in r for r in rows)  # markup is data
        assert not any("{" in r for r in rows)  # nothing shown as raw JSON

        # alice's Claude Code takes both entries out of her inbox: they are delivered, not lost.
        path = claude_home / "teams" / TEAM / "inboxes" / "alice.json"
        tmp = path.with_name("alice.json.tmp." + uuid.uuid4().hex[:8])
        tmp.write_text("[]")
        os.replace(tmp, path)
        await until(pilot, lambda: sum("| delivered |" in r for r in cells(table)) == 2, "two entries delivered")
        rows = cells(table)
        assert len(rows) == 5
        assert all("| delivered |" in r for r in rows if "→ alice" in r)
        assert all("| unread |" in r for r in rows if "→ team-lead" in r)
        # Drawn in full: the State column was sized for "unread" and must widen for "delivered".
        await until(pilot, lambda: table.columns[ColumnKey("state")].width >= len("delivered"), "State widened")


async def test_a_long_message_leaves_each_row_s_state_on_screen(claude_home, tmp_path):
    """The read receipt is what a person looks for: a message wider than the panel must not push
    the State column out of sight (the text is cut at the panel's edge instead)."""
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        table = app.dashboard.query_one(MessageTraffic)
        write_entry(claude_home, "alice", {"from": "teamtui", "text": "LONG-" + "word " * 80})
        await until(pilot, lambda: len(table.ordered_rows) == 1, "the message shown")

        def on_screen() -> list[str]:
            return [table.render_line(y).text for y in range(table.size.height)]

        # Its columns are measured when the table is next idle (DataTable's way), then drawn again.
        await until(
            pilot, lambda: any("LONG-" in line and "unread" in line for line in on_screen()), "its state in view"
        )
