"""Whole or absent: a write to a file another program reads never leaves half a line, on a real
full disk (a tiny tmpfs); and a torn line already in a file, whoever wrote it, hides nothing after it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.state import TeamState
from tests.conftest import EXAMPLES, Run
from tests.tinydisk import fill, snapshot, tiny_disk

TEAM = "refactor-auth"
BIG = "x" * 12_000  # the send: larger than the 4 KiB left on the disk


@pytest.fixture
def disk(tmp_path: Path):
    with tiny_disk(tmp_path / "disk", size_kb=512) as d:
        yield d


@pytest.fixture
def native_disk(disk: Path) -> Path:
    root = disk / "native"
    shutil.copytree(EXAMPLES / "native", root)
    return root


@pytest.fixture
def claude_disk(disk: Path) -> Path:
    root = disk / "claude"
    shutil.copytree(EXAMPLES / "claude", root)
    return root


def inbox_json(cli: Run, root: Path, name: str) -> dict:
    code, out, err = cli("inbox", name, "--json", "--root", str(root))
    assert code == 0, err
    return json.loads(out)


# ---------------------------------------------------------------------------- the CLI on a full disk

NATIVE_WRITES = [
    pytest.param(("send", "hunter", BIG), 4096, id="send-4k-free"),
    pytest.param(("send", "hunter", BIG), 8192, id="send-8k-free"),
    pytest.param(("send", "hunter", "short"), 0, id="send-nothing-free"),
    pytest.param(("broadcast", BIG, "--from", "hunter"), 4096, id="broadcast-4k-free"),
    pytest.param(("log", "hunter", BIG), 4096, id="log-4k-free"),
    pytest.param(("task", "create", "subject", "--description", BIG), 4096, id="task-create-4k-free"),
    pytest.param(("team", "add", "newcomer"), 0, id="team-add-nothing-free"),
]


@pytest.mark.parametrize(("argv", "leave"), NATIVE_WRITES)
def test_a_native_write_on_a_full_disk_is_refused_and_changes_no_file(
    cli: Run, native_disk: Path, argv: tuple[str, ...], leave: int
) -> None:
    fill(native_disk.parent, leave)
    before = snapshot(native_disk)
    code, out, err = cli(*argv, "--root", str(native_disk))
    assert code == 1, (out, err)
    assert err.startswith("teamtui: ") and "No space left on device" in err, err
    # Every file as it was, byte for byte: no torn line, no lock or temp file left behind.
    assert snapshot(native_disk) == before


@pytest.mark.parametrize(("name", "leave"), [("researcher", 4096), ("writer", 0)])
def test_a_claude_send_on_a_full_disk_is_refused_and_changes_no_file(
    cli: Run, claude_disk: Path, name: str, leave: int
) -> None:
    """`writer` has no inbox yet: its first message creates one, and on a full disk leaves none
    (an empty `writer.json` is what Claude Code would choke on)."""
    (claude_disk / "teams/work-team/inboxes/writer.json").unlink()
    fill(claude_disk.parent, leave)
    before = snapshot(claude_disk)
    code, out, err = cli("send", name, BIG, "--root", str(claude_disk))
    assert code == 1 and "No space left on device" in err, (out, err)
    assert snapshot(claude_disk) == before


def test_the_next_send_after_space_is_freed_is_whole_and_shown(cli: Run, native_disk: Path) -> None:
    """The issue's sequence: a refused send, space freed, the next send must read back."""
    old = [m["content"] for m in inbox_json(cli, native_disk, "hunter")["messages"]]
    filler = fill(native_disk.parent, 4096)
    assert cli("send", "hunter", BIG, "--root", str(native_disk))[0] == 1
    filler.unlink()
    assert cli("send", "hunter", "after the disk was freed", "--root", str(native_disk))[0] == 0
    read = inbox_json(cli, native_disk, "hunter")
    assert [m["content"] for m in read["messages"]] == [*old, "after the disk was freed"]
    assert read["errors"] == []
    assert (native_disk / ".teams" / TEAM / "hunter_inbox.jsonl").read_bytes().endswith(b"}\n")


# ---------------------------------------------------------------------------- torn lines already there


def _line(content: str, sender: str = "scout") -> bytes:
    return json.dumps({"type": "message", "sender": sender, "content": content, "timestamp": 1.0}).encode()


