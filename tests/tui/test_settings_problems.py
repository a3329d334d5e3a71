"""A config.toml with a mistake, in the control room: the problem is a line of the room (and a
toast), naming the key, the file and what was meant; the rest of the file applies."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.fleet import FleetScreen

from .conftest import until


async def test_the_room_says_what_is_wrong_with_the_config_file_and_applies_the_rest(tmp_path: Path) -> None:
    for name in ("api", "web"):
        (tmp_path / name).mkdir()
        NativeTeam(tmp_path / name, f"{name}-team").create(description="")
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir()
    config.write_text('theme = "textual-light"\nnotify_command = ["notify-send"]\nfleet_keep_hours = -1\n')
    settings = load_settings(config)
    fleet = LocalSource(settings, roots=[tmp_path / "api", tmp_path / "web"], cwd=tmp_path, claude_root=tmp_path)
    fleet.discover()
    app = TeamTUI(Fleet([fleet]), config_path=config, cursor_blink=False, sync_panes=False)
    async with app.run_test(size=(200, 30)) as pilot:
        assert isinstance(app.screen, FleetScreen)
        header, lines = app.screen.query_one("#fleet-header"), app.screen.query_one("#fleet-problems")
        said = f"{config}: notify_command is not a setting (did you mean [notify] command?); ignored"
        await until(pilot, lambda: said in str(lines.render()), "the problem line")
        assert "2 problems" in header.render().plain
        assert app.screen.problems == settings.problems and len(settings.problems) == 2
        toasts = [str(n.message) for n in app._notifications]
        assert said in toasts, "each problem is also a toast"
        assert app.theme == "textual-light", "the rest of the file applied"
