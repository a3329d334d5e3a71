"""One way in: what `teamtui ROOT`, `watch ROOT` and `--team NAME` open (issue 29's two mistakes
on the one route): a team asked for that is not there is said, with the teams that are; a root
named on the command line adds to the current folder's teams, as `watch --help` says."""

from __future__ import annotations

import os
from pathlib import Path

from teamtui.cli import build_parser
from teamtui.cli.app_cmds import _fleet, _local_roots
from teamtui.cli.common import Context
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.tui.app import TeamTUI

from .conftest import SIZE, until


def native_team(root: Path, name: str) -> None:
    NativeTeam.create_team(root, name).add_member("hunter")


async def test_a_team_asked_for_that_is_not_there_is_said_with_the_teams_that_are(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    native_team(root, "alpha")
    native_team(root, "beta")
    app = TeamTUI.watching(root, "nosuch", config_path=tmp_path / "none.toml", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen is app.fleet.overview and app.dashboard is None  # nothing opened in its place
        said = str(app.screen.query_one("#fleet-empty").render())
        assert "No team nosuch here yet" in said
        assert f"alpha ({root})" in said and f"beta ({root})" in said
        native_team(root, "nosuch")  # it appears: opened, as asked
        await until(pilot, lambda: app.state is not None and app.state.name == "nosuch", "the team asked for")


def test_watch_root_keeps_the_current_folders_teams(tmp_path: Path, monkeypatch) -> None:
    here, other = tmp_path / "here", tmp_path / "other"
    native_team(here, "in-cwd")
    native_team(other, "in-root")
    monkeypatch.chdir(here)
    args = build_parser().parse_args(["watch", str(other)])
    ctx = Context.from_args(args)
    fleet = _fleet(ctx, load_settings(tmp_path / "none.toml"), _local_roots(ctx), [], None, None)
    names = {s.name for s in fleet.sessions.values()}
    assert {"in-cwd", "in-root"} <= names
    assert os.path.realpath(here) in {k[1] for k in fleet.sessions}