def test_a_writer_starts_its_line_on_a_fresh_line_after_a_torn_one(native_root: Path) -> None:
    inbox = native_root / ".teams" / TEAM / "hunter_inbox.jsonl"
    old = [m.content for m in NativeTeam(native_root, TEAM).peek("hunter").messages]
    with open(inbox, "ab") as fh:
        fh.write(_line("cut short")[:25])  # someone's write, cut short by a full disk or a kill
    store = NativeTeam(native_root, TEAM)
    store.send("hunter", "after the tear", "lead")
    read = store.peek("hunter")
    assert [m.content for m in read.messages] == [*old, "after the tear"]
    assert len(read.errors) == 1 and read.errors[0].line == len(old) + 1


def test_a_line_glued_onto_a_torn_one_is_recovered(native_root: Path, cli: Run) -> None:
    """`{"type":"mes{"type":"message",...}`: another writer appended right after a tear."""
    inbox = native_root / ".teams" / TEAM / "hunter_inbox.jsonl"
    store = NativeTeam(native_root, TEAM)
    old = [m.content for m in store.peek("hunter").messages]
    nested = json.dumps(
        {"type": "message", "sender": "scout", "content": 'glued {"a": 1}', "timestamp": 2.0, "extra": {"b": [{}]}}
    ).encode()
    with open(inbox, "ab") as fh:
        fh.write(_line("torn")[:13] + nested + b"\n" + _line("next") + b"\n")
    want = [*old, 'glued {"a": 1}', "next"]

    read = store.peek("hunter")
    assert [m.content for m in read.messages] == want
    assert len(read.errors) == 1 and "cut short" in read.errors[0].reason

    # The dashboard's reader says the same, line number and all.
    state = TeamState(NativeTeam(native_root, TEAM))
    state.load_all()
    assert [m.content for m in state.messages if m.recipient == "hunter"][-3:] == want[-3:]
    assert [e.line for e in state.errors[inbox]] == [len(old) + 1]

    # So does `teamtui inbox`, and a drain keeps the torn piece aside instead of losing it.
    assert [m["content"] for m in inbox_json(cli, native_root, "hunter")["messages"]] == want
    drained = store.drain("hunter")
    assert [m.content for m in drained.messages] == want
    rejected = native_root / ".teams" / TEAM / ".rejected" / "hunter_inbox.jsonl"
    assert rejected.read_bytes() == _line("torn")[:13] + b"\n"


def test_a_torn_line_that_is_not_json_at_all_still_hides_nothing(native_root: Path) -> None:
    inbox = native_root / ".teams" / TEAM / "hunter_inbox.jsonl"
    store = NativeTeam(native_root, TEAM)
    old = [m.content for m in store.peek("hunter").messages]
    with open(inbox, "ab") as fh:
        fh.write(b"\xe2\x82" + b"{" * 300 + _line("after junk") + b"\n")  # a cut multi-byte char, then braces
    read = store.peek("hunter")
    assert [m.content for m in read.messages] == [*old, "after junk"]
    assert len(read.errors) == 1


def test_a_broadcast_cut_short_says_who_already_has_it(cli: Run, native_root: Path) -> None:
    lead_inbox = native_root / ".teams" / TEAM / "lead_inbox.jsonl"
    lead_inbox.unlink()
    os.mkfifo(lead_inbox)  # scout is written first, then the lead's inbox cannot be
    code, out, err = cli("broadcast", "all hands", "--from", "hunter", "--root", str(native_root))
    assert code == 1 and "the broadcast stopped at lead" in err and "scout already has it" in err, err
    assert inbox_json(cli, native_root, "scout")["messages"][-1]["content"] == "all hands"


def test_a_log_line_glued_onto_a_torn_one_is_shown(native_root: Path) -> None:
    log = native_root / ".teams" / TEAM / "logs" / "hunter.jsonl"
    whole = json.dumps({"ts": 5.0, "level": "info", "text": "glued log line"}).encode()
    with open(log, "ab") as fh:
        fh.write(b'{"ts": 4.0, "level": "info", "te' + whole + b"\n")
    state = TeamState(NativeTeam(native_root, TEAM))
    state.load_all()
    buf = state.logs["hunter"]
    assert buf.entry(buf.total - 1).text == "glued log line"


def test_a_history_record_glued_onto_a_torn_one_is_read(tmp_path: Path) -> None:
    from teamtui.protocol.claude.journal import read_records

    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"kind": "team", "name": "t"}\n{"kind": "mess' + b'{"kind": "message", "text": "kept"}\n')
    assert [r["kind"] for r in read_records(path)] == ["team", "message"]
