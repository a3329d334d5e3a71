"""The log panels: drawn from TeamState's bounded buffer, wrapped at the panel width, following the end.

Real dashboard through Pilot on real team files; lines are added through `NativeTeam.log` (another
writer of the same files) or straight into the state's buffer where a test needs exact control.
"""

from __future__ import annotations

import json

from teamtui.protocol.models import LogEntry
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.logs import RENDERED_LINES_LEAST, RENDERED_LINES_PER_ROW, TeammateLog
from teamtui.tui.widgets.team import TeamPanel

from .conftest import SIZE, log_lines, until
from .test_live_view_guards import big_team, make


async def main_log(app: TeamTUI, pilot) -> TeammateLog:
    """The large log panel, once it shows the selected teammate's first line."""
    log = app.dashboard.query_one("#log-main", TeammateLog)
    await until(pilot, lambda: log_lines(log) != ["no log yet"], "the first line")
    return log


async def eighty_lines(app: TeamTUI, pilot) -> TeammateLog:
    """The large log panel once 80 lines ("first 0".."first 79") are shown in it: more than it has rows."""
    log = await main_log(app, pilot)
    add(app, log, [f"first {i}" for i in range(80)])
    await pilot.pause()
    return log


def add(app: TeamTUI, log: TeammateLog, texts: list[str]) -> None:
    """Lines into the selected teammate's buffer, then shown, as a feed batch would."""
    buffer = app.state.logs[app.selected]
    buffer.extend([LogEntry(app.selected, ts=1_763_712_000.0 + i, text=t) for i, t in enumerate(texts)])
    log.sync(buffer)


async def test_a_long_line_wraps_at_the_panel_width_and_again_on_resize(tmp_path):
    team = big_team(tmp_path / "root", 2, 3)
    app = make(tmp_path / "root", tmp_path)
    words = " ".join(f"word{i:03d}" for i in range(60))
    async with app.run_test(size=SIZE) as pilot:
        log = app.dashboard.query_one("#log-main", TeammateLog)
        team.log(app.selected, words)
        await until(pilot, lambda: any("word059" in row for row in log_lines(log)), "the long line on screen")
        rows = log_lines(log)[1:]
        width = log.scrollable_content_region.width
        assert len(rows) > 1 and all(len(r) <= width for r in rows)
        assert " ".join(r.strip() for r in rows).split(" ", 1)[1] == words, "every word, in order, after the time"
        await pilot.resize_terminal(100, 42)
        await until(pilot, lambda: log.scrollable_content_region.width < width, "the panel narrowed")
        narrow = log_lines(log)[1:]
        assert len(narrow) > len(rows), "rewrapped at the new width"
        assert all(len(r) <= log.scrollable_content_region.width for r in narrow)
        assert log.line_count == len(log_lines(log)) and log.virtual_size.height == log.line_count


async def test_follows_the_end_and_scrolled_up_keeps_the_reader_in_place(tmp_path):
    big_team(tmp_path / "root", 2, 3)
    app = make(tmp_path / "root", tmp_path, log_limit=100)
    async with app.run_test(size=SIZE) as pilot:
        log = await eighty_lines(app, pilot)
        assert log.scroll_y == log.max_scroll_y > 0 and "first 79" in log_lines(log)[-1], "at the end"
        log.scroll_to(y=40, animate=False, immediate=True)
        top = log_lines(log)[40]
        add(app, log, [f"second {i}" for i in range(30)])  # 100 kept: 11 older lines drop off the top
        await pilot.pause()
        assert log_lines(log)[int(log.scroll_y)] == top, "the row read stays on top"
        assert log.scroll_y < 40 and log.scroll_y != log.max_scroll_y
        log.scroll_end(animate=False, immediate=True)
        add(app, log, ["third"])
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y and "third" in log_lines(log)[-1], "back at the end: follows again"
        assert len(log_lines(log)) == 100


async def test_rendered_rows_stay_bounded_however_long_the_log(tmp_path):
    """A RichLog kept a rendered Strip per line (each with seven caches) and slowed every full collection."""
    big_team(tmp_path / "root", 2, 3)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        log = await main_log(app, pilot)
        add(app, log, [f"line {i}" for i in range(1000)])
        bound = max(RENDERED_LINES_LEAST, RENDERED_LINES_PER_ROW * log.size.height)
        for y in range(0, log.line_count, log.size.height // 2):  # read it all, top to bottom
            log.scroll_to(y=y, animate=False, immediate=True)
            await pilot.pause()
            assert len(log._rows) <= bound
        assert log_lines(log)[-1].endswith("line 999") and log.line_count == 1000


async def test_a_new_theme_redraws_the_log_in_its_colors(tmp_path):
    big_team(tmp_path / "root", 2, 3)
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        log = await main_log(app, pilot)
        before = log.render_line(0)
        app.theme = "teamtui-light"
        await pilot.pause()
        after = log.render_line(0)
        assert after.text == before.text
        assert [s.style for s in after] != [s.style for s in before]


async def test_a_teammate_s_first_lines_show_from_their_end(tmp_path):
    """The selected teammate had no log yet; its first batch of 100 lines arrives at once."""
    team = big_team(tmp_path / "root", 2, 3)
    team.add_member("newcomer", status="working")
    app = make(tmp_path / "root", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.dashboard.query_one(TeamPanel).row_count == 3, "the newcomer's row")
        app.dashboard.query_one(TeamPanel).move_cursor(row=2)
        log = app.dashboard.query_one("#log-main", TeammateLog)
        await until(
            pilot, lambda: app.selected == "newcomer" and log_lines(log) == ["no log yet"], "its empty log shown"
        )
        lines = "".join(
            json.dumps({"ts": 1_763_712_000.0 + i, "level": "info", "text": f"first {i}"}) + "\n" for i in range(100)
        )
        with open(team.logs_dir / "newcomer.jsonl", "a") as fh:
            fh.write(lines)
        await until(pilot, lambda: "first 99" in log_lines(log)[-1], "the batch shown")
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0, "at the newest line, following"


async def test_following_the_end_survives_the_panel_getting_shorter(tmp_path):
    """A strip appearing above (what needs you) made the panel two rows shorter: the view stayed two
    rows from the end, and every new line after it went unseen below."""
    big_team(tmp_path / "root", 2, 3)
    app = make(tmp_path / "root", tmp_path, log_limit=100)
    async with app.run_test(size=SIZE) as pilot:
        log = await eighty_lines(app, pilot)
        assert log.scroll_y == log.max_scroll_y > 0, "at the end"
        width, height = log.size.width, log.size.height
        await pilot.resize_terminal(SIZE[0], SIZE[1] - 4)  # same width, fewer rows
        await until(pilot, lambda: log.size.height < height, "the panel got shorter")
        assert log.size.width == width
        assert log.scroll_y == log.max_scroll_y and "first 79" in log_lines(log)[-1], "still at the end"
        add(app, log, ["after the resize"])
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y and "after the resize" in log_lines(log)[-1], "follows on"
