"""Members of a Claude Code 2.1.328 team: backend (tmux pane or in-process), working / idle from
`isActive`, and the lead alive or gone from `leadProcess`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
        rows = cells(app.query_one(TeamPanel))
        assert [r.split(" | ")[1:3] for r in rows] == [["alice", "idle·tmux"], ["bob", "idle·tmux"]]
        edit_config(claude_home, lambda cfg: cfg["members"][1].__setitem__("isActive", True))
        await until(pilot, lambda: "working·tmux" in cells(app.query_one(TeamPanel))[0], "alice working")


async def test_in_process_teammates(tmp_path):
    import shutil

    from tests.tui.test_claude_ended import FIXTURE

    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("projects"))
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        rows = [r.split(" | ")[1:3] for r in cells(app.query_one(TeamPanel))]
        assert [name for name, _ in rows] == ["alice", "bob"] and all(s.endswith("·proc") for _, s in rows)
