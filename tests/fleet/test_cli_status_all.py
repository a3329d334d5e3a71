"""`teamtui status --all [--json]` as a person and a script run it: a subprocess with the machine's env."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from .conftest import DEAD_TEAM, LIVE_TEAM, NATIVE_TEAM, OTHER_TEAM, Machine, date_tree

HOUR = 3600.0


def _teamtui(machine: Machine, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamtui", *argv],
        env=machine.env(),
        cwd=cwd or machine.project,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _ended_journal(machine: Machine, name: str, ended: float) -> None:
    machine.journal.mkdir(parents=True, exist_ok=True)
    records = [
        {
            "ts": ended - 60,
            "kind": "team",
            "team": name,
            "layout": "claude",
            "root": str(machine.claude),
            "lead": "team-lead",
            "members": [{"name": "alice"}],
        },
        {"ts": ended, "kind": "team_gone", "detail": "folder gone"},
    ]
    (machine.journal / f"{name}.0123456789.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_status_all_json_lists_every_team_in_the_overviews_order(machine: Machine) -> None:
    now = time.time()
    date_tree(machine.project / ".teams" / NATIVE_TEAM, now - 30)
    date_tree(machine.other / ".teams" / OTHER_TEAM, now - 200)
    date_tree(machine.claude / "teams" / LIVE_TEAM, now - 100)
    date_tree(machine.claude / "projects", now - 100)  # its transcripts: their last write is activity too
    date_tree(machine.claude / "teams" / DEAD_TEAM, now - HOUR)  # its lead ended: listed with the ended teams
    _ended_journal(machine, "session-ended", now - 2 * HOUR)
    _ended_journal(machine, "session-long-gone", now - 30 * HOUR)
    (machine.claude / "teams" / "half").mkdir()
    date_tree(machine.claude / "teams" / "half", now - 150)  # a folder that does not read is dated by its mtime
    proc = _teamtui(machine, "status", "--all", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert isinstance(rows, list)
    # api-team's hunter holds #2 and was silent 200 s (past the health timeout): it needs you, first, as in the room.
    assert [r["folder"] for r in rows] == [OTHER_TEAM, NATIVE_TEAM, LIVE_TEAM, "half", DEAD_TEAM, "session-ended"]
    by = {r["folder"]: r for r in rows}
    assert (by[OTHER_TEAM]["needs_you"], by[NATIVE_TEAM]["needs_you"]) == (1, 0)
    assert by[LIVE_TEAM] | {"last_activity": None} == {
        "team": LIVE_TEAM,
        "folder": LIVE_TEAM,
        "root": str(machine.claude),
        "layout": "claude",
        "source": "claude",
        "label": "Claude Code",
        "lead": "alive",
        "ended": False,
        "ended_at": None,
        "members": {"working": 0, "idle": 2, "gone": 0, "unknown": 0},
        "tasks": {"done": 2, "total": 2},  # the lead's assignments (alice's and bob's): no task list
        "needs_you": 0,
        "tokens": 200,
        "cost": by[LIVE_TEAM]["cost"],  # genai-prices' figure: tests/tui/test_cost_screens.py holds it to the library
        "files": 0,  # no edit in its transcripts
        "budget": None,
        "last_activity": None,
        "cwd": "/src/app",
        "pid": None,
        "errors": 0,
        "problem": None,
        "run_status": None,
    }
    assert by[LIVE_TEAM]["cost"]["usd"] and not by[LIVE_TEAM]["cost"]["unknown_models"]  # priced, by default
    assert by[NATIVE_TEAM]["cwd"] == str(machine.project) and by[OTHER_TEAM]["root"] == str(machine.other)
    assert (by[DEAD_TEAM]["lead"], by[DEAD_TEAM]["ended"]) == ("ended", True)
    assert (by["session-ended"]["ended"], by["session-ended"]["members"]["gone"]) == (True, 1)
    assert by["half"]["problem"] == "half-written: no config.json yet"
    assert proc.stderr == ""


def test_status_all_prints_a_table_for_people(machine: Machine, tmp_path: Path) -> None:
    (machine.claude / "teams" / "\x1b]0;pwned\x07").mkdir()
    machine.write_config('roots = ["~/src/api", "relative/root"]\nfleet_keep_hours = 0\n')
    proc = _teamtui(machine, "status", "--all", str(tmp_path / "nowhere"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == [
        "TEAM",
        "KIND",
        "LEAD",
        "WORK",
        "IDLE",
        "GONE",
        "?",
        "TASKS",
        "NEEDS",
        "TOKENS",
        "COST",
        "LAST",
        "WHERE",
    ]
    assert any(line.split()[:3] == [LIVE_TEAM, "Claude", "Code"] and "alive" in line for line in lines)
    assert any(line.startswith("x ") and DEAD_TEAM in line and "ended" in line for line in lines)
    assert "    ! unsafe folder name: not read" in lines
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout  # a hostile name is shown inert
    # Bad settings and a root that is not there: said on stderr, the rest still listed.
    assert "fleet_keep_hours must be a positive number, got 0" in proc.stderr
    assert "roots #2 must be an absolute folder or start with ~, got 'relative/root'; ignored" in proc.stderr
    assert f"{tmp_path / 'nowhere'}: not a folder" in proc.stderr


def test_status_all_with_no_team_anywhere(machine: Machine, tmp_path: Path) -> None:
    env_claude = tmp_path / "empty-claude"
    env_claude.mkdir()
    machine.claude = env_claude
    machine.write_config("")
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _teamtui(machine, "status", "--all", cwd=empty)
    assert (proc.returncode, proc.stdout.startswith("No teams found")) == (0, True), proc.stderr
    assert json.loads(_teamtui(machine, "status", "--all", "--json", cwd=empty).stdout) == []


def test_roots_need_all(machine: Machine) -> None:
    proc = _teamtui(machine, "status", str(machine.other))
    assert proc.returncode == 2 and "ROOT goes with --all" in proc.stderr
    assert _teamtui(machine, "status").returncode == 0  # the one team under the cwd, as before


def test_status_all_transcripts_reads_the_tokens(machine: Machine) -> None:
    rows = json.loads(_teamtui(machine, "status", "--all", "--json", "--transcripts").stdout)
    tokens = {r["folder"]: r["tokens"] for r in rows}
    assert tokens[LIVE_TEAM] and tokens[DEAD_TEAM] and tokens[NATIVE_TEAM] is None


IMPORTS = """
import json, os, sys
from teamtui.cli import main
code = main(sys.argv[1:])
json.dump({"code": code, "modules": sorted(sys.modules)}, open(os.environ["IMPORTS_OUT"], "w"))
"""


def _imports(machine: Machine, tmp_path: Path, *argv: str) -> list[str]:
    out = tmp_path / "imports.json"
    env = {**machine.env(), "IMPORTS_OUT": str(out)}
    proc = subprocess.run(
        [sys.executable, "-c", IMPORTS, *argv], env=env, cwd=machine.project, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0
    return result["modules"]


def test_plain_status_loads_none_of_the_fleet_and_all_loads_no_ui(machine: Machine, tmp_path: Path) -> None:
    plain = _imports(machine, tmp_path, "status")
    assert [m for m in plain if m.startswith(("teamtui.protocol.fleet", "teamtui.cli.fleet_status", "tomllib"))] == []
    every = _imports(machine, tmp_path, "status", "--all")
    assert "teamtui.protocol.fleet.discover" in every
    assert [m for m in every if m.startswith(("textual", "rich", "teamtui.tui", "teamtui.runtime", "watchfiles"))] == []
