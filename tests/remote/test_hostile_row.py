"""A hostile peer's row in the real control room (through a fake `ssh` writing the stream): every
cell is made safe in the one place (bidi controls too, not just escapes), and one long field cannot
push the other columns off a 180-column screen."""

from __future__ import annotations

import json
from pathlib import Path

from teamtui.protocol import stream as wire
from teamtui.protocol.settings import HostSettings
from teamtui.protocol.text import UNSAFE_TERMINAL
from teamtui.session.fleet import Fleet
from teamtui.session.remote import RemoteHost
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.fleet import COLUMNS, FleetTable

from .conftest import empty_local_fleet
from tests.tui.conftest import until
from .test_untrusted import HELLO, fake_ssh, header

SIZE = (180, 40)
BIDI = "\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u202a\u202b\u202c\u202d"
# A 150-character name and problem, and every short field of the row carrying the bidi controls.
LONG_NAME = "n" * 70 + BIDI
LONG_PROBLEM = "p" * 70 + BIDI + "\x1b[2J"


def hostile_row() -> dict:
    line = header()
    line["row"].update(
        team=LONG_NAME,
        label="kind" + BIDI,
        lead="alive" + BIDI,
        problem=LONG_PROBLEM,
        run_status="running" + BIDI,
        cwd="/srv/" + BIDI,
    )
    return line


def cells(table: FleetTable) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row(row.key)] for row in table.ordered_rows]


async def test_a_hostile_remote_row_is_inert_and_keeps_every_column_on_screen(tmp_path: Path) -> None:
    body = "\n".join(
        [
            HELLO,
            f"out.write({json.dumps(hostile_row())!r}.encode() + b'\\n')",
            'out.write(b\'{"type": "ready", "teams": 1}\\n\')',
            "out.flush()",
            'while True:\n    out.write(b\'{"type": "heartbeat"}\\n\'); out.flush(); time.sleep(0.2)',
        ]
    )
    host = RemoteHost(HostSettings("box", "me@box"), ssh=fake_ssh(tmp_path, body), stall=5.0)
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), host]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(FleetTable)
        await until(pilot, lambda: any(LONG_NAME[:20] in c[0] for c in cells(table)), "the hostile row")
        for row in cells(table):
            for column, cell in zip(COLUMNS, row, strict=True):
                assert not UNSAFE_TERMINAL.search(cell), (column, cell)
        # Every column's header, and the row's Lead, Members, Tasks and Where, are in what the table draws.
        shown = "\n".join(table.render_line(y).text for y in range(table.size.height))
        header_line = shown.splitlines()[0]
        for column in COLUMNS:
            assert column in header_line, (column, header_line)
        row = next(r for r in cells(table) if LONG_NAME[:20] in r[0])
        for column in ("Lead", "Tasks", "Where"):
            assert row[COLUMNS.index(column)][:5] in shown, (column, row[COLUMNS.index(column)], shown)
        assert "1 working" in shown or "1w 0i" in shown, shown  # Members, whole or in its short form
        assert wire.name("a\u202eb") == "a\ufffdb"  # the wire's own check drops them too
