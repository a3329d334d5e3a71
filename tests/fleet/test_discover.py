"""Which teams the fleet lists: Claude Code's, the cwd's, config.toml's roots, the command line's,
the journal's ended ones, and folders that do not read, each with its problem."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from teamtui.protocol.fleet import FleetTeam, discover_fleet, fleet_watch_dirs
from teamtui.protocol.fleet.discover import team_key
from teamtui.protocol.settings import load_settings

from .conftest import DEAD_TEAM, EXAMPLES, LIVE_TEAM, NATIVE_TEAM, OTHER_TEAM, Machine, copy_tree

HOUR = 3600.0


def _by_name(teams: list[FleetTeam]) -> dict[str, FleetTeam]:
    return {t.name: t for t in teams}


def test_every_live_team_of_the_machine_is_listed_once(machine: Machine) -> None:
    fleet = discover_fleet()
    assert fleet.problems == []
    found = {(t.name, t.layout, t.source, t.root, t.ended, t.problem) for t in fleet.teams}
    assert found == {
        (LIVE_TEAM, "claude", "claude", machine.claude, False, None),
        (DEAD_TEAM, "claude", "claude", machine.claude, False, None),
        (NATIVE_TEAM, "native", "native", machine.project, False, None),  # the cwd's
        (OTHER_TEAM, "native", "native", machine.other, False, None),  # config.toml's ~/src/api
    }


def test_roots_given_on_the_command_line_are_looked_in_once(machine: Machine, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    copy_tree(EXAMPLES / "native", extra)
    fleet = discover_fleet([extra, extra, machine.other, "~/src/api"])
    roots = sorted(str(t.root) for t in fleet.teams if t.layout == "native")
    assert roots == sorted([str(machine.project), str(machine.other), str(extra)])


def test_a_root_that_is_no_folder_is_said_not_raised(machine: Machine, tmp_path: Path) -> None:
    fleet = discover_fleet([tmp_path / "nowhere"])
    assert fleet.problems == [f"{tmp_path / 'nowhere'}: not a folder (a root in config.toml or on the command line)"]
    assert len(fleet.teams) == 4


def test_a_claude_folder_given_as_a_root_is_the_same_teams(machine: Machine) -> None:
    fleet = discover_fleet([machine.claude])
    assert sorted(t.name for t in fleet.teams if t.layout == "claude") == sorted([DEAD_TEAM, LIVE_TEAM])


def test_the_cwd_is_looked_at_for_native_teams_only(machine: Machine, tmp_path: Path) -> None:
    # A project with an unrelated `teams/` folder is not taken for Claude Code's.
    project = tmp_path / "site"
    (project / "teams" / "marketing").mkdir(parents=True)
    fleet = discover_fleet(cwd=project)
    assert "marketing" not in _by_name(fleet.teams)


# ----------------------------------------------------------------------------- the journal's ended teams


def _journal(machine: Machine, name: str, root: Path, layout: str, seen: float, gone: float | None) -> Path:
    """A journal file as teamtui writes them: a team record, a task, maybe the team's end."""
    machine.journal.mkdir(parents=True, exist_ok=True)
    path = machine.journal / f"{name}.0123456789.jsonl"
    records = [
        {
            "ts": seen,
            "kind": "team",
            "team": name,
            "layout": layout,
            "root": str(root),
            "lead": "team-lead",
            "members": [{"name": "alice"}, {"name": "bob"}],
        },
        {"ts": seen + 1, "kind": "task", "id": "1", "subject": "survey", "status": "completed", "owner": "alice"},
        {"ts": seen + 2, "kind": "task", "id": "2", "subject": "write", "status": "in_progress", "owner": "bob"},
    ]
    if gone is not None:
        records.append({"ts": gone, "kind": "team_gone", "detail": "folder gone"})
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    last = gone if gone is not None else seen + 2
    os.utime(path, (last, last))
    return path


def test_ended_teams_come_from_the_journal_within_fleet_keep_hours(machine: Machine) -> None:
    now = time.time()
    _journal(machine, "session-recent", machine.claude, "claude", now - 3 * HOUR, now - 2 * HOUR)
    _journal(machine, "session-old", machine.claude, "claude", now - 40 * HOUR, now - 30 * HOUR)
    # Gone without a team_gone record (no dashboard watched it go): ended when last seen.
    _journal(machine, "session-unseen", machine.claude, "claude", now - HOUR, None)
    ended = _by_name([t for t in discover_fleet(now=now).teams if t.ended])
    assert sorted(ended) == ["session-recent", "session-unseen"]
    assert ended["session-recent"].ended_at == pytest.approx(now - 2 * HOUR)
    assert ended["session-unseen"].ended_at == pytest.approx(now - HOUR + 2)
    assert ended["session-recent"].journal is not None and ended["session-recent"].source == "claude"
    machine.write_config("fleet_keep_hours = 1.5\n")
    assert sorted(t.name for t in discover_fleet(now=now).teams if t.ended) == ["session-unseen"]
    machine.write_config("fleet_keep_hours = 48\n")
    assert sorted(t.name for t in discover_fleet(now=now).teams if t.ended) == [
        "session-old",
        "session-recent",
        "session-unseen",
    ]


