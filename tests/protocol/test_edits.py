"""What each teammate changed, read from Claude Code 2.1.332's own transcripts
(tests/fixtures/examples/claude-2.1.332-edits: alice writes then edits app.py, then bob edits it):
the files, their counts and hunks, taken as the lines are read (a first read, a read from the end
and its head, a line appended), bounded, and safe with hostile input."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.claude.transcripts.edits import edits_in
from teamtui.protocol.claude.transcripts.reader import TranscriptReader
from teamtui.protocol.edits import (
    DECLARED,
    GIT,
    MAX_DIFF_LINES,
    SEEN,
    Edit,
    EditLog,
    FileChange,
    Hunk,
    collisions,
)
from teamtui.protocol.state import TeamState
from teamtui.protocol.tail import TailReader
from tests.conftest import EDITS, copy_fixture

TEAM = "session-48868de5"
SUBAGENTS = Path("projects/-src-app/48868de5-8ae7-4125-8599-c28685a97f25/subagents")
ALICE = SUBAGENTS / "agent-aalice-df0585ad00aef93c.jsonl"
BOB = SUBAGENTS / "agent-abob-464809b8192e779c.jsonl"


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    return copy_fixture(EDITS, tmp_path / ".claude")


def read_state(root: Path, *, from_end: bool = False) -> TeamState:
    state = TeamState(ClaudeTeam(root, TEAM))
    state.load_all()
    assert state.transcripts is not None
    state.take_transcripts(state.transcript_files.read(from_end=from_end))
    if from_end:
        state.take_heads(state.count_heads())
    return state


def result_line(tool_use_id: str, result: dict, at: str = "2026-11-27T03:00:00.000Z") -> bytes:
    rec = {
        "parentUuid": "p",
        "isSidechain": True,
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"tool_use_id": tool_use_id, "type": "tool_result", "content": "ok"}],
        },
        "uuid": f"u-{tool_use_id}",
        "timestamp": at,
        "toolUseResult": result,
    }
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


def edit_result(path: str, old: list[str], new: list[str], start: int = 1) -> dict:
    lines = [f"-{x}" for x in old] + [f"+{x}" for x in new]
    return {
        "filePath": path,
        "oldString": "\n".join(old),
        "newString": "\n".join(new),
        "originalFile": None,
        "structuredPatch": [
            {"oldStart": start, "oldLines": len(old), "newStart": start, "newLines": len(new), "lines": lines}
        ],
        "userModified": False,
        "replaceAll": False,
    }


# ---------------------------------------------------------------------- the real files


@pytest.mark.parametrize("from_end", [False, True], ids=["whole", "from-the-end"])
def test_alices_write_and_edit_and_bobs_edit_are_read_with_their_counts_and_hunks(claude: Path, from_end: bool) -> None:
    feed = read_state(claude, from_end=from_end).transcripts
    log = feed.edits
    alice, bob = log.files[("alice", "/src/app/app.py")], log.files[("bob", "/src/app/app.py")]
    # Write (6 lines, a new file) then Edit (one line for one): +7 -1 over two edits
    assert (alice.added, alice.removed, alice.edits, alice.created, alice.unknown) == (7, 1, 2, True, False)
    assert (bob.added, bob.removed, bob.edits, bob.created) == (1, 1, 1, False)
    write, edit = log.edits("alice", "/src/app/app.py")
    assert (write.tool, write.note, write.added, write.removed) == ("Write", "new file", 6, 0)
    assert write.hunks[0].header == "@@ -0,0 +1,6 @@"
    assert write.hunks[0].lines[0] == "+def greet(name):"
    assert (edit.tool, edit.added, edit.removed) == ("Edit", 1, 1)
    assert edit.hunks[0].lines[1:3] == ("-    return 'hello ' + name", "+    return f'hello {name}!'")
    assert write.at is not None and edit.at is not None and write.at < edit.at
    (bobs,) = log.edits("bob", "/src/app/app.py")
    assert bobs.hunks[0].header == "@@ -3,4 +3,4 @@"
    assert "+    print(greet('team'))" in bobs.hunks[0].lines


def test_the_two_teammates_on_app_py_are_one_collision_item_naming_the_file_and_both(claude: Path) -> None:
    state = read_state(claude)
    items = [n for n in state.transcripts.needs_you(time.time()) if n.kind == "collision"]
    assert [(n.text, n.key) for n in items] == [
        ("alice and bob both changed app.py", "collision:/src/app/app.py:alice:bob")
    ]
    # asked again: the same one item (a stable key), not a second
    assert [n.key for n in state.transcripts.needs_you(time.time()) if n.kind == "collision"] == [items[0].key]


def test_a_collision_clears_when_one_of_them_leaves_or_it_is_dismissed(claude: Path) -> None:
    state = read_state(claude)
    feed = state.transcripts
    feed.dismissed.add("collision:/src/app/app.py:alice:bob")
    assert not [n for n in feed.needs_you(time.time()) if n.kind == "collision"]
    state = read_state(claude)
    cfg = claude / "teams" / TEAM / "config.json"
    data = json.loads(cfg.read_text())
    data["members"] = [m for m in data["members"] if m["name"] != "bob"]
    cfg.write_text(json.dumps(data))
    state.apply(cfg)
    assert not [n for n in state.transcripts.needs_you(time.time()) if n.kind == "collision"]


def test_an_edit_appended_is_taken_from_the_offset_and_said_as_a_files_change(claude: Path) -> None:
    state = read_state(claude)
    feed = state.transcripts
    reader = feed.team.readers["bob"]
    before = reader.bytes_read
    path = claude / BOB
    with path.open("ab") as fh:
        fh.write(result_line("toolu_new1", edit_result("/src/app/util.py", ["a"], ["b", "c"])))
    changes = state.apply_batch([path])
    assert [(c.kind, c.key) for c in changes if c.kind == "files"] == [("files", "bob")]
    assert reader.bytes_read - before < 2000  # the new line only, not the file again
    util = feed.edits.files[("bob", "/src/app/util.py")]
    assert (util.added, util.removed, util.edits) == (2, 1, 1)
    # the same line again (a file read from its start after a rewrite): taken once
    assert not feed.edits.add(edits_in(json.loads(result_line("toolu_new1", edit_result("/x", [], ["y"]))))[0])


# ---------------------------------------------------------------------- shapes and bad input


def test_multiedit_and_notebookedit_results_are_edits_and_a_failed_call_is_none() -> None:
    multi = {
        "filePath": "/src/app/m.py",
        "edits": [{"old_string": "a", "new_string": "b"}],
        "originalFileContents": "a\n",
        "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}],
    }
    (e,) = edits_in(json.loads(result_line("t1", multi)))
    assert (e.tool, e.added, e.removed) == ("MultiEdit", 1, 1)
    nb = {"notebook_path": "/src/app/n.ipynb", "cell_id": "c3", "new_source": "x = 1\ny = 2", "edit_mode": "insert"}
    (n,) = edits_in(json.loads(result_line("t2", nb)))
    assert (n.tool, n.added, n.removed, n.note) == ("NotebookEdit", 2, 0, "notebook cell c3 (insert)")
    failed = json.loads(result_line("t3", {}))
    failed["toolUseResult"] = "Error: String to replace not found in file."
    assert edits_in(failed) == []
    assert edits_in(json.loads(result_line("t4", {"stdout": "hi", "stderr": ""}))) == []  # a Bash result


def test_a_binary_write_is_counted_as_not_shown() -> None:
    rec = json.loads(
        result_line(
            "b1", {"type": "create", "filePath": "/src/app/x.bin", "content": "PK\x00\x03", "structuredPatch": []}
        )
    )
    (e,) = edits_in(rec)
    assert (e.added, e.removed, e.hunks, e.note) == (None, None, (), "new file, binary: not shown")
    log = EditLog()
    e.member = "alice"
    log.add(e)
    assert log.files[("alice", "/src/app/x.bin")].counts == "+? -?"


def test_a_large_write_keeps_a_bounded_diff_and_counts_every_line() -> None:
    content = "".join(f"line {i}\n" for i in range(MAX_DIFF_LINES + 500))
    (e,) = edits_in(
        json.loads(
            result_line("w1", {"type": "create", "filePath": "/a.txt", "content": content, "structuredPatch": []})
        )
    )
    assert e.added == MAX_DIFF_LINES + 500
    assert sum(len(h.lines) for h in e.hunks) == MAX_DIFF_LINES and e.cut == 500


def test_a_50_mb_write_is_never_read_whole_but_still_names_its_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    big = "x" * (50 * 1024 * 1024)
    with path.open("wb") as fh:
        fh.write(
            result_line(
                "big1", {"type": "create", "filePath": "/src/app/huge.txt", "content": big, "structuredPatch": []}
            )
        )
        fh.write(result_line("e2", edit_result("/src/app/after.py", ["a"], ["b"])))
    reader = TranscriptReader(path)
    update = reader.read()
    huge, after = update.edits
    assert (huge.path, huge.tool, huge.added, huge.created) == ("/src/app/huge.txt", "Write", None, True)
    assert huge.note.startswith("too large to show (52.4 MB line")
    assert huge.uid == "big1" and huge.at is not None
    assert after.path == "/src/app/after.py"  # the line after it is read as usual
    assert any("skipped (over the limit)" in why for _, why in update.problems)


def test_escapes_markup_and_outside_paths_are_kept_as_data_and_bounded() -> None:
    hostile = "/etc/\x1b]0;pwned\x07[bold]x[/bold]\u202e.py" + "y" * 10_000
    lines = ["\x1b[31mred", "[link=http://x]click[/link]"]
    (e,) = edits_in(json.loads(result_line("h1", edit_result(hostile, ["old"], lines))))
    assert len(e.path) == 4096 and e.path.startswith("/etc/\x1b]0;")  # kept as data; made inert where shown
    assert e.hunks[0].lines[1:] == ("+\x1b[31mred", "+[link=http://x]click[/link]")
    long = edits_in(json.loads(result_line("h2", edit_result("/a", [], ["z" * 100_000]))))[0]
    assert len(long.hunks[0].lines[0]) <= 2000


def test_a_line_too_long_to_read_keeps_its_head_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a" * 100 + b"\n" + b"b" * 3000 + b"\nc\n")
    batch = TailReader(path, max_line_bytes=1000, chunk=700, keep_head=64).read_all()
    assert batch.lines == [b"a" * 100, b"c"]
    assert batch.overlong == [(2, 3000)] and batch.overlong_heads == {2: b"b" * 64}
    plain = TailReader(path, max_line_bytes=1000).read_all()
    assert plain.overlong_heads == {}


# ---------------------------------------------------------------------- the log's bounds


def _edit(member: str, path: str, at: float, lines: int = 10, uid: str = "") -> Edit:
    hunk = Hunk(1, 0, 1, lines, tuple(f"+{'x' * 99}" for _ in range(lines)))
    return Edit(member, path, "Edit", at, lines, 0, (hunk,), uid=uid)


def test_the_log_keeps_counts_whole_and_lets_old_hunks_go_past_its_budget() -> None:
    log = EditLog(kept_chars=100 * 50, per_file=5, max_edits=30)
    for i in range(40):
        log.add(_edit(f"m{i % 4}", f"/f{i % 8}", float(i)))
    assert sum(fc.added for fc in log) == 400  # every edit counted
    assert log.held <= 30 and all(len(log.edits(m, p)) <= 5 for m, p in log.files)
    assert log.chars <= 100 * 50
    newest = log.edits("m3", "/f7")[-1]
    assert newest.hunks and not newest.dropped  # the newest keep their diff; the oldest gave theirs up
    assert len(log._by_age) <= 2 * log.held + 1024


def test_edits_read_out_of_order_are_kept_in_time_order() -> None:
    log = EditLog()
    log.add(_edit("a", "/f", 20.0, uid="2"))
    log.add(_edit("a", "/f", 10.0, uid="1"))  # a head counted after the tail
    assert [e.at for e in log.edits("a", "/f")] == [10.0, 20.0]
    assert not log.add(_edit("a", "/f", 10.0, uid="1"))


def test_the_log_takes_no_more_files_than_its_bound() -> None:
    log = EditLog(max_files=3)
    taken = [log.add(_edit("a", f"/f{i}", float(i))) for i in range(5)]
    assert taken == [True, True, True, False, False] and log.files_left_out == 2


# ---------------------------------------------------------------------- collisions, pure


def fc(member: str, path: str, source: str = SEEN, team: str = "", why: str = "") -> FileChange:
    return FileChange(member, path, source, team=team, why=why)


def test_collisions_one_per_file_and_pair_with_declared_ones_and_none_between_two_declarations() -> None:
    found = collisions(
        [
            ("/r/app.py", fc("alice", "app.py")),
            ("/r/app.py", fc("bob", "app.py", GIT)),
            ("/r/app.py", fc("alice", "app.py", DECLARED, why="task #1")),  # alice also declared it: one party
            ("/r/lib.py", fc("carol", "lib.py", DECLARED, why="task #2")),
            ("/r/lib.py", fc("dave", "lib.py")),
            ("/r/doc.md", fc("erin", "doc.md", DECLARED)),
            ("/r/doc.md", fc("fay", "doc.md", DECLARED)),
        ]
    )
    assert [c.text for c in found] == [
        "alice and bob both changed app.py",
        "dave changed lib.py, which carol declared (task #2)",
    ]
    again = collisions(
        [("/r/app.py", fc("bob", "app.py", GIT)), ("/r/app.py", fc("alice", "app.py"))]
    )  # the other order: the same key
    assert again[0].key == found[0].key


def test_collisions_across_teams_name_both_teams() -> None:
    (c,) = collisions([("/w/a.py", fc("alice", "a.py", team="red")), ("/w/a.py", fc("alice", "a.py", team="blue"))])
    assert c.teams and c.text == "alice (blue) and alice (red) both changed a.py"


def test_a_read_from_the_end_leaves_older_edits_to_the_head_count(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    text = {
        "type": "assistant",
        "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    }
    with path.open("wb") as fh:
        fh.write(result_line("old1", edit_result("/src/app/early.py", ["a"], ["b"])))
        for _ in range(600):
            fh.write(json.dumps(text, separators=(",", ":")).encode() + b"\n")
        fh.write(result_line("new1", edit_result("/src/app/late.py", ["a"], ["b"])))
    reader = TranscriptReader(path, window=100)
    tail = reader.read_tail()
    assert [e.path for e in tail.edits] == ["/src/app/late.py"]  # the window's lines only
    head = reader.count_head()
    assert head is not None and [e.path for e in head.edits] == ["/src/app/early.py"]


def test_the_leads_session_ending_as_its_hook_said_is_its_row_until_it_writes_again(claude: Path) -> None:
    """SessionEnd (protocol/hooks/said.py) is the lead's status at once; a later transcript line wins."""
    from teamtui.protocol.changes import ChangeKind
    from teamtui.protocol.hooks.said import LEAD, said_by
    from teamtui.protocol.models import MemberStatus

    state = read_state(claude)
    lead = state.transcripts.lead_view()
    assert lead is not None and lead.status != MemberStatus.SHUTDOWN
    ended = said_by({"event": "SessionEnd", "session_id": TEAM.removeprefix("session-") + "-0", "at": 2e9})
    assert ended == (TEAM, LEAD, MemberStatus.SHUTDOWN, 2e9)
    changes = state.take_said({LEAD: (ended[2], ended[3])})
    assert [(c.kind, c.key) for c in changes] == [(ChangeKind.MEMBER_STATUS, lead.name)]
    assert state.transcripts.lead_view().status == MemberStatus.SHUTDOWN
    assert state.take_said({LEAD: (MemberStatus.SHUTDOWN, 1.0)}) != []  # older than its transcript: not shown
    assert state.transcripts.lead_view().status == lead.status
