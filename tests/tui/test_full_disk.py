"""`m` and `b` on a nearly full disk (a real tiny tmpfs): the dashboard says the message was not
sent, never "Message written", and the inbox is as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Input

from teamtui.tui.app import TeamTUI
from tests.conftest import EXAMPLES
from tests.tinydisk import fill, snapshot, tiny_disk

from .conftest import SIZE

PASTE = "p" * 9_000  # the paste


def notes(app: TeamTUI) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _write(app: TeamTUI, pilot, key: str) -> None:
    await pilot.press(key)
    await pilot.pause()
    app.screen.query_one(Input).insert_text_at_cursor(PASTE)  # what a paste does
    await pilot.press("enter")
    await pilot.pause()


async def test_m_and_b_on_a_full_disk_say_not_sent(tmp_path: Path, config_file: Path) -> None:
    with tiny_disk(tmp_path / "disk", size_kb=512) as disk:
        root = disk / "native"
        shutil.copytree(EXAMPLES / "native", root)
        app = TeamTUI(root, None, None, config_path=config_file, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.3)
            fill(disk, 4096)
            before = snapshot(root)
            await _write(app, pilot, "m")
            await _write(app, pilot, "b")
            said = notes(app)
            assert not any("written" in n for n in said), said
            assert any(n.startswith("Message not sent: ") and "No space left on device" in n for n in said), said
            assert any(n.startswith("Broadcast not sent: ") and "No space left on device" in n for n in said), said
            assert snapshot(root) == before