def test_a_journaled_team_that_still_runs_is_its_live_row_only(machine: Machine) -> None:
    now = time.time()
    # Seen ending once, then back under its name (the live folder is there): one row, live.
    _journal(machine, LIVE_TEAM, machine.claude, "claude", now - 2 * HOUR, now - HOUR)
    _journal(machine, "elsewhere", machine.home / "proj", "native", now - HOUR, None)
    copy_tree(EXAMPLES / "native", machine.home / "proj")
    shutil.move(machine.home / "proj" / ".teams" / NATIVE_TEAM, machine.home / "proj" / ".teams" / "elsewhere")
    teams = discover_fleet(now=now).teams
    assert [(t.name, t.ended) for t in teams if t.name == LIVE_TEAM] == [(LIVE_TEAM, False)]
    # Alive in a root this fleet does not look at: not listed as ended.
    assert "elsewhere" not in _by_name(teams)


# ----------------------------------------------------------------------------- folders that do not read


@pytest.fixture
def hostile(machine: Machine, tmp_path: Path) -> dict[str, str]:
    """Team folders Claude Code's folder should never hold, and what the fleet says of each."""
    teams = machine.claude / "teams"
    (teams / "half").mkdir()
    (teams / "badjson").mkdir()
    (teams / "badjson" / "config.json").write_text('{"name": "badjson", "members": [')
    (teams / "alist").mkdir()
    (teams / "alist" / "config.json").write_text("[]")
    (teams / "fifo").mkdir()
    os.mkfifo(teams / "fifo" / "config.json")  # reading it would block forever
    (teams / "huge").mkdir()
    with open(teams / "huge" / "config.json", "wb") as fh:
        fh.truncate(17 * 1024 * 1024)  # sparse, larger than the read limit
    (teams / "\x1b]0;pwned\x07").mkdir()
    outside = tmp_path / "outside"
    copy_tree(EXAMPLES / "claude" / "teams" / "work-team", outside)
    (teams / "link").symlink_to(outside)
    (teams / "gone.deleted-0b1e").mkdir()  # Claude Code deleting a team: not one
    (teams / "README").write_text("not a team")
    return {
        "half": "half-written: no config.json yet",
        "badjson": "config.json: invalid JSON",
        "alist": "config.json: expected a JSON object, got list",
        "fifo": "config.json: not a regular file",
        "huge": "config.json: file is 17825792 bytes, larger than the 16777216 byte limit",
        "\x1b]0;pwned\x07": "unsafe folder name: not read",
        "link": "a symbolic link, not a folder: not followed",
    }


def test_hostile_and_half_written_folders_are_listed_with_their_problem(
    machine: Machine, hostile: dict[str, str]
) -> None:
    teams = _by_name(discover_fleet().teams)
    for name, problem in hostile.items():
        assert teams[name].problem is not None and teams[name].problem.startswith(problem), (name, teams[name].problem)
    assert "gone.deleted-0b1e" not in teams and "README" not in teams
    assert teams[LIVE_TEAM].problem is None


def test_a_half_written_folder_reads_well_once_its_config_is_there(machine: Machine) -> None:
    half = machine.claude / "teams" / "session-0000abcd"
    half.mkdir()
    assert _by_name(discover_fleet().teams)["session-0000abcd"].problem == "half-written: no config.json yet"
    (half / "config.json").write_text(json.dumps({"name": "session-0000abcd", "members": []}))
    assert _by_name(discover_fleet().teams)["session-0000abcd"].problem is None


def test_an_unreadable_journal_or_registry_is_no_error(machine: Machine) -> None:
    machine.journal.mkdir(parents=True)
    (machine.journal / "junk.jsonl").write_bytes(b"\x00\xff{not json\n")
    (machine.journal / "nohead.jsonl").write_text(json.dumps({"ts": time.time(), "kind": "message"}) + "\n")
    machine.registry.parent.mkdir(parents=True, exist_ok=True)
    machine.registry.write_text("a file where the folder should be")
    assert len(discover_fleet().teams) == 4


def test_the_key_is_the_real_folder(machine: Machine, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(machine.project)
    assert team_key("native", alias, NATIVE_TEAM) == team_key("native", machine.project, NATIVE_TEAM)
    assert team_key("native", "a\x00b", "t") == ("native", "a\x00b", "t")


# ----------------------------------------------------------------------------- what to watch


def test_the_watch_dirs_cover_where_teams_appear_and_end(machine: Machine, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    dirs = fleet_watch_dirs([extra, machine.claude])
    assert dirs == [
        machine.claude / "teams",
        machine.project / ".teams",
        machine.other / ".teams",  # config.toml's root, in either layout
        machine.other / "teams",
        extra / ".teams",  # not there yet: watch.py waits for it
        extra / "teams",
        machine.claude / ".teams",  # (its teams/ is the first one)
        machine.registry,  # not the journal: this process writes there at every message
    ]


def test_settings_name_the_fleet_roots_and_keep_hours(machine: Machine) -> None:
    machine.write_config('roots = ["~/src/api", "/srv/team"]\nfleet_keep_hours = 6\n')
    s = load_settings()
    assert (s.roots, s.fleet_keep_hours, s.problems) == ([machine.other, Path("/srv/team")], 6.0, [])
