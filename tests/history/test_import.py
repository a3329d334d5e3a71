"""The JSON-lines journals read into the database once (and what was appended since, later), the
journal kept until its import is confirmed; `teamtui history` and `teamtui search` on the database."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam, journal
from teamtui.protocol.claude.ended import load_state as journal_state
from teamtui.protocol.claude.journal import TeamJournal, journal_file
from teamtui.protocol.history import db_path
from teamtui.protocol.history.importer import import_journals, journal_dir, retire_confirmed
from teamtui.protocol.history.query import ended_teams, load_state, open_history, teams
from teamtui.protocol.history.recorder import HistoryRecorder
from teamtui.protocol.history.writer import HistoryWriter
from teamtui.protocol.state import TeamState
from tests.conftest import copy_fixture

from .conftest import rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
REPO = Path(__file__).resolve().parents[2]
TEAM = "session-421dba11"


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = copy_fixture(FIXTURES / "tmux-running", tmp_path / "claude")
    return r


def _entry(sender: str, text: str, mid: str) -> dict:
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    return {"from": sender, "text": text, "timestamp": now, "msg_id": mid, "type": "message", "read": False}


def journaled(root: Path) -> tuple[ClaudeTeam, TeamState]:
    store = ClaudeTeam(root, TEAM)
    state = TeamState(store, journal=TeamJournal.open(store))
    state.load_all()
    return store, state


def say(store: ClaudeTeam, state: TeamState, text: str, mid: str) -> None:
    inbox = store.inbox_path("alice")
    inbox.write_text(json.dumps([_entry("teamtui", text, mid)]))
    state.apply(inbox)
    inbox.write_text("[]")  # taken: delivered
    state.apply(inbox)


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "teamtui", *argv], capture_output=True, text=True, env=env, timeout=60)


def test_a_journal_is_read_in_once_and_what_is_appended_later(state_home: Path, root: Path) -> None:
    store, state = journaled(root)
    say(store, state, "FIRSTWORD hello", "m-1")
    journal.flush()
    con = open_history(import_journals=False)
    applied = import_journals(con)
    assert applied > 0
    assert import_journals(con) == 0, "nothing read twice"
    say(store, state, "SECONDWORD again", "m-2")
    journal.flush()
    assert import_journals(con) > 0
    texts = [r[0] for r in rows(db_path(), "SELECT text FROM entries WHERE kind = 'message' ORDER BY ts")]
    assert texts.count("FIRSTWORD hello") == 1 and texts.count("SECONDWORD again") == 1
    assert rows(db_path(), "SELECT count(*) FROM messages WHERE delivered_at IS NOT NULL") == [(2,)]
    # The journal is kept (dashboards still write it) until asked to retire what is confirmed.
    path = journal_file(store)
    assert path.exists()
    [(offset, confirmed)] = rows(db_path(), "SELECT offset, confirmed_at FROM imports")
    assert offset == path.stat().st_size and confirmed is not None
    assert retire_confirmed(con) == [path] and not path.exists()


def test_a_rotated_journal_is_not_read_again_and_a_line_being_written_waits(state_home: Path, root: Path) -> None:
    store, state = journaled(root)
    say(store, state, "BEFOREROTATE", "m-1")
    journal.flush()
    con = open_history(import_journals=False)
    import_journals(con)
    path = journal_file(store)
    os.replace(path, path.with_name(path.name + ".1"))  # what the writer does at 4 MB
    with open(path, "a") as fh:  # a new generation, its header, and a line cut mid-write
        fh.write(
            json.dumps({"ts": time.time(), "kind": "team", "team": TEAM, "layout": "claude", "root": str(root)}) + "\n"
        )
        fh.write('{"ts": 1, "kind": "message", "key": "k", "text": "HALF')
    import_journals(con)
    assert rows(db_path(), "SELECT count(*) FROM entries WHERE text = 'BEFOREROTATE'") == [(1,)]
    assert rows(db_path(), "SELECT count(*) FROM entries WHERE text LIKE 'HALF%'") == [(0,)]
    [(offset,)] = rows(db_path(), "SELECT offset FROM imports WHERE path = ?", str(path))
    assert offset < path.stat().st_size  # the cut line is read once it is whole


def test_what_a_live_recorder_saw_is_not_imported_twice(state_home: Path, root: Path) -> None:
    """A dashboard journals and records the same team: the journal's later records are the recorder's."""
    store = ClaudeTeam(root, TEAM)
    writer = HistoryWriter(db_path())
    recorder = HistoryRecorder.for_store(store, writer)

    class Both:
        def __init__(self, *observers) -> None:
            self.observers = observers

        def observe(self, state, changes) -> None:
            for o in self.observers:
                o.observe(state, changes)

        def assignments(self, assigned) -> None:
            for o in self.observers:
                o.assignments(assigned)

    state = TeamState(store, journal=Both(TeamJournal.open(store), recorder))
    state.load_all()
    say(store, state, "SEENBYBOTH", "m-1")
    store.config_path.write_text(store.config_path.read_text())  # a member event in both
    journal.flush()
    assert writer.flush()
    import_journals(writer._con or open_history(import_journals=False))
    assert rows(db_path(), "SELECT count(*) FROM entries WHERE text = 'SEENBYBOTH'") == [(1,)]
    assert rows(db_path(), "SELECT count(*) FROM messages") == [(1,)]
    writer.close()


def test_the_database_serves_an_ended_team_as_the_journal_did(state_home: Path, root: Path) -> None:
    store, state = journaled(root)
    say(store, state, "KEEP ME", "m-1")
    task_dir = root / "tasks" / TEAM
    task_dir.mkdir(parents=True, exist_ok=True)
    (task_dir / "1.json").write_text(
        json.dumps(
            {"id": "1", "subject": "probe", "status": "in_progress", "owner": "alice", "blocks": [], "blockedBy": []}
        )
    )
    state.apply(task_dir / "1.json")
    shutil.rmtree(store.team_dir)
    state.apply(store.config_path)
    journal.flush()
    from_journal = journal_state(journal_file(store))
    con = open_history()
    [team] = teams(con)
    assert team.ended_at is not None and team.journal == str(journal_file(store))
    from_db = load_state(con, team.id)
    assert [(m.name, m.status) for m in from_db.config.members] == [
        (m.name, m.status) for m in from_journal.config.members
    ]
    assert sorted(from_db.departed) == sorted(from_journal.departed)
    assert [(t.id, t.status, t.owner) for t in from_db.tasks.values()] == [
        (t.id, t.status, t.owner) for t in from_journal.tasks.values()
    ]
    assert [(m.sender, m.content, m.delivered) for m in from_db.messages] == [
        (m.sender, m.content, m.delivered) for m in from_journal.messages
    ]
    # What the control room lists as ended, from the database.
    [ended] = ended_teams(con, since=time.time() - 3600)
    assert ended.key == team.key
    assert ended_teams(con, since=time.time() - 3600, live={team.key}) == []


def test_history_and_search_on_the_command_line(state_home: Path, root: Path, tmp_path: Path) -> None:
    store, state = journaled(root)
    say(store, state, "line one\n\x1b[31mred <b>deploy</b> broke", "m-9")
    journal.flush()
    listed = cli("history", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)["teams"]
    assert (row["team"], row["messages"], row["file"]) == (TEAM, 1, str(journal_file(store)))
    timeline = cli("history", TEAM)
    assert "teamtui → alice: line one" in timeline.stdout and "delivered to alice" in timeline.stdout
    assert "\x1b" not in timeline.stdout
    missing = cli("history", "nobody")
    assert missing.returncode == 1 and "no team 'nobody' in the history" in missing.stderr
    found = cli("search", "deploy")
    assert found.returncode == 0, found.stderr
    assert f"{TEAM}  teamtui → alice  message: line one \\x1b[31mred <b>«deploy»</b> broke" in found.stdout
    as_json = json.loads(cli("search", "deploy", "--json").stdout)["results"]
    [hit] = as_json
    assert (hit["team"], hit["who"], hit["to"], hit["kind"]) == (TEAM, "teamtui", "alice", "message")
    a, b = hit["marked"][0]
    assert hit["text"][a:b] == "deploy"
    assert cli("search", "nowhere-said").stdout.strip() == "no match"
    unknown = cli("search", "deploy", "--team", "other")
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert unknown.stderr == f"teamtui: no team 'other' in the history ({db_path()})\n"
    assert json.loads(cli("search", "deploy", "--since", "1h", "--json").stdout)["results"]
    assert json.loads(cli("search", "deploy", "--since", "2099-01-01", "--json").stdout)["results"] == []
    bad = cli("search", '"deploy')
    assert bad.returncode == 2 and "a quote is not closed" in bad.stderr and "Traceback" not in bad.stderr
    bad_since = cli("search", "deploy", "--since", "yesterday-ish")
    assert bad_since.returncode == 2 and "--since" in bad_since.stderr
    html = tmp_path / "report.html"
    made = cli("history", TEAM, "--html", str(html))
    assert made.returncode == 0, made.stderr
    page = html.read_text()
    assert "&lt;b&gt;deploy&lt;/b&gt;" in page and "<b>deploy" not in page
    assert journal_dir() == state_home / "teamtui" / "journal"


def test_an_older_header_read_in_late_does_not_bring_a_team_or_its_members_back(state_home: Path, root: Path) -> None:
    """The journal's header (its first line) is read in after the recorder saw bob leave and the
    team end: the team stays ended, bob stays gone; a header seen after the end is the team back."""
    store, state = journaled(root)  # the journal's header: bob is a member
    journal.flush()
    writer = HistoryWriter(db_path(), import_journals=False)
    recorder = HistoryRecorder.for_store(store, writer)
    live = TeamState(store, journal=recorder)
    live.load_all()
    cfg = json.loads(store.config_path.read_text())
    cfg["members"] = [m for m in cfg["members"] if m["name"] != "bob"]
    store.config_path.write_text(json.dumps(cfg))
    live.apply(store.config_path)
    shutil.rmtree(store.team_dir)
    live.apply(store.config_path)
    assert writer.flush()
    writer.close()
    con = open_history()  # reads the journal in now
    [team] = teams(con)
    assert team.ended_at is not None, "still ended"
    assert rows(db_path(), "SELECT left_at IS NOT NULL FROM members WHERE name = 'bob'") == [(1,)]
    later = HistoryWriter(db_path(), import_journals=False)
    later.put(("header", team_ident(team), time.time() + 60, ("team-lead", "", None, [], {}, True)))
    assert later.flush()
    later.close()
    assert teams(open_history())[0].ended_at is None, "seen alive after its end: back"


def team_ident(team) -> tuple:
    from teamtui.protocol.history.ops import TeamIdent

    return TeamIdent(team.host, team.layout, team.root, team.name)


def test_search_limit_keeps_the_newest_and_a_task_is_one_line(state_home: Path) -> None:
    """`--limit 3`: the three newest in time, though the older ones were written last; a task's
    subject and description on one line."""
    from teamtui.protocol.history.ops import TeamIdent

    now = time.time()
    team = TeamIdent("", "native", "/p", "web")
    writer = HistoryWriter(db_path(), import_journals=False)
    writer.put(("header", team, now - 999, ("lead", "", None, [], {}, True)))
    writer.put(("entries", team, now, ("log", [("ada", now - 60 + i, "info", f"deploy new {i}", i) for i in range(4)])))
    writer.put(
        ("entries", team, now, ("log", [("bob", now - 900 + i, "info", f"deploy old {i}", i) for i in range(4)]))
    )
    writer.put(("task", team, now - 58.5, ("task", "7", "Deploy the site", "first\nthen", "pending", "", [])))
    assert writer.flush()
    writer.close()
    found = cli("search", "deploy", "--limit", "3")
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert [line.split("  ")[-1] for line in lines] == [
        "log: «deploy» new 3",
        "log: «deploy» new 2",
        "task: #7 «Deploy» the site first then",
    ]
