"""Every cell of every table goes through the one safe-text path: text from the team's files (a
failed task's reason, a held task's reason, a touched file and who touched it, a message, a sender)
never reaches the screen as an escape, a C1 control or a bidi control, and a long one is cut to its
column."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.text import UNSAFE_TERMINAL
from teamtui.tui.app import TeamTUI

from .conftest import SIZE, until

EVIL = "\u202eevil\u2066 \x1b[2J\x9b31m [bold]x[/] " + "w" * 200


def plant(root: Path) -> None:
    store = NativeTeam(root, "refactor-auth")
    sidecars = root / ".tasks" / ".teamtui"
    (sidecars / "5.json").write_text(json.dumps({"metadata": {"failed": EVIL}}))  # failed for good, and why
    (sidecars / "4.json").write_text(json.dumps({"metadata": {"blocked_reason": EVIL}}))  # held after failing
    (sidecars / "3.json").write_text(json.dumps({"files": [EVIL]}))  # a file hunter says it is touching
    (root / ".teams" / "refactor-auth" / "touching.json").write_text(
        json.dumps({"touches": [{"path": EVIL, "by": "hunter", "task": "2", "at": 1763712000.0}]})
    )
    store.send("hunter", EVIL, "lead", type="message" + "\u202e")  # a protocol type from a peer
    with open(root / ".teams" / "refactor-auth" / "lead_inbox.jsonl", "a") as fh:
        fh.write(json.dumps({"type": "message", "sender": EVIL, "content": EVIL, "timestamp": 1763712099.0}) + "\n")


def every_cell(app: TeamTUI) -> list[tuple[str, str]]:
    out = []
    for table in app.screen.query(DataTable):
        for row in table.ordered_rows:
            for cell in table.get_row(row.key):
                out.append((table.id or type(table).__name__, str(getattr(cell, "plain", cell))))
    return out


async def test_no_table_cell_carries_an_escape_or_a_bidi_control(frozen_native: Path, config_file: Path) -> None:
    plant(frozen_native)
    app = TeamTUI.watching(frozen_native, config_path=config_file, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any("evil" in c for _, c in every_cell(app)), "the planted text shown")
        await pilot.pause(0.3)
        shown = every_cell(app)
        # A task's reason goes under its subject, on a line of its own: each line is checked.
        bad = [(table, cell) for table, cell in shown if any(UNSAFE_TERMINAL.search(x) for x in cell.split("\n"))]
        assert not bad, bad
        assert sum("evil" in c for _, c in shown) >= 4, shown  # the reasons, the touch, the message are there
        # Every column but a table's last (the message, the detail: nothing after them to push) is bounded.
        for table in app.screen.query(DataTable):
            for column in list(table.columns.values())[:-1]:
                assert column.get_render_width(table) <= 50, (table.id, str(column.label))
