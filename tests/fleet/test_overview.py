"""One row per team, from TeamState: lead, members, tasks, activity, where it works; the order."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from teamtui.protocol.fleet import FleetRow, FleetTeam, discover_fleet, fleet_rows, order_rows, summarize_team

from .conftest import DEAD_TEAM, LIVE_TEAM, NATIVE_TEAM, OTHER_TEAM, Machine, date_tree

HOUR = 3600.0


def _rows(machine: Machine, **kw: object) -> dict[str, FleetRow]:
    return {r.team.name: r for r in fleet_rows(discover_fleet(), **kw)}  # type: ignore[arg-type]


def test_a_claude_code_teams_row(machine: Machine) -> None:
    rows = _rows(machine)
    live, dead = rows[LIVE_TEAM], rows[DEAD_TEAM]
    assert (live.name, live.label, live.lead, live.ended, live.problem) == (
        LIVE_TEAM,
        "Claude Code",
        "alive",
        False,
        None,
    )
    assert (live.working, live.idle, live.gone, live.unknown) == (0, 2, 0, 0)  # alice and bob: isActive false
    # Read as the room reads it: the lead's assignments (no task list) and the transcripts' tokens.
    assert (live.tasks_done, live.tasks_total, live.cwd) == (2, 2, "/src/app")
    assert (live.needs_you, live.tokens) == (0, 200)
    # Its lead's process ended (the folder was left behind): an ended row.
    assert (dead.lead, dead.ended, dead.tasks_done, dead.tasks_total) == ("ended", True, 0, 2)
    assert dead.unknown == 0  # in-process teammates: their transcripts said working or idle


def test_transcripts_are_read_unless_left_out(machine: Machine) -> None:
    rows = _rows(machine)
    assert rows[LIVE_TEAM].tokens is not None and rows[LIVE_TEAM].tokens > 0
    assert rows[DEAD_TEAM].unknown == 0  # their transcripts said working or idle
    assert rows[NATIVE_TEAM].tokens is None  # a native team has none
    unread = _rows(machine, transcripts=False)
    assert (unread[LIVE_TEAM].tokens, unread[DEAD_TEAM].unknown) == (None, 2)


def test_a_native_teams_row(machine: Machine) -> None:
    team = machine.project / ".teams" / NATIVE_TEAM
    date_tree(team, time.time())
    row = _rows(machine)[NATIVE_TEAM]
    assert (row.label, row.lead, row.cwd) == (
        "native",
        "unknown",
        str(machine.project),
    )  # no teamtui lead: a person may lead
    assert (row.working, row.idle, row.gone) == (1, 1, 1)  # hunter active, scout idle, tracer shut down
    assert (row.tasks_done, row.tasks_total) == (1, 5)
    # Silent for longer than the health timeout while holding a task: hunter has disappeared, counted gone.
    date_tree(team, time.time() - 600)
    row = _rows(machine)[NATIVE_TEAM]
    assert (row.working, row.idle, row.gone) == (0, 1, 2)


def test_a_run_teams_row_names_its_live_lead(machine: Machine) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom teamtui.protocol.fleet import registered_run\n"
        "with registered_run(Path(sys.argv[1]), sys.argv[2]):\n    print('ok', flush=True); sys.stdin.readline()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(machine.project), NATIVE_TEAM],
        env=machine.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ok"
        row = _rows(machine)[NATIVE_TEAM]
        assert (row.label, row.lead, row.team.source) == ("run by teamtui", "alive", "run")
    finally:
        proc.communicate("\n", timeout=30)


def test_an_ended_teams_row_comes_from_its_journal(machine: Machine) -> None:
    now = time.time()
    machine.journal.mkdir(parents=True)
    path = machine.journal / "session-beef.0123456789.jsonl"
    records = [
        {
            "ts": now - 2 * HOUR,
            "kind": "team",
            "team": "session-beef",
            "layout": "claude",
            "root": str(machine.claude),
            "lead": "team-lead",
            "members": [{"name": "alice"}, {"name": "bob"}],
        },
        {"ts": now - 2 * HOUR, "kind": "task", "id": "1", "subject": "a", "status": "completed", "owner": "alice"},
        {"ts": now - 2 * HOUR, "kind": "task", "id": "2", "subject": "b", "status": "pending"},
        {"ts": now - HOUR, "kind": "team_gone", "detail": "gone"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    row = _rows(machine)["session-beef"]
    assert (row.lead, row.ended, row.gone, row.working, row.idle) == ("ended", True, 2, 0, 0)
    assert (row.tasks_done, row.tasks_total) == (1, 2)
    assert abs((row.last_activity or 0) - (now - HOUR)) < 1


def test_ended_teams_of_one_name_are_told_apart_by_where_they_worked(machine: Machine) -> None:
    # Four runs of a team named "demo", each gone with its folder: four rows that say which is which.
    now = time.time()
    machine.journal.mkdir(parents=True)
    heads = [
        {"root": "/tmp/run-a/.claude", "cwd": "/src/app", "session": "48868de5-8ae7-4125-8599-c28685a97f25"},
        {"root": "/tmp/run-b/.claude", "cwd": "/src/app", "session": "9d1c0a27-0000-4125-8599-c28685a97f25"},
        {"root": "/tmp/run-c/.claude", "cwd": "/src/web"},
        {"root": "/tmp/run-d/.claude"},  # journaled before teamtui kept where a team worked
    ]
    for i, head in enumerate(heads):
        records = [
            {"ts": now - HOUR, "kind": "team", "team": "demo", "layout": "claude", "lead": "team-lead", **head},
            {"ts": now - HOUR / 2, "kind": "team_gone", "detail": "gone"},
        ]
        (machine.journal / f"demo.{i:010d}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    rows = [r for r in fleet_rows(discover_fleet()) if r.name == "demo"]
    assert sorted(r.cwd for r in rows) == [
        "/src/app · session 48868de5",
        "/src/app · session 9d1c0a27",
        "/src/web",
        "/tmp/run-d/.claude",
    ]


def test_a_journal_keeps_where_a_team_worked_and_its_session(tmp_path: Path) -> None:
    import shutil

    from teamtui.protocol.claude import ClaudeTeam
    from teamtui.protocol.claude.journal import TeamJournal, flush, read_records
    from teamtui.protocol.state import TeamState

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.332-edits" / ".claude"
    root = tmp_path / "claude"
    shutil.copytree(fixture, root)
    store = ClaudeTeam(root, "session-48868de5")
    journal = TeamJournal.open(store, tmp_path / "journal")
    TeamState(store, journal=journal).load_all()
    flush()
    head = next(r for r in read_records(journal.path) if r["kind"] == "team")
    assert (head["cwd"], head["session"]) == ("/src/app", "48868de5-8ae7-4125-8599-c28685a97f25")


def test_a_team_that_does_not_read_is_a_row_with_its_problem(machine: Machine) -> None:
    teams = machine.claude / "teams"
    (teams / "bad-members").mkdir()
    (teams / "bad-members" / "config.json").write_text(json.dumps({"name": "bad-members", "members": "everyone"}))
    (teams / "half").mkdir()
    rows = _rows(machine)
    assert rows["bad-members"].problem == "config.json: 'members' must be a list"
    assert rows["half"].problem == "half-written: no config.json yet"
    assert (rows["half"].lead, rows["half"].tasks_total) == ("unknown", 0)


def test_a_team_removed_while_it_is_read_is_a_row_not_an_error(machine: Machine) -> None:
    team = FleetTeam(machine.claude, "session-gone", "claude", "claude")
    row = summarize_team(team)
    assert row.problem is not None


def test_the_order_needs_you_then_live_by_activity_then_ended(machine: Machine) -> None:
    now = time.time()
    date_tree(machine.project / ".teams" / NATIVE_TEAM, now - 500)
    date_tree(machine.other / ".teams" / OTHER_TEAM, now - 100)
    date_tree(machine.claude / "teams" / LIVE_TEAM, now - 300)
    date_tree(machine.claude / "projects", now - 300)  # its transcripts: their last write is activity too
    names = [r.team.name for r in fleet_rows(discover_fleet(), now=now)]
    # The live ones newest first; the ended-lead team last.
    assert names == [OTHER_TEAM, LIVE_TEAM, NATIVE_TEAM, DEAD_TEAM]


def test_order_rows_puts_what_needs_you_first() -> None:
    def row(name: str, needs: int = 0, last: float = 0.0, ended: bool = False) -> FleetRow:
        team = FleetTeam(Path("/r"), name, "claude", "claude", ended=ended)
        return FleetRow(team, name, "Claude Code", needs_you=needs, last_activity=last)

    rows = [row("old"), row("ended", 0, 90.0, True), row("asks", 1, 5.0), row("new", 0, 50.0), row("asks-more", 3, 1.0)]
    assert [r.name for r in order_rows(rows)] == ["asks-more", "asks", "new", "old", "ended"]
