"""Members of a Claude Code 2.1.328 team: backend (tmux pane or in-process), working / idle from
`isActive`, and the lead alive or gone from `leadProcess`; with the transcript columns the backend
is a mark beside the name, explained in the panel's title."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from teamtui.tui.app import TeamTUI
from teamtui.tui.screenshots import NARROW_SIZE
from teamtui.tui.widgets.team import TeamPanel
from tests.tui.conftest import SIZE, cells, until
from tests.tui.test_claude_shutdown import TEAM, claude_home, edit_config, make  # noqa: F401 - fixture

__all__ = ["claude_home"]


def my_start() -> str:
    return Path("/proc/self/stat").read_text().rpartition(")")[2].split()[19]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
async def test_backend_activity_and_lead_alive_then_gone(claude_home, tmp_path):
    def live_lead(cfg):
        cfg["leadProcess"].update(pid=os.getpid(), procStart=my_start(), pidSpace=os.readlink("/proc/self/ns/pid"))

    edit_config(claude_home, live_lead)
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        rows = cells(app.dashboard.query_one(TeamPanel))
        assert [r.split(" | ")[1:3] for r in rows] == [["alice", "idle·tmux"], ["bob", "idle·tmux"]]
        edit_config(claude_home, lambda cfg: cfg["members"][1].__setitem__("isActive", True))
        await until(pilot, lambda: "working·tmux" in cells(app.dashboard.query_one(TeamPanel))[0], "alice working")


async def test_in_process_teammates(tmp_path):
    import shutil

    from tests.tui.test_claude_ended import FIXTURE

    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("projects"))
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        rows = [r.split(" | ")[1:3] for r in cells(app.dashboard.query_one(TeamPanel))]
        assert [name for name, _ in rows] == ["alice", "bob"] and all(s.endswith("·proc") for _, s in rows)


def panel_lines(panel) -> list[str]:
    """The team panel as drawn, border and header included."""
    from textual.geometry import Region

    return [s.text for s in panel.render_lines(Region(0, 0, panel.outer_size.width, panel.outer_size.height))]


@pytest.mark.parametrize("size", [(160, 50), NARROW_SIZE], ids=["160-columns", "narrow-88"])
@pytest.mark.parametrize(
    ("example", "team", "mark", "legend"),
    [
        ("tmux-running", "session-421dba11", "▣", "▣ tmux pane"),
        ("inprocess-running", "session-8dd2dc96", "↳", "↳ in-process"),
    ],
    ids=["tmux", "in-process"],
)
async def test_backend_mark_beside_the_name_with_transcript_columns(tmp_path, size, example, team, mark, legend):
    import shutil

    from tests.tui.test_claude_picker import EXAMPLES

    root = tmp_path / "claude"
    shutil.copytree(EXAMPLES / example, root)
    app = TeamTUI.watching(root, team, None, config_path=tmp_path / "cfg" / "config.toml", cursor_blink=False)
    async with app.run_test(size=size) as pilot:
        panel = app.dashboard.query_one(TeamPanel)
        await until(pilot, lambda: panel.row_count == 3 and "Doing" in panel_lines(panel)[1], "the transcript columns")

        def names() -> set[str]:
            return {line.split()[2] for line in panel_lines(panel)[2:-1] if len(line.split()) > 2}

        # The room's look may add a strip of what needs you above the panel: every member stays in view.
        await until(pilot, lambda: names() == {"team-lead", "alice", "bob"}, "every member in view")
        lines = panel_lines(panel)
        # Every header whole, the panel's right border where it belongs: nothing cut or pushed out.
        assert all(label in lines[1] for label in ("Teammate", "Task", "Doing", "Tok", "Cost", "Ctx", "✉")), lines[1]
        assert all(line.rstrip()[-1] in "│╮╯" for line in lines), lines
        assert lines[0].startswith(f"╭─ Team · {legend} ─")
        rows = {line.split()[2]: line for line in lines[2:-1]}
        assert set(rows) == {"team-lead", "alice", "bob"}
        # Each teammate's mark stands at the end of its name cell, in one column; the lead has none.
        for name in ("alice", "bob"):
            assert rows[name].split()[3] == mark, rows[name]
        assert rows["alice"].index(mark) == rows["bob"].index(mark)
        assert mark not in rows["team-lead"]
