"""Refused names, and a malformed-file corpus: readers never raise, errors say where and why,
and nothing is ever rewritten from a failed parse."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from teamtui.protocol import (
    ClaudeTeam,
    NativeTeam,
    ParseError,
    ReadError,
    TeamState,
    UnsafeNameError,
    check_name,
)
from teamtui.protocol.errors import ProtocolError

BAD_NAMES = ["../x", "a/b", "", "a\x00b", "x" * 65, ".", "..", ".hidden", "-rf", "a b", "a\nb"]
TEAM = "refactor-auth"


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("name", BAD_NAMES)
def test_check_name_refuses(name: str) -> None:
    with pytest.raises(UnsafeNameError):
        check_name(name)


def test_64_characters_is_the_limit() -> None:
    assert check_name("x" * 64) == "x" * 64


@pytest.mark.parametrize("name", BAD_NAMES)
def test_refused_names_touch_no_file_in_the_library(native_root: Path, claude_root: Path, name: str) -> None:
    before_n, before_c = _snapshot(native_root), _snapshot(claude_root)
    with pytest.raises(UnsafeNameError):
        NativeTeam(native_root, name)
    with pytest.raises(UnsafeNameError):
        ClaudeTeam(claude_root, name)
    native = NativeTeam(native_root, TEAM)
    claude = ClaudeTeam(claude_root, "work-team")
    attempts = [
        lambda: native.send(name, "hi", "lead"),
        lambda: native.send("hunter", "hi", name),
        lambda: native.add_member(name),
        lambda: native.log(name, "hi"),
        lambda: native.drain(name),
        lambda: native.peek(name),
        lambda: native.claim_task(None, name),
        lambda: native.create(lead=name),
        lambda: claude.send(name, "hi", "team-lead"),
        lambda: claude.send("writer", "hi", name),
    ]
    for attempt in attempts:
        with pytest.raises(UnsafeNameError):
            attempt()
    assert _snapshot(native_root) == before_n
    assert _snapshot(claude_root) == before_c


def test_content_is_arbitrary_text(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    text = '../../etc/passwd\x00\x1b[2J\n\u202e ünïcode "quotes" {json}'
    store.send("hunter", text, "lead")
    assert store.drain("hunter").messages[-1].content == text


def test_symlinked_inbox_pointing_outside_is_never_written(native_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious\n")
    store = NativeTeam(native_root, TEAM)
    store.inbox_path("scout").unlink()
    store.inbox_path("scout").symlink_to(outside)
    with pytest.raises(ProtocolError):
        store.send("scout", "hi", "lead")
    with pytest.raises(ProtocolError):
        store.drain("scout")
    assert outside.read_bytes() == b"precious\n"


def test_symlinked_logs_dir_pointing_outside_is_never_written(native_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    store = NativeTeam(native_root, TEAM)
    logs = store.logs_dir
    for p in logs.iterdir():
        p.unlink()
    logs.rmdir()
    logs.symlink_to(outside, target_is_directory=True)
    with pytest.raises(ProtocolError):
        store.log("hunter", "hi")
    assert list(outside.iterdir()) == []


# ---------------------------------------------------------------- malformed corpus

# (relative path in the native example root, bytes or "dir") -> what a reader must report.
NATIVE_CORPUS: dict[str, tuple[str, bytes | str]] = {
    "truncated task": (".tasks/task_3.json", b'{"id": "3", "subject": "Upd'),
    "task wrong types": (".tasks/task_3.json", b'{"id": "3", "subject": ["a"], "blocked_by": "2"}'),
    "task bad status": (".tasks/task_3.json", b'{"id": "3", "subject": "x", "status": "sleeping"}'),
    "task non-object": (".tasks/task_3.json", b'["id", "3"]'),
    "task json null": (".tasks/task_3.json", b"null"),
    "task invalid utf-8": (".tasks/task_3.json", b'{"id": "3", "subject": "\xff\xfe"}'),
    "task empty": (".tasks/task_3.json", b""),
    "task NUL": (".tasks/task_3.json", b'{"id": "3"}\x00'),
    "task deep nesting": (".tasks/task_3.json", b"[" * 100000 + b"]" * 100000),
    "task huge int": (".tasks/task_3.json", b'{"id": ' + b"9" * 5000 + b"}"),
    "task id not matching name": (".tasks/task_3.json", b'{"id": "1", "subject": "impostor"}'),
    "task is a directory": (".tasks/task_3.json", "dir"),
    "sidecar truncated": (".tasks/.teamtui/2.json", b'{"files": ['),
    "sidecar non-object": (".tasks/.teamtui/2.json", b"[]"),
    "config truncated": (".teams/refactor-auth/config.json", b'{"name": "refactor-auth", "mem'),
    "config non-object": (".teams/refactor-auth/config.json", b'"refactor-auth"'),
    "config members not a list": (".teams/refactor-auth/config.json", b'{"name": "x", "members": {"a": 1}}'),
    "config member not an object": (".teams/refactor-auth/config.json", b'{"name": "x", "members": ["hunter"]}'),
    "config member name null": (".teams/refactor-auth/config.json", b'{"name": "x", "members": [{"name": null}]}'),
    "config invalid utf-8": (".teams/refactor-auth/config.json", b'{"name": "\xc3\x28"}'),
    "config is a directory": (".teams/refactor-auth/config.json", "dir"),
    "inbox is a directory": (".teams/refactor-auth/hunter_inbox.jsonl", "dir"),
}

INBOX_LINES = (
    b'{"type": "message", "sender": "lead", "content": "good 1", "timestamp": 1.0}\n'
    b'{"type": "message", "sender": "lead", "content": "trunc\n'
    b"[1, 2, 3]\n"
    b"null\n"
    b'{"type": 5, "content": "bad type"}\n'
    b'{"type": "shutdown_response", "sender": "x", "approve": "maybe-not-a-bool", "pending_work": 7}\n'
    b'{"type": "message", "content": "\xff bad utf-8"}\n'
    b"\n"
    b'{"type": "message", "sender": null, "content": null, "timestamp": null}\n'
    b'{"type": "message", "sender": "lead", "content": "good 2", "timestamp": 2.0}\n'
)


def _plant(root: Path, rel: str, content: bytes | str) -> Path:
    path = root / rel
    if path.is_dir():
        path.rmdir()
    elif path.exists():
        path.unlink()
    if content == "dir":
        path.mkdir()
    else:
        path.write_bytes(content)  # type: ignore[arg-type]
    return path


def _read_everything(root: Path) -> list[ReadError]:
    store = NativeTeam(root, TEAM)
    errors: list[ReadError] = []
    cfg = store.load_config()
    if isinstance(cfg, ReadError):
        errors.append(cfg)
    _tasks, task_errors = store.list_tasks()
    errors += task_errors
    for owner in ["hunter", "lead", "scout", "tracer"]:
        errors += store.peek(owner).errors
    state = TeamState(store)
    state.load_all()
    state.member_views()
    _ = state.board.views()
    return errors + state.all_errors()


@pytest.mark.parametrize("case", sorted(NATIVE_CORPUS))
def test_malformed_native_file_never_raises_and_says_where(native_root: Path, case: str) -> None:
    rel, content = NATIVE_CORPUS[case]
    path = _plant(native_root, rel, content)
    errors = _read_everything(native_root)
    mine = [e for e in errors if e.path == path]
    assert mine, f"no error reported for {case}: {errors}"
    assert all(e.reason for e in mine)


@pytest.mark.parametrize("case", sorted(NATIVE_CORPUS))
def test_malformed_native_file_is_never_rewritten(native_root: Path, case: str) -> None:
    rel, content = NATIVE_CORPUS[case]
    _plant(native_root, rel, content)
    before = _snapshot(native_root)
    store = NativeTeam(native_root, TEAM)
    attempts = [
        lambda: store.update_member("hunter", status="idle"),
        lambda: store.add_member("newbie"),
        lambda: store.update_task("3", subject="changed"),
        lambda: store.complete_task("3"),
        lambda: store.release_task("3"),
    ]
    for attempt in attempts:
        try:
            attempt()
        except ProtocolError:
            pass
        except OSError:
            pass  # e.g. the inbox is a directory
    after = _snapshot(native_root)
    for key, data in before.items():
        if key.startswith(".tasks/.teamtui/") and not rel.startswith(".tasks/.teamtui/"):
            continue  # sidecars of healthy tasks may change
        if key == rel or key.startswith(rel + "/"):
            assert after.get(key) == data, f"{case}: {key} was rewritten"


def test_update_member_on_a_broken_config_raises_and_keeps_the_bytes(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    broken = b'{"name": "refactor-auth", "members": [{"name": "hunter", "status": "act'
    store.config_path.write_bytes(broken)
    with pytest.raises(ParseError) as info:
        store.update_member("hunter", status="idle")
    assert info.value.error.path == store.config_path
    assert store.config_path.read_bytes() == broken
    assert not (store.team_dir / "config.lock").exists()


def test_claim_skips_a_broken_task_file_and_leaves_it_alone(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    broken = b'{"id": "3", "subject": "half'
    store.task_path("3").write_bytes(broken)
    assert store.claim_task(None, "scout") is None  # 3 was the only ready task
    with pytest.raises(ParseError):
        store.claim_task("3", "scout")
    assert store.task_path("3").read_bytes() == broken


def test_create_task_never_reuses_the_id_of_a_broken_task_file(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.task_path("5").write_bytes(b"not json")
    assert store.create_task("new").id == "6"
    assert store.task_path("5").read_bytes() == b"not json"


def test_malformed_inbox_lines_are_errors_with_line_numbers(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.inbox_path("hunter").write_bytes(INBOX_LINES)
    read = store.peek("hunter")
    assert [m.content for m in read.messages] == ["good 1", "", "good 2"]
    assert sorted(e.line for e in read.errors) == [2, 3, 4, 5, 6, 7, 8]
    assert all(e.path == store.inbox_path("hunter") and e.reason for e in read.errors)
    state = TeamState(store)
    state.load_all()
    assert {e.line for e in state.errors[store.inbox_path("hunter")]} == {2, 3, 4, 5, 6, 7, 8}


def test_drain_keeps_malformed_lines_aside_so_nothing_is_lost(native_root: Path) -> None:
    store = NativeTeam(native_root, TEAM)
    store.inbox_path("hunter").write_bytes(INBOX_LINES)
    read = store.drain("hunter")
    assert [m.content for m in read.messages] == ["good 1", "", "good 2"]
    assert len(read.errors) == 7
    rejected = (store.team_dir / ".rejected" / "hunter_inbox.jsonl").read_bytes()
    lines = INBOX_LINES.split(b"\n")
    assert rejected.split(b"\n")[:-1] == [lines[i] for i in (1, 2, 3, 4, 5, 6, 7)]
    assert store.inbox_path("hunter").read_bytes() == b""


CLAUDE_CORPUS: dict[str, tuple[str, bytes | str]] = {
    "config truncated": ("teams/work-team/config.json", b'{"name": "work-team", "members": [{"agentId"'),
    "config non-object": ("teams/work-team/config.json", b"[]"),
    "config member not object": ("teams/work-team/config.json", b'{"members": [1]}'),
    "inbox not an array": ("teams/work-team/inboxes/writer.json", b'{"from": "x"}'),
    "inbox truncated": ("teams/work-team/inboxes/writer.json", b'[{"from": "team-lead", "te'),
    "inbox invalid utf-8": ("teams/work-team/inboxes/writer.json", b'[{"text": "\xff"}]'),
    "inbox is a directory": ("teams/work-team/inboxes/writer.json", "dir"),
    "task truncated": ("tasks/work-team/4.json", b'{"id": "4", "subj'),
    "task wrong types": ("tasks/work-team/4.json", b'{"id": "4", "blockedBy": 2}'),
    "task null": ("tasks/work-team/4.json", b"null"),
    "task is a directory": ("tasks/work-team/4.json", "dir"),
}


@pytest.mark.parametrize("case", sorted(CLAUDE_CORPUS))
def test_malformed_claude_file_never_raises_and_is_not_rewritten(claude_root: Path, case: str) -> None:
    rel, content = CLAUDE_CORPUS[case]
    path = _plant(claude_root, rel, content)
    before = _snapshot(claude_root)
    store = ClaudeTeam(claude_root, "work-team")
    errors: list[ReadError] = []
    cfg = store.load_config()
    if isinstance(cfg, ReadError):
        errors.append(cfg)
    errors += store.list_tasks()[1]
    for owner in store.inbox_owners():
        errors += store.peek(owner).errors
    state = TeamState(store)
    state.load_all()
    errors += state.all_errors()
    assert any(e.path == path and e.reason for e in errors), errors
    # A writer refuses to rewrite what it could not parse.
    if "inbox" in case:
        with pytest.raises((ProtocolError, OSError)):
            store.send("writer", "hi", "team-lead")
    assert _snapshot(claude_root) == before


def test_claude_entry_errors_carry_their_index(claude_root: Path) -> None:
    store = ClaudeTeam(claude_root, "work-team")
    path = store.inbox_path("writer")
    path.write_text(json.dumps([{"from": "a", "text": "ok"}, "not an object", {"from": "b", "text": "ok2"}]))
    read = store.peek("writer")
    assert [m.content for m in read.messages] == ["ok", "ok2"]
    assert [(e.path, e.line) for e in read.errors] == [(path, 2)]


def test_unreadable_file_is_an_error_item(native_root: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    store = NativeTeam(native_root, TEAM)
    store.task_path("3").chmod(0)
    _tasks, errors = store.list_tasks()
    assert [(e.path, e.reason) for e in errors] == [(store.task_path("3"), "permission denied")]
