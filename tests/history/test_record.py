"""Every kind of team recorded into the history database by the observer TeamState already has:
a native team (logs, inboxes, tasks, members coming and going), a Claude Code team (pending
queues and their receipts, transcripts, the lead's assignments, the team's end), a workflow run;
what needs the person, file changes and cost; everything searchable."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from teamtui.protocol import NativeTeam
from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.history.query import load_state, open_history, records, team_history, teams
from teamtui.protocol.history.recorder import HistoryRecorder, ident_of
from teamtui.protocol.history.search import search
from teamtui.protocol.history.writer import HistoryWriter
from teamtui.protocol.layout import open_team
from teamtui.protocol.state import TeamState
from teamtui.protocol.workflow import run_name
from tests.conftest import writable

from .conftest import rows

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
CLAUDE = EXAMPLES / "claude-2.1.328"
WORKFLOW = Path(__file__).resolve().parents[1] / "fixtures" / "claude-workflow"
TEAM = "refactor-auth"
CLAUDE_TEAM = "session-421dba11"


def recorded(store, writer: HistoryWriter) -> TeamState:
    state = TeamState(store, journal=HistoryRecorder.for_store(store, writer))
    state.load_all()
    return state


def test_a_native_team_is_recorded_as_it_changes(native_root: Path, writer: HistoryWriter, db: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    state = recorded(store, writer)
    store.send("hunter", "please rebase <b>auth</b> on main", "teamtui")
    state.apply(store.inbox_path("hunter"))
    store.log("scout", "BUILD-FAILED in test_tokens.py")
    state.apply(store.log_paths("scout")[0])
    store.update_member("scout", status="working")
    state.apply(store.config_path)
    cfg = json.loads(store.config_path.read_text())
    cfg["members"] = [m for m in cfg["members"] if m["name"] != "tracer"]
    store.config_path.write_text(json.dumps(cfg))
    state.apply(store.config_path)
    store.claim_task("3", "scout")
    state.apply(store.task_path("3"))
    assert writer.flush() and writer.problems == []

    [team] = teams(open_history(db, import_journals=False))
    assert (team.name, team.layout, team.root, team.host) == (TEAM, "native", os.path.realpath(native_root), "")
    assert team.key == ("native", os.path.realpath(native_root), TEAM) and team.messages >= 1
    assert rows(db, "SELECT name, left_at IS NOT NULL FROM members ORDER BY name") == [
        ("hunter", 0),
        ("scout", 0),
        ("tracer", 1),
    ]
    assert ("scout", "status", "working") in rows(db, "SELECT name, kind, detail FROM member_events")
    assert ("tracer", "left", "") in rows(db, "SELECT name, kind, detail FROM member_events")
    assert ("3", "in_progress", "scout") in rows(db, "SELECT task_id, status, owner FROM task_events")
    assert rows(db, "SELECT status, owner FROM tasks WHERE task_id = '3'") == [("in_progress", "scout")]
    [msg] = rows(db, "SELECT sender, recipient, type FROM messages WHERE sender = 'teamtui'")
    assert msg == ("teamtui", "hunter", "message")
    con = open_history(db, import_journals=False)
    [hit] = search(con, "rebase")
    assert (hit.team, hit.who, hit.kind, hit.ref) == (TEAM, "teamtui", "message", "hunter")
    assert ("rebase", True) in hit.segments and hit.text == "please rebase <b>auth</b> on main"
    [log] = search(con, "BUILD-FAILED")
    assert (log.kind, log.who) == ("log", "scout") and log.segments[0] == ("BUILD-FAILED", True)
    [task] = search(con, '"update api"')
    assert (task.kind, task.ref) == ("task", "3")


def test_a_claude_code_team_its_receipts_transcripts_assignments_and_end(
    tmp_path: Path, writer: HistoryWriter, db: Path
) -> None:
    root = writable(shutil.copytree(CLAUDE / "tmux-running", tmp_path / "claude"))
    store = ClaudeTeam(root, CLAUDE_TEAM)
    state = recorded(store, writer)
    state.load_transcripts()
    state.take_heads(state.count_heads())
    assert state.task_source == "assignments"
    inbox = store.inbox_path("alice")
    sent = store.send("alice", "WATCHWORD review #3 first", "teamtui")
    state.sent([sent])
    inbox.write_text("[]")  # alice took it: delivered
    state.apply(inbox)
    shutil.rmtree(store.team_dir)  # the lead exited: Claude Code deletes the folder
    state.apply(store.config_path)
    assert writer.flush() and writer.problems == []

    con = open_history(db, import_journals=False)
    [team] = teams(con)
    assert team.layout == "claude" and team.ended_at is not None
    assert rows(db, "SELECT delivered_at IS NOT NULL FROM messages WHERE sender = 'teamtui'") == [(1,)]
    transcript = rows(db, "SELECT count(*) FROM entries WHERE kind = 'transcript'")[0][0]
    assert transcript > 0, "the members' transcript lines are recorded"
    assigned = {r[0] for r in rows(db, "SELECT task_id FROM tasks WHERE source = 'assigned'")}
    assert assigned == set(state.assigned)
    # An ended team read back from the database, as the journal's reader did.
    back = load_state(con, team.id)
    assert back.name == CLAUDE_TEAM and back.task_source == "assignments"
    assert {t.id: t.subject for t in back.board.tasks.values()} == {t.id: t.subject for t in state.assigned.values()}
    [msg] = [m for m in back.messages if m.sender == "teamtui"]
    assert msg.content == "WATCHWORD review #3 first" and msg.delivered
    assert [r["kind"] for r in records(con, team.id)][-1] == "team_gone"


def test_a_workflow_run_is_recorded_with_its_steps_and_agents_transcripts(
    tmp_path: Path, writer: HistoryWriter, db: Path
) -> None:
    root = tmp_path / "wf"
    shutil.copytree(WORKFLOW / "completed" / "projects", root / "projects")
    writable(root)
    store = open_team(root, run_name("probe-flow", "wf_4e0e88a0-7e7"))
    state = recorded(store, writer)
    state.load_transcripts()
    assert writer.flush() and writer.problems == []
    con = open_history(db, import_journals=False)
    [team] = teams(con)
    assert team.layout == "workflow" and team.name == store.name
    assert {r[0] for r in rows(db, "SELECT name FROM members")} == {"alpha", "beta", "gamma"}
    assert {r[0] for r in rows(db, "SELECT task_id FROM tasks")} == {"1", "2", "3"}
    assert search(con, "WFAGENTC"), "a step's prompt is searchable"


def test_what_needs_the_person_file_changes_and_cost(native_root: Path, writer: HistoryWriter, db: Path) -> None:
    class Need:
        def __init__(self, key: str, member: str, text: str) -> None:
            self.key, self.member, self.text, self.kind, self.since = key, member, text, "permission", None

    store = NativeTeam(native_root, TEAM)
    recorder = HistoryRecorder.for_store(store, writer)
    state = TeamState(store, journal=recorder)
    state.load_all()
    t0 = time.time()
    recorder.needs([Need("p:1", "hunter", "hunter asks to run rm -rf build")], now=t0)
    recorder.needs([Need("p:1", "hunter", "hunter asks to run rm -rf build")], now=t0 + 1)  # still waiting: once
    recorder.needs([], now=t0 + 10)
    recorder.file_changed("hunter", "src/auth/middleware.py", "modified", task_id="1", added=12, removed=3)
    recorder.cost("hunter", model="claude-x", input_tokens=1000, output_tokens=200, usd=0.25)
    assert writer.flush() and writer.problems == []
    assert rows(db, "SELECT key, member, opened_at, answered_at, answer FROM needs") == [
        ("p:1", "hunter", t0, t0 + 10, "answered")
    ]
    con = open_history(db, import_journals=False)
    [hit] = search(con, "middleware.py")
    assert (hit.kind, hit.who) == ("change", "hunter")
    h = team_history(con, teams(con)[0].id)
    assert h.changes[0][1:] == ("hunter", "src/auth/middleware.py", "modified")
    assert h.costs[0][1:] == ("hunter", 0.25, 1200)


def test_two_recorders_of_one_team_keep_one_copy(native_root: Path, writer: HistoryWriter, db: Path) -> None:
    """Two dashboards (or a dashboard and a stream) watching the same team: one record of each thing."""
    store = NativeTeam(native_root, TEAM)
    first, second = recorded(store, writer), recorded(NativeTeam(native_root, TEAM), writer)
    store.send("scout", "only once please", "teamtui")
    store.log("hunter", "ONE LINE")
    for state in (first, second):
        state.apply(store.inbox_path("scout"))
        state.apply(store.log_paths("hunter")[0])
    assert writer.flush()
    assert rows(db, "SELECT count(*) FROM messages WHERE summary = '' AND sender = 'teamtui'") == [(1,)]
    assert rows(db, "SELECT count(*) FROM entries WHERE text = 'ONE LINE'") == [(1,)]
    assert rows(db, "SELECT count(*) FROM teams") == [(1,)]


def test_a_recorder_reads_only_the_model_never_the_files(native_root: Path, writer: HistoryWriter, db: Path) -> None:
    """A team filled from elsewhere (a stream) is recorded through the same observer, under its host."""
    store = NativeTeam(native_root, TEAM)
    source = TeamState(store)
    source.load_all()
    shutil.rmtree(native_root)  # nothing left to read: the recorder must not need it
    recorder = HistoryRecorder(ident_of(store, host="build-box"), writer)
    recorder.observe(source, [])
    assert writer.flush() and writer.problems == []
    con = open_history(db, import_journals=False)
    [team] = teams(con)
    assert team.host == "build-box" and team.key == ("ssh:build-box", team.root, TEAM)
    assert {r[0] for r in rows(db, "SELECT task_id FROM tasks")} == set(source.tasks)


def test_old_records_go_after_history_keep_days(native_root: Path, db: Path) -> None:
    now = time.time()
    writer = HistoryWriter(db, keep_days=1)
    store = NativeTeam(native_root, TEAM)
    recorder = HistoryRecorder.for_store(store, writer, live=True)
    state = TeamState(store, journal=recorder)
    state.load_all()
    old = HistoryRecorder(ident_of(store)._replace(name="long-gone"), writer, clock=lambda: now - 3 * 86400)
    old.observe(state, [])
    old.file_changed("x", "OLDPATH.py", "added", at=now - 3 * 86400)
    recorder.file_changed("x", "ANCIENT.py", "added", at=now - 2 * 86400)
    recorder.file_changed("x", "FRESH.py", "added", at=now)
    assert writer.flush()
    writer._pruned_at = 0.0  # the next commit prunes (every PRUNE_EVERY otherwise)
    recorder.file_changed("x", "NEXT.py", "added", at=now)
    assert writer.flush()
    writer.close()
    assert [r[0] for r in rows(db, "SELECT name FROM teams")] == [TEAM]
    assert sorted(r[0] for r in rows(db, "SELECT path FROM file_changes")) == ["FRESH.py", "NEXT.py"]
    con = open_history(db, import_journals=False)
    assert search(con, "ANCIENT") == [] and search(con, "OLDPATH") == [] and search(con, "FRESH")


def test_history_keep_days_is_read_from_config_toml(tmp_path: Path) -> None:
    from teamtui.protocol.settings import load_settings

    cfg = tmp_path / "config.toml"
    assert load_settings(cfg).history_keep_days == 90.0
    cfg.write_text("history_keep_days = 7\n")
    assert load_settings(cfg).history_keep_days == 7.0
    cfg.write_text("history_keep_days = -1\n")
    s = load_settings(cfg)
    assert (
        s.history_keep_days == 90.0 and "history_keep_days must be a positive number of days, got -1" in s.problems[0]
    )
