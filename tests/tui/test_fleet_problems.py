"""Every problem is said: with several bad roots the room's header counts them and the lines under
it show the first few (the rest counted), and `teamtui doctor` lists every one."""

from __future__ import annotations

import json
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.problems import ProblemList

from .conftest import until

SIZE = (160, 40)


def bad_roots(tmp_path: Path) -> tuple[Path, list[Path]]:
    good = tmp_path / "good"
    NativeTeam.create_team(good, "alpha").add_member("ann")
    NativeTeam.create_team(good, "beta").add_member("bo")  # two teams: the room stays on its overview
    bad = []
    for i in range(3):
        f = tmp_path / f"file{i}"
        f.write_text("not a folder\n")
        bad += [f, tmp_path / f"missing{i}"]
    return good, bad


async def test_several_bad_roots_are_each_said(tmp_path: Path) -> None:
    good, bad = bad_roots(tmp_path)
    fleet = LocalSource(
        load_settings(tmp_path / "none.toml"),
        roots=[bad[0], good, *bad[1:]],
        cwd=tmp_path,
        claude_root=tmp_path / "claude",
        registry=tmp_path / "runs",
        journal=tmp_path / "journal",
    )
    fleet.discover()
    app = TeamTUI(Fleet([fleet]), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)
    async with app.run_test(size=SIZE) as pilot:
        header = app.screen.query_one("#fleet-header")
        await until(pilot, lambda: "6 problems" in str(header.render()), "the count in the header")
        lines = app.screen.query_one(ProblemList)
        assert lines.display and len(lines.problems) == 6
        drawn = str(lines.render())
        assert str(bad[0]) in drawn and str(bad[1]) in drawn  # the first few, in full
        assert "… and 3 more (teamtui doctor lists them all)" in drawn


def test_doctor_lists_every_problem(tmp_path: Path, cli) -> None:
    good, bad = bad_roots(tmp_path)
    code, out, _err = cli("doctor", str(good), *map(str, bad))
    assert code == 1
    assert "control room: 6 problems" in out
    for root in bad:
        assert f"{root}: not a folder" in out
    code, out, _err = cli("doctor", str(good), *map(str, bad), "--json")
    assert code == 1 and len(json.loads(out)["problems"]) == 6
