"""Reading at 120 columns: the tables' columns share their width by what they hold, the long text
giving way first, so headers, states and times are read whole (at 120×30 they once read `Activ`,
`2m ag`, `co`, `re`, `bl`, with room to spare in the task column); Messages cuts a message after a
whole word and, on a tall terminal, shows more than a few of them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.geometry import Region

from teamtui.protocol.native import NativeTeam
from teamtui.tui.screenshots import make_app
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.table import whole_words
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

from .conftest import until


def drawn(widget) -> list[str]:
    """A table as drawn: border, header and rows."""
    region = Region(0, 0, widget.outer_size.width, widget.outer_size.height)
    return [line.text for line in widget.render_lines(region)]


@pytest.mark.parametrize("size", [(120, 30), (140, 42), (160, 48)], ids=["120x30", "140x42", "160x48"])
async def test_headers_states_and_times_are_read_whole(frozen_native: Path, size: tuple[int, int]) -> None:
    app = make_app(frozen_native)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        team, board, messages = (drawn(app.dashboard.query_one(w)) for w in (TeamPanel, TaskBoard, MessageTraffic))
    header = team[1]
    assert all(label in header for label in ("Teammate", "Status", "Current task", "Active", "✉")), team
    assert all("45s ago" in row for row in team[2:5]), team
    assert all(label in board[1] for label in ("#", "Task", "Owner", "State")), board
    states = " ".join(board[2:])
    assert all(s in states for s in ("completed", "in progress", "ready", "blocked")), board
    assert all(label in messages[1] for label in ("Time", "From → To", "Kind", "State", "Message")), messages
    assert all(line.rstrip()[-1] in "│╮╯" for line in team + board + messages)  # nothing pushed out


async def test_the_long_text_gives_way_first(frozen_native: Path) -> None:
    app = make_app(frozen_native)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        board = app.dashboard.query_one(TaskBoard)
        widths = {str(k.value): c.width for k, c in board.columns.items()}
    # The state column holds "in progress" whole; the subject took what was left.
    assert widths["state"] == len("in progress") and widths["owner"] >= len("hunter")
    assert widths["subject"] < len("blocked by #4, missing dependency #9")


async def test_messages_show_whole_words_and_more_rows_when_tall(frozen_native: Path) -> None:
    store = NativeTeam(frozen_native, "refactor-auth")
    now = time.time()
    for i in range(12):  # one a minute, each longer than the column
        store.send(
            "hunter", f"note {i}: the integration suite is half written and flaky on tests/test_login.py", "lead"
        )
    app = make_app(frozen_native, now=now)
    async with app.run_test(size=(160, 48)) as pilot:
        table = app.dashboard.query_one(MessageTraffic)
        await until(pilot, lambda: table.row_count == 16, "every message listed")
        await pilot.pause()
        lines = drawn(table)
    shown = [line for line in lines[2:-1] if "note " in line]
    assert len(shown) >= 10, lines  # a tall terminal shows more than a few messages
    for line in shown:
        text = line.split("unread", 1)[1].strip(" │")
        assert text.endswith("…") and not text.endswith(" …"), text
        said = text.removesuffix("…")
        full = said.split(": ", 1)[0] + ": the integration suite is half written and flaky on tests/test_login.py"
        assert full.startswith(said) and full[len(said)] == " ", (said, full)  # cut where a word ends


def test_whole_words_cuts_after_a_word_or_within_one_too_long() -> None:
    from rich.text import Text

    assert (
        whole_words(Text("shutdown approved: clean · artifacts committed"), 30).plain == "shutdown approved: clean ·…"
    )
    assert whole_words(Text("short"), 30).plain == "short"
    assert whole_words(Text("supercalifragilistic"), 10).plain == "supercalifragilistic"  # cut by Rich, with …


def shown_in(text, width: int) -> str:
    from rich.console import Console

    console = Console(width=width)
    (line,) = console.render_lines(text, console.options.update_width(width), pad=False)
    return "".join(seg.text for seg in line)


def test_whole_words_cuts_within_a_long_word_rather_than_waste_the_room() -> None:
    from rich.text import Text

    message = Text("TOUCHING_FILE tests/test_login.py for #10")
    assert shown_in(whole_words(message, 30), 30) == "TOUCHING_FILE tests/test_logi…"  # not `TOUCHING_FILE…`
    assert shown_in(whole_words(message, 40), 40) == "TOUCHING_FILE tests/test_login.py for…"  # a word end near
    assert shown_in(whole_words(Text("supercalifragilistic"), 10), 10) == "supercali…"


async def test_a_broadcast_naming_a_long_path_fills_the_message_column(frozen_native: Path) -> None:
    store = NativeTeam(frozen_native, "refactor-auth")
    path = "src/features/authentication/providers/oauth/callback_handler_with_a_long_name.py"
    store.broadcast(f"TOUCHING_FILE {path} for #10", "hunter")
    app = make_app(frozen_native, now=time.time())
    async with app.run_test(size=(160, 48)) as pilot:
        table = app.dashboard.query_one(MessageTraffic)
        await until(pilot, lambda: any("TOUCHING_FILE" in line for line in drawn(table)), "the broadcast listed")
        lines = [line for line in drawn(table) if "TOUCHING_FILE" in line]  # one row per teammate it reached
    for line in lines:
        text = line[line.index("TOUCHING_FILE") :].rstrip(" │")
        assert text.startswith("TOUCHING_FILE src/features/") and text.endswith("…"), line  # cut at the width
        assert f"TOUCHING_FILE {path}".startswith(text.removesuffix("…")), text
