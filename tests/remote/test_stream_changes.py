"""What teammates changed, over the stream: the counts per file in the `insight` lines, a file's
diff fetched on demand (`diff` request → `diff` line, then the result), both read back as
untrusted input, and the same over a real OpenSSH server (tests/remote/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.protocol import stream as wire, stream_edits as edits_wire
from teamtui.protocol.edits import MAX_DIFF_LINES, MAX_LINE_CHARS, Edit, Hunk
from teamtui.session.changes import changes_of
from tests.conftest import EDITS

from .conftest import Remote, copy_tree, following
from .test_stream_cmd import Stream, stream_env, streaming

TEAM = "session-48868de5"
APP = "/src/app/app.py"


def insight_changes(stream: Stream) -> list:
    line = stream.until(lambda o: o["type"] == "insight" and o["team"][2] == TEAM and o["changes"], "the changes")
    return edits_wire.read_changes(line["changes"])


@pytest.fixture
def edits_stream(tmp_path: Path) -> Iterator[Stream]:
    claude = tmp_path / "claude"
    copy_tree(EDITS, claude)
    with streaming(stream_env(tmp_path, claude=claude), tmp_path) as s:
        yield s


def test_the_insight_carries_each_members_files_and_a_diff_is_answered_on_demand(edits_stream: Stream) -> None:
    s = edits_stream
    changes = insight_changes(s)
    assert {(c.member, c.path, c.added, c.removed, c.edits, c.created) for c in changes} == {
        ("alice", APP, 7, 1, 2, True),
        ("bob", APP, 1, 1, 1, False),
    }
    team = next(o["team"] for o in s.lines if o["type"] == "team" and o["team"][2] == TEAM)
    insight = next(o for o in s.lines if o["type"] == "insight" and o["team"] == team)
    assert [n["kind"] for n in insight["needs"]] == ["collision"]  # the collision is a need there too
    s.ask({"id": "d1", "op": "diff", "team": team, "member": "alice", "path": APP})
    line = s.until(lambda o: o["type"] == "diff" and o["id"] == "d1", "the diff")
    result = s.until(lambda o: o["type"] == "result" and o["id"] == "d1", "its result")
    assert result["ok"] is True and result["detail"] == f"2 edits of alice to {APP}"
    got = edits_wire.read_diff(line)
    assert got is not None and got["left_out"] == 0
    write, edit = got["edits"]
    assert (write.tool, write.added, write.created, write.hunks[0].lines[0]) == ("Write", 6, True, "+def greet(name):")
    assert (edit.tool, edit.hunks[0].lines[1]) == ("Edit", "-    return 'hello ' + name")
    s.ask({"id": "d2", "op": "diff", "team": team, "member": "alice", "path": "/etc/passwd"})
    miss = s.until(lambda o: o["type"] == "result" and o["id"] == "d2", "no such change")
    assert miss["ok"] is False and "no change of alice to /etc/passwd" in miss["error"]
    s.ask({"id": "d3", "op": "diff", "team": team, "member": "alice"})
    assert "path must be" in s.until(lambda o: o["type"] == "result" and o["id"] == "d3", "no path")["error"]


def test_a_new_edit_there_moves_the_insight(edits_stream: Stream, tmp_path: Path) -> None:
    s = edits_stream
    insight_changes(s)
    bob = next((tmp_path / "claude").rglob("agent-abob-*.jsonl"))
    rec = {
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "tn", "type": "tool_result", "content": "ok"}]},
        "timestamp": "2026-11-27T03:00:00.000Z",
        "toolUseResult": {
            "filePath": "/src/app/util.py",
            "oldString": "a",
            "newString": "b",
            "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}],
        },
    }
    with bob.open("a") as fh:
        fh.write(json.dumps(rec) + "\n")
    line = s.until(
        lambda o: o["type"] == "insight" and any(c["path"] == "/src/app/util.py" for c in o["changes"]), "util.py"
    )
    assert {c["path"] for c in line["changes"] if c["member"] == "bob"} == {APP, "/src/app/util.py"}


# ---------------------------------------------------------------------- untrusted, either way


def test_hostile_changes_in_an_insight_are_checked_and_bounded() -> None:
    raw = {
        "changes": [
            {"member": "a\x1b[2J", "path": "/x\nforged line", "added": -5, "removed": "7", "edits": 2**60},
            {"member": "", "path": "/y"},
            {"member": "b", "path": "p" * 100_000, "added": 3, "removed": 1, "counted": False, "last_at": "soon"},
            "not an object",
            {"member": "b", "path": "p" * 100_000, "added": 99},  # the same file again: the first one counts
        ]
        + [{"member": "m", "path": f"/f{i}", "added": 1} for i in range(edits_wire.CHANGES_CAP + 50)]
    }
    changes = edits_wire.read_changes(raw["changes"])
    first, second = changes[0], changes[1]
    assert first.member == "a\ufffd[2J" and first.path == "/x\ufffdforged line"
    assert (first.added, first.removed, first.edits) == (0, 0, 0)
    assert len(second.path) == 4096 and second.unknown and second.last_at is None and second.added == 3
    assert len(changes) <= edits_wire.CHANGES_CAP


def test_a_diff_answer_is_bounded_to_one_line_and_read_back_checked() -> None:
    lines = tuple("+" + "x" * 1500 for _ in range(MAX_DIFF_LINES))
    edits = [Edit("m", "/f", "Write", float(i), len(lines), 0, (Hunk(0, 0, 1, len(lines), lines),)) for i in range(5)]
    out, left_out = edits_wire.diff_json(edits)
    data = wire.dumps({"type": "diff", "id": 1, "member": "m", "path": "/f", "edits": out, "left_out": left_out})
    assert len(data) <= wire.MAX_LINE
    assert not out[0]["hunks"] and out[0]["dropped"]  # the oldest give up their lines first
    kept = len(out[-1]["hunks"][0][4])  # the newest, too long alone, keeps its first lines
    assert 0 < kept < MAX_DIFF_LINES and out[-1]["cut"] == MAX_DIFF_LINES - kept
    hostile = {
        "id": True,
        "member": "m",
        "path": "/f",
        "edits": [
            {"tool": "Edit\x07", "added": -1, "hunks": [[1, 1, 1, 1, ["\x1b]0;x\x07", "z" * 10_000, 5]], "junk"]},
            "not an edit",
        ],
    }
    got = edits_wire.read_diff(hostile)
    assert got is not None and got["id"] is None
    (e,) = got["edits"]
    assert e.tool == "Edit\ufffd" and e.added == 0
    assert e.hunks[0].lines[0] == " \ufffd]0;x\ufffd" and len(e.hunks[0].lines[1]) == MAX_LINE_CHARS
    assert edits_wire.read_diff({"member": "m"}) is None


# ---------------------------------------------------------------------- over a real sshd


async def test_over_ssh_the_counts_arrive_and_a_diff_is_fetched(remote: Remote) -> None:
    copy_tree(EDITS / "teams", remote.claude / "teams")
    copy_tree(EDITS / "projects", remote.claude / "projects")
    proc = subprocess.Popen(
        ["ssh", "-T", *remote.sshd.options(), f"{remote.spec().ssh}", f"{remote.teamtui()} stream --heartbeat 0.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        s = Stream(proc)
        changes = insight_changes(s)
        assert {(c.member, c.added, c.removed) for c in changes} == {("alice", 7, 1), ("bob", 1, 1)}
        team = next(o["team"] for o in s.lines if o["type"] == "team" and o["team"][2] == TEAM)
        s.ask({"id": "r1", "op": "diff", "team": team, "member": "bob", "path": APP})
        got = edits_wire.read_diff(s.until(lambda o: o["type"] == "diff" and o["id"] == "r1", "the diff over ssh", 30))
        assert got is not None
        (bobs,) = got["edits"]
        assert "+    print(greet('team'))" in bobs.hunks[0].lines
        assert s.until(lambda o: o["type"] == "result" and o["id"] == "r1", "its result")["ok"] is True
    finally:
        proc.kill()
        proc.wait()
    # The room's side: a streamed team's changes read through the same TeamChanges as a local one's.
    host = remote.host()
    async with following(host) as feed:
        key = (f"ssh:{host.name}", os.path.realpath(remote.claude), TEAM)

        def rows() -> list:
            session = host.sessions.get(key)
            return changes_of(session).rows() if session is not None else []

        await feed.until(lambda: len(rows()) == 2, "the streamed team's changes, here")
        assert {(r.member, r.shown, r.change.counts) for r in rows()} == {
            ("alice", APP, "+7 -1"),
            ("bob", APP, "+1 -1"),
        }
        session = host.sessions[key]
        assert [n.kind for n in session.state.transcripts.needs_you(0.0)] == ["collision"]


# ---------------------------------------------------------------------- the room's side, on a pipe


def local_stream(tmp_path: Path, claude: Path) -> str:
    """An executable standing in for ssh: it runs this machine's real `teamtui stream` (the real
    Streamer, on the pipe ssh would give) over `claude`, whatever ssh arguments it is given."""
    env = {
        "HOME": str(tmp_path / "there"),
        "CLAUDE_CONFIG_DIR": str(claude),
        "XDG_CONFIG_HOME": str(tmp_path / "there" / ".config"),
        "XDG_STATE_HOME": str(tmp_path / "there" / "state"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    path = tmp_path / "local-ssh"
    path.write_text(
        f"#!{sys.executable}\nimport os, sys\nos.environ.update({env!r})\n"
        f"os.execv(sys.executable, [sys.executable, '-m', 'teamtui', 'stream', '--heartbeat', '0.5'])\n"
    )
    path.chmod(0o755)
    return str(path)


async def test_the_changes_view_of_a_team_elsewhere_fetches_a_diff_through_the_stream(tmp_path: Path) -> None:
    from teamtui.protocol.settings import HostSettings
    from teamtui.session.fleet import Fleet
    from teamtui.session.remote import RemoteHost
    from teamtui.tui.app import TeamTUI
    from teamtui.tui.screens.changes import SEP, ChangesScreen
    from teamtui.tui.screens.dashboard import DashboardScreen
    from teamtui.tui.widgets.diff import DiffLines
    from tests.tui.conftest import until

    from .conftest import empty_local_fleet

    claude = tmp_path / "there" / "claude"
    copy_tree(EDITS, claude)
    host = RemoteHost(HostSettings("box", "me@box"), ssh=local_stream(tmp_path, claude), stall=10.0, heartbeat=0.5)
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), host]),
        config_path=tmp_path / "none.toml",
        cursor_blink=False,
        sync_panes=False,
    )
    key = ("ssh:box", os.path.realpath(claude), TEAM)
    async with app.run_test(size=(160, 40)) as pilot:

        def counted() -> bool:
            session = host.sessions.get(key)
            return session is not None and len(changes_of(session).rows()) == 2

        await until(pilot, counted, "the streamed team's counts", limit=30)
        app.fleet.open_team("\x00".join(key))
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "its dashboard")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ChangesScreen), "its changes view")
        screen = app.screen
        table = screen.query_one("#changes-table")
        table.move_cursor(row=table.get_row_index(f"f{SEP}bob{SEP}{APP}{SEP}seen"))
        diff = screen.query_one("#diff", DiffLines)
        await until(pilot, lambda: "print(greet('team'))" in diff.plain, "bob's diff, fetched from the box", limit=20)
        assert "Edit" in screen.query_one("#diff-title").content.plain or "Edit" in diff.plain
        assert not [n for n in app._notifications if "diff" in str(n.message)]  # the view says it: no toast
        # Back and forth: the diff is kept, not asked for again.
        asked = host._next_id
        table.move_cursor(row=table.get_row_index(f"f{SEP}alice{SEP}{APP}{SEP}seen"))
        await until(pilot, lambda: "def greet(name):" in diff.plain, "alice's diff")
        table.move_cursor(row=table.get_row_index(f"f{SEP}bob{SEP}{APP}{SEP}seen"))
        await until(pilot, lambda: "print(greet('team'))" in diff.plain, "bob's again")
        assert host._next_id == asked + 1  # alice's only
        # A file the other machine knows no change to: said to the view (which says it), no toast.
        said: list = []
        host.sessions[key].actions.diffs.fetch("bob", "/etc/passwd", lambda *a: said.append(a))
        await until(pilot, lambda: bool(said), "the answer")
        assert said == [([], 0, "no change of bob to /etc/passwd is known here")]
        assert not [n for n in app._notifications if "passwd" in str(n.message)]
