"""One truth: for a Claude Code team with the lead's assignments and a permission request waiting,
the room, `status`, `status --json`, `status --all [--json]` and `tasks` say the same tasks, needs
and tokens (they were 2/2, 1, 144 in the room and 0/0, -, - elsewhere)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from teamtui.tui.app import TeamTUI
from teamtui.tui.screenshots import CLAUDE_CODE_NOW, freeze_claude_code
from teamtui.tui.widgets.fleet import FleetTable
from tests.tui.conftest import SIZE, cells, until

TEAM = "session-421dba11"


def teamtui(root: Path, *args: str) -> str:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "teamtui", *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_room_status_and_tasks_agree(tmp_path: Path) -> None:
    root = freeze_claude_code(tmp_path / "cc")
    rows = json.loads(teamtui(root, "status", "--all", "--json"))
    (row,) = [r for r in rows if r["team"] == TEAM]
    one = json.loads(teamtui(root, "--root", str(root), "--team", TEAM, "status", "--json"))
    text = teamtui(root, "--root", str(root), "--team", TEAM, "status")
    tasks = json.loads(teamtui(root, "--root", str(root), "--team", TEAM, "tasks", "--json"))
    table = teamtui(root, "status", "--all")

    done, total = row["tasks"]["done"], row["tasks"]["total"]
    assert total > 0 and row["needs_you"] == 1 and row["tokens"]  # the assignments, alice's request, the usage
    assert (one["tasks"]["done"], one["tasks"]["total"], one["tokens_total"]) == (done, total, row["tokens"])
    assert (tasks["done"], tasks["total"]) == (done, total)
    assert f"Tasks: {done}/{total} done" in text and "Needs you: 1" in text and f"Tokens: {row['tokens']:,}" in text
    line = next(li for li in table.splitlines() if TEAM in li)
    assert f"{done}/{total}" in line and " 1 " in line

    app = TeamTUI.watching(root, config_path=tmp_path / "none.toml", clock=lambda: CLAUDE_CODE_NOW, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: app.state is not None and app.state.transcripts.ready, "the team and its transcripts"
        )
        table = app.fleet.overview.query_one(FleetTable)
        await until(
            pilot,
            lambda: any(
                (r["Tasks"], r["Needs"]) == (f"{done}/{total}", "1")
                for r in (dict(zip(table.shown, line.split(" | "), strict=True)) for line in cells(table))
            ),
            f"the room's row: {cells(table)}",
        )


async def test_a_gone_teammate_counts_in_status_all_as_in_the_room_and_requests(
    native_root: Path, tmp_path: Path, monkeypatch, cli
) -> None:
    """hunter holds #2 and did nothing for an hour: the room lists it under Needs you and `requests`
    lists it; `status --all` said `-` (it counted the transcripts' needs alone) and now says 1."""
    from teamtui.protocol.native import NativeTeam
    from tests.tui.test_answering import _silent

    monkeypatch.chdir(native_root)  # status --all and requests look at the current folder's native teams
    _silent(NativeTeam(native_root, "refactor-auth"), "hunter")
    code, out, err = cli("requests", "--json")
    assert code == 0, err
    asked = [i["id"] for i in json.loads(out)["requests"] if i["team"] == "refactor-auth"]
    assert asked == ["gone:refactor-auth:hunter"]
    code, out, err = cli("status", "--all", "--json")
    assert code == 0, err
    (row,) = [r for r in json.loads(out) if r["team"] == "refactor-auth"]
    assert row["needs_you"] == len(asked)
    code, out, err = cli("status", "--all")
    line = next(li for li in out.splitlines() if "refactor-auth" in li)
    assert line.startswith("!") and f" {len(asked)} " in line

    app = TeamTUI.watching(native_root, config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.fleet.overview.rows, "the room's row")
        table = app.fleet.overview.query_one(FleetTable)
        await until(
            pilot,
            lambda: (
                [dict(zip(table.shown, li.split(" | "), strict=True))["Needs"] for li in cells(table)]
                == [str(len(asked))]
            ),
            f"the room's row: {cells(table)}",
        )
