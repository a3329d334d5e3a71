"""Keys answer while the teammates' panes open: the real dashboard (Pilot) on a real tmux server
whose every split takes two seconds (a tmux hook), so opening four panes takes eight."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tmux_support import TmuxServer

from teamtui.tmux.panes import TmuxPanes
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.team import TeamPanel

pytestmark = pytest.mark.tmux

MATES = [f"mate{i}" for i in range(10)]


def _add_members(root: Path) -> None:
    path = root / ".teams" / "refactor-auth" / "config.json"
    config = json.loads(path.read_text())
    config["members"] += [{"name": n, "agent_id": f"{n}@refactor-auth", "status": "active"} for n in MATES]
    path.write_text(json.dumps(config, indent=2))


async def test_keys_answer_while_the_panes_open(tmux_server: TmuxServer, native_root: Path, tmp_path: Path) -> None:
    _add_members(native_root)  # 12 live teammates
    tmux_server.run("set-hook", "-g", "after-split-window", "run-shell 'sleep 2'")
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "refactor-auth", max_panes=4)
    app = TeamTUI.watching(
        native_root, "refactor-auth", None, panes=panes, config_path=tmp_path / "config.toml", cursor_blink=False
    )

    def opened() -> int:
        return len(tmux_server.marked("refactor-auth"))

    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "down")
        assert app.selected == "mate0"
        await pilot.press("slash", "h", "u")
        assert app.focused is not None and app.focused.id == "task-filter"
        assert app.dashboard.query_one("#task-filter").value == "hu"
        await pilot.press("escape", "escape")
        await pilot.press("t")  # hide the panes: answered now, done by the worker in turn
        assert opened() < 4, "the keys were answered after every pane had opened"
        team = app.dashboard.query_one(TeamPanel)
        for _ in range(200):  # the worker's first news comes before it opens anything
            if "8 without a pane" in str(team.border_subtitle):
                break
            await pilot.pause(0.05)
        assert "8 without a pane · enter opens one" in str(team.border_subtitle)
        await pilot.press("t")
    # Leaving the dashboard closes every pane, whatever the worker was still doing.
    assert tmux_server.marked() == {}
