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

from .conftest import cells, until


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
        assert text.startswith("TOUCHING_FILE src/") and text.endswith("…"), line  # cut at the width
        assert f"TOUCHING_FILE {path}".startswith(text.removesuffix("…")), text


# ---------------------------------------------------------------- at common widths: 80, 100, 120, 160, 200


@pytest.fixture
def demo_like(tmp_path: Path) -> Path:
    """The demo team's teammates ("ada (backend-dev)", …) and tasks on disk, three of them working."""
    from teamtui.demo.team import demo_team

    root = tmp_path / "demo"
    spec = demo_team(root)
    store = NativeTeam.create_team(root, spec.team.name, spec.team.description)
    for t in spec.tasks:
        store.create_task(t.subject, description=t.description, blocked_by=[str(b) for b in t.blocked_by])
    for i, m in enumerate(spec.teammates):
        store.add_member(m.name, agent_type=m.agent_type, color=m.color, status="working" if i < 3 else "idle")
    for task, who in (("1", "ada"), ("6", "otto"), ("12", "hunter")):
        store.claim_task(task, who)
    return root


def drawn_cells(table) -> list[tuple[str, str, str]]:
    """(column, what the cell holds, what is drawn of it) for each line of each row in view."""
    lines, pad = drawn(table), table.cell_padding
    widths = [c.get_render_width(table) for c in table.ordered_columns]
    out, top = [], 1 + table.header_height  # under the border and the header
    for row in table.ordered_rows:
        for k in range(row.height):
            y = top + k
            if y >= len(lines) - 1:  # below the bottom border: not in view
                return out
            x = 1
            for column, width, cell in zip(table.ordered_columns, widths, table.get_row(row.key), strict=True):
                shown = lines[y][x + pad : x + width - pad]
                # A cell with a shorter form for a narrow column (Fits): the form drawn, when one is.
                forms = [str(getattr(f, "plain", f)).split("\n") for f in getattr(cell, "forms", [cell])]
                held = [f[k] if k < len(f) else "" for f in forms]
                out.append((str(column.label), next((h for h in held if h == shown.strip()), held[0]), shown))
                x += width
        top += row.height
    return out


def cut_without_ellipsis(table) -> list[tuple[str, str, str]]:
    """The cells drawn neither whole nor with an ellipsis where they were cut ("workin")."""

    def words(s: str) -> str:
        return " ".join(s.split())  # a mark at the cell's end (EndMark) stands apart from the name

    return [
        (c, held, shown) for c, held, shown in drawn_cells(table) if words(held) != words(shown) and "…" not in shown
    ]


async def five_teammates(app, pilot) -> TeamPanel:
    """The team panel once it shows the demo team's five teammates."""
    team = app.dashboard.query_one(TeamPanel)
    await until(pilot, lambda: team.row_count == 5, "the demo team's five teammates")
    await pilot.pause()
    return team


async def test_at_100_columns_nothing_is_cut_without_an_ellipsis_and_states_are_whole(demo_like: Path) -> None:
    app = make_app(demo_like)
    async with app.run_test(size=(100, 30)) as pilot:
        team = await five_teammates(app, pilot)
        tables = [app.dashboard.query_one(w) for w in (TeamPanel, TaskBoard, MessageTraffic)]
        assert [cut_without_ellipsis(t) for t in tables] == [[], [], []]
        statuses = [shown.strip() for column, _held, shown in drawn_cells(team) if column == "Status"]
        assert statuses == ["working", "working", "working", "idle", "idle"], statuses


async def test_at_200_columns_the_left_side_grows_and_the_current_task_reads_whole(demo_like: Path) -> None:
    app = make_app(demo_like)
    async with app.run_test(size=(200, 40)) as pilot:
        team = await five_teammates(app, pilot)
        assert app.dashboard.query_one("#left").region.width > 72
        tasks = [shown.strip() for column, _held, shown in drawn_cells(team) if column == "Current task"]
    assert "#12 Security review of the login flow" in tasks, tasks


async def room_at(pilot, app, names: list[str]):
    """The room's table once every team, `names` among them, has its row, and the needs are listed."""
    from teamtui.tui.screenshots import fleet_shown
    from teamtui.tui.widgets.fleet import FleetTable

    await fleet_shown(pilot)
    table = app.screen.query_one(FleetTable)
    await until(pilot, lambda: all(any(n in c for c in cells(table)) for n in names), f"the rows of {names}")
    await pilot.pause()
    return table


async def test_at_80_columns_the_room_tells_two_session_teams_apart(tmp_path: Path) -> None:
    from teamtui.tui.screenshots import make_fleet_app
    from teamtui.tui.widgets.fleet import FleetNeeds

    app = make_fleet_app(tmp_path / "fleet")
    names = ["session-1a2b3c4d", "session-5e6f7a8b", "nightly-build-session-1a2b3c4d", "nightly-build-session-5e6f7a8b"]
    async with app.run_test(size=(80, 24)) as pilot:
        for name in names:
            NativeTeam(tmp_path / "fleet" / "proj" / "native", name).create()
        table = await room_at(pilot, app, names)
        shown = {column: [] for column in ("Team", "Members")}
        for column, _held, said in drawn_cells(table):
            if column in shown:
                shown[column].append(said.strip())
        needs = app.screen.query_one(FleetNeeds)
        assert needs.outer_size.height == len(needs.needs) + 2  # its items and its border, no empty rows
        assert cut_without_ellipsis(table) == []
    teams = shown["Team"]
    assert len(teams) == 6 and len(set(teams)) == 6, teams  # each tellable from the others
    assert "session-1a2b3c4d" in teams and "session-5e6f7a8b" in teams  # a 16-character name whole
    assert any(t.endswith("…1a2b3c4d") for t in teams) and any(t.endswith("…5e6f7a8b") for t in teams), teams
    assert "0w 1i 2g" in shown["Members"] and not any("working…" in m for m in shown["Members"]), shown["Members"]


async def test_at_100_columns_the_room_shows_the_files_column(fleet_shot) -> None:
    from teamtui.tui.screenshots import make_fleet_app

    app = make_fleet_app()
    async with app.run_test(size=(100, 24)) as pilot:
        table = await room_at(pilot, app, ["refactor-auth", "session-421dba11"])
        assert "Files" in table.shown and "Files" in drawn(table)[1]
        assert cut_without_ellipsis(table) == []
