"""What each teammate changed, beyond the transcripts: a `teamtui run` teammate's git worktree (a
real repository, real worktrees made as the runtime makes them), what tasks and TOUCHING_FILE
declare, the collisions between them as needs-you items (called once, cleared when one teammate
is gone or the person dismisses it), two teams on one file, and `teamtui changes`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamtui.notify.events import NotifyKind
from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.teammate import Teammate
from teamtui.protocol.touching import record_touch
from teamtui.runtime import worktrees
from teamtui.session.alerts import Alerts, needs_of
from teamtui.session.changes import changes_of, fleet_collisions
from teamtui.session.local_team import open_local
from teamtui.session.team import TeamSession
from tests.conftest import EDITS

KEY = ("native", "/r", "t")
CLAUDE_TEAM = "session-48868de5"
REPO = Path(__file__).resolve().parents[2]


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    sh(root, "init", "-q", "-b", "main")
    sh(root, "config", "user.email", "t@example.com")
    sh(root, "config", "user.name", "t")
    (root / "app.py").write_text("".join(f"line {i}\n" for i in range(10)))
    (root / "lib.py").write_text("x = 1\n")
    sh(root, "add", ".")
    sh(root, "commit", "-q", "-m", "start")
    team = NativeTeam(root, "t")
    team.create(description="")
    for m in ("ana", "ben"):
        team.add_member(m)
    return root


def session_of(store) -> TeamSession:
    s, state = open_local(store, log_limit=1000, health_timeout=60.0)
    state.load_all()
    return s


def refresh(session: TeamSession) -> None:
    for path in session.state.stale_paths():
        session.state.apply(path)
    changes = changes_of(session)
    changes.take_git(changes.read_git())


def test_a_worktree_teammates_changes_are_read_from_git_and_two_on_one_file_call_once(repo: Path) -> None:
    ana, ben = worktrees.add(repo, "t", "ana"), worktrees.add(repo, "t", "ben")
    lines = (ana.path / "app.py").read_text().splitlines(keepends=True)
    (ana.path / "app.py").write_text("".join(lines[1:]) + "new a\nnew b\n")  # -1 +2, not committed
    (ben.path / "new.py").write_text("a\nb\nc\n")  # untracked
    (ben.path / "app.py").write_text("".join(lines) + "ben\n")
    sh(ben.path, "commit", "-q", "-am", "ben's line")  # committed on its branch: still its change
    session = session_of(NativeTeam(repo, "t"))
    changes = changes_of(session)
    alerts = Alerts()
    alerts.look(KEY, session, 0.0)
    assert changes.take_git(changes.read_git())
    rows = {(r.member, r.shown): r for r in changes.rows()}
    assert {k: (r.change.added, r.change.removed, r.source) for k, r in rows.items()} == {
        ("ana", "app.py"): (2, 1, "git"),
        ("ben", "app.py"): (1, 0, "git"),
        ("ben", "new.py"): (3, 0, "git"),
    }
    assert rows[("ben", "new.py")].change.created and not rows[("ana", "app.py")].outside
    assert rows[("ana", "app.py")].where == str(repo / "app.py")  # two worktrees meet at the main checkout's file
    diff = changes.git_diff("ana", "app.py")
    assert diff is not None and diff.hunks and "+new a" in diff.hunks[-1].lines and "-line 0" in diff.hunks[0].lines
    created = changes.git_diff("ben", "new.py")
    assert created is not None and created.added == 3
    needs, events = alerts.look(KEY, session, 1.0)
    assert [(n.kind, n.text) for n in needs] == [("collision", "ana and ben both changed app.py")]
    assert [e.kind for e in events] == [NotifyKind.NEEDS_YOU]
    assert alerts.look(KEY, session, 2.0)[1] == []  # called once
    # ben shuts down: the collision is gone
    NativeTeam(repo, "t").update_member("ben", status="shutdown")
    refresh(session)
    assert not [n for n in needs_of(KEY, session, 3.0) if n.kind == "collision"]


def test_git_is_asked_again_only_for_a_change_in_a_worktree(repo: Path) -> None:
    ana = worktrees.add(repo, "t", "ana")
    session = session_of(NativeTeam(repo, "t"))
    changes = changes_of(session)
    changes.take_git(changes.read_git())
    assert ana.path in changes.watch_dirs()
    assert changes.concerns(ana.path / "src" / "x.py")
    assert not changes.concerns(ana.path / ".git")
    assert not changes.concerns(repo / ".teams" / "t" / "config.json")
    assert not changes.take_git(changes.read_git())  # nothing changed: no new generation


def test_a_change_to_a_file_another_declared_is_a_collision_until_dismissed(repo: Path) -> None:
    store = NativeTeam(repo, "t")
    task = store.create_task("lib work", files=["lib.py"])
    store.claim_task(task.id, "ana")
    record_touch(store, "docs/guide.md", "ana")
    ben = worktrees.add(repo, "t", "ben")
    (ben.path / "lib.py").write_text("x = 2\n")
    (ben.path / "docs").mkdir()
    (ben.path / "docs" / "guide.md").write_text("hi\n")
    session = session_of(store)
    changes = changes_of(session)
    changes.take_git(changes.read_git())
    declared = {(r.member, r.shown, r.change.why) for r in changes.rows() if r.source == "declared"}
    assert declared == {("ana", "lib.py", f"task #{task.id}"), ("ana", "docs/guide.md", "TOUCHING_FILE")}
    texts = sorted(c.text for c in changes.collisions())
    assert texts == [
        "ben changed docs/guide.md, which ana declared (TOUCHING_FILE)",
        f"ben changed lib.py, which ana declared (task #{task.id})",
    ]
    first = changes.collisions()[0]
    changes.dismiss(first.key)
    assert [c.key for c in changes.collisions()] == [c.key for c in changes.collisions() if c.key != first.key]
    assert first.key not in {n.key for n in needs_of(KEY, session, 0.0)}


def test_a_touching_file_for_a_task_declares_the_path_alone(repo: Path) -> None:
    # The demo's broadcast: `TOUCHING_FILE <path> for #N`; the path is what precedes ` for #N`.
    store = NativeTeam(repo, "t")
    task = store.create_task("login", files=["app.py"])
    store.claim_task(task.id, "ana")
    Teammate(repo, "t", "ana").broadcast(f"TOUCHING_FILE tests/test_login.py for #{task.id}")
    ben = worktrees.add(repo, "t", "ben")
    (ben.path / "tests").mkdir()
    (ben.path / "tests" / "test_login.py").write_text("def test(): pass\n")
    changes = changes_of(session_of(store))
    changes.take_git(changes.read_git())
    declared = sorted((r.member, r.shown, r.change.why) for r in changes.rows() if r.source == "declared")
    assert declared == [("ana", "app.py", f"task #{task.id}"), ("ana", "tests/test_login.py", "TOUCHING_FILE")]
    assert [c.text for c in changes.collisions()] == [
        "ben changed tests/test_login.py, which ana declared (TOUCHING_FILE)"
    ]


def test_files_with_escapes_markup_or_bytes_not_utf8_in_their_names_are_read_from_git(repo: Path) -> None:
    # Tracked files named like a pattern, and new ones named with markup, ESC, and a byte that is not UTF-8.
    (repo / "*.py").write_text("star = 1\n")
    (repo / "a[b]red[").mkdir()
    (repo / "a[b]red[" / "b].py").write_text("red = 1\n")
    sh(repo, "add", ".")
    sh(repo, "commit", "-q", "-m", "odd names")
    ana = worktrees.add(repo, "t", "ana")
    (ana.path / "*.py").write_text("star = 2\n")
    (ana.path / "a[b]red[" / "b].py").write_text("red = 2\n")
    (ana.path / "app.py").write_text("changed\n")
    (ana.path / "\x1b[31mred.py").write_text("one\n")
    with open(os.fsencode(ana.path) + b"/bad\xff\x1b[1m.py", "w") as fh:
        fh.write("one\ntwo\n")
    changes = changes_of(session_of(NativeTeam(repo, "t")))
    changes.take_git(changes.read_git())
    got = {r.shown: r.change.counts for r in changes.rows()}
    assert got == {
        "*.py": "+1 -1",
        "a[b]red[/b].py": "+1 -1",
        "app.py": "+1 -10",
        "\x1b[31mred.py": "+1 -0",
        "bad\udcff\x1b[1m.py": "+2 -0",  # kept as the OS has it: shown by inert as `\\udcff`
    }
    star = changes.git_diff("ana", "*.py")  # that one file, not every .py file
    assert star is not None and [h.lines for h in star.hunks] == [("-star = 1", "+star = 2")]
    bad = changes.git_diff("ana", "bad\udcff\x1b[1m.py")
    assert bad is not None and [h.lines for h in bad.hunks] == [("+one", "+two")]


def claude_team(tmp_path: Path, name: str) -> TeamSession:
    root = tmp_path / name / ".claude"
    shutil.copytree(EDITS, root)
    session, state = open_local(ClaudeTeam(root, CLAUDE_TEAM), log_limit=1000, health_timeout=60.0)
    state.load_all()
    state.load_transcripts()
    return session


def test_two_live_teams_changing_one_file_of_one_tree_collide_across_teams(tmp_path: Path) -> None:
    red, blue = claude_team(tmp_path, "red"), claude_team(tmp_path, "blue")
    found = fleet_collisions([("red", changes_of(red)), ("blue", changes_of(blue))])
    assert "alice (blue) and alice (red) both changed app.py" in [c.text for c in found]
    assert all(c.teams for c in found)  # a team's own pairs are its own needs, not the fleet's
    blue.ended_at = time.time()  # an ended team collides with nobody
    assert fleet_collisions([("red", changes_of(red)), ("blue", changes_of(blue))]) == []


def test_a_claude_code_teams_collision_is_one_need_in_the_room(tmp_path: Path) -> None:
    session = claude_team(tmp_path, "one")
    needs = [n for n in needs_of(("claude", "/x", CLAUDE_TEAM), session, time.time()) if n.kind == "collision"]
    assert [(n.member, n.text) for n in needs] == [("alice", "alice and bob both changed app.py")]


def teamtui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "teamtui", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_teamtui_changes_prints_each_teammates_files_and_the_collision(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    shutil.copytree(EDITS, root)
    out = teamtui("--root", str(root), "--team", CLAUDE_TEAM, "changes", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == [f"{CLAUDE_TEAM} (claude, /src/app)", "  alice"] and lines[3] == "  bob"
    assert re.fullmatch(r" +\+7 -1  app\.py  \(2 edits, new, \d+[smhd] ago\)", lines[2])
    assert re.fullmatch(r" +\+1 -1  app\.py  \(1 edit, \d+[smhd] ago\)", lines[4])
    assert "  ! alice and bob both changed app.py" in out.stdout
    data = json.loads(teamtui("--root", str(root), "--team", CLAUDE_TEAM, "changes", "--json", cwd=tmp_path).stdout)
    (team,) = data
    assert {
        m: [(r["path"], r["added"], r["removed"], r["edits"]) for r in rows] for m, rows in team["members"].items()
    } == {
        "alice": [("app.py", 7, 1, 2)],
        "bob": [("app.py", 1, 1, 1)],
    }
    assert [c["text"] for c in team["collisions"]] == ["alice and bob both changed app.py"]


def test_teamtui_changes_shows_hostile_names_inert(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    shutil.copytree(EDITS, root)
    bob = next(root.rglob("agent-abob-*.jsonl"))
    rec = {
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "tx", "type": "tool_result", "content": "ok"}]},
        "timestamp": "2026-11-27T03:00:00.000Z",
        "toolUseResult": {
            "filePath": "/etc/\x1b]2;pwned\x07passwd",
            "oldString": "a",
            "newString": "b",
            "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}],
        },
    }
    with bob.open("a") as fh:
        fh.write(json.dumps(rec) + "\n")
    out = teamtui("--root", str(root), "--team", CLAUDE_TEAM, "changes", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "/etc/\\x1b]2;pwned\\x07passwd  (1 edit, outside the team's folder" in out.stdout
