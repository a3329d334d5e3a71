"""The hostile-file corpus: named cases that plant one bad file (or line) into a copy of the
example team, across every format of both layouts. Generated at test time; nothing big is committed.

Each case says which file it spoils (`target`, relative to the layout's root) and whether a reader
must report that file as unreadable (`expect_error`). Everything the case does not spoil must still
be shown: the other members, tasks and messages of the example team.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BIG_LINE_BYTES = 50 * 1024 * 1024  # one 50 MB line, written into tmp at test time
HUGE_INBOX_LINES = 100_000
# The Claude array is re-parsed whole on every read (as Claude Code rewrites it whole): 20,000 keeps
# the always-on run short; the 100,000 case is the native inbox.
HUGE_CLAUDE_ENTRIES = 20_000
DEEP = 100_000

NATIVE_TEAM = "refactor-auth"
CLAUDE_TEAM = "work-team"
N_CFG = f".teams/{NATIVE_TEAM}/config.json"
N_INBOX = f".teams/{NATIVE_TEAM}/hunter_inbox.jsonl"
N_TASK = ".tasks/task_9.json"  # a new task beside the five good ones
N_SIDE = ".tasks/.teamtui/2.json"
N_LOGJ = f".teams/{NATIVE_TEAM}/logs/hunter.jsonl"
N_LOGP = f".teams/{NATIVE_TEAM}/logs/hunter.log"
C_CFG = f"teams/{CLAUDE_TEAM}/config.json"
C_INBOX = f"teams/{CLAUDE_TEAM}/inboxes/writer.json"
C_TASK = f"tasks/{CLAUDE_TEAM}/9.json"
C_HWM = f"tasks/{CLAUDE_TEAM}/.highwatermark"

GOOD_LINE = b'{"type": "message", "sender": "lead", "content": "still here", "timestamp": 5.0}\n'
PASSWD = b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"

# Content kinds besides plain bytes.
DIR, FIFO, DEVZERO, OUTSIDE, UNREADABLE = "dir", "fifo", "devzero", "outside", "unreadable"


@dataclass(frozen=True)
class Case:
    name: str
    layout: str  # "native" | "claude"
    target: str  # the spoiled file, relative to the root
    content: bytes | str | Callable[[], bytes]  # bytes, a kind above, or a generator for big content
    expect_error: bool = True
    append: bool = False  # add to the end of the existing file instead of replacing it
    big: bool = False  # 50 MB or more: the test removes it afterwards

    @property
    def id(self) -> str:
        return f"{self.layout}:{self.name}"

    @property
    def kind(self) -> str:
        t = self.target
        if t.endswith("config.json"):
            return "config"
        if "inbox" in t:
            return "inbox"
        if "/logs/" in t:
            return "log"
        if ".teamtui" in t:
            return "sidecar"
        if ".highwatermark" in t:
            return "highwatermark"
        return "task"


def _deep_array() -> bytes:
    return b"[" * DEEP + b"]" * DEEP


def _deep_object() -> bytes:
    return b'{"a":' * DEEP + b"1" + b"}" * DEEP


def _big_json_string_line() -> bytes:
    # One 50 MB JSON line: a message whose content is a huge string.
    head = b'{"type": "message", "sender": "lead", "content": "'
    return head + b"x" * (BIG_LINE_BYTES - len(head) - 3) + b'"}\n'


def _big_junk() -> bytes:
    return b"A" * BIG_LINE_BYTES


def _huge_inbox() -> bytes:
    return b"".join(
        b'{"type": "message", "sender": "scout", "content": "m%d", "timestamp": %d.5}\n' % (i, i)
        for i in range(HUGE_INBOX_LINES)
    )


def _huge_claude_inbox() -> bytes:
    entries = [
        {"from": "team-lead", "text": f"m{i}", "timestamp": "2026-02-14T21:39:20.118Z", "read": i % 2 == 0}
        for i in range(HUGE_CLAUDE_ENTRIES)
    ]
    return json.dumps(entries).encode()


def _n_task(body: str) -> bytes:
    return body.encode()


def _cases() -> list[Case]:
    c: list[Case] = []

    def add(layout: str, target: str, name: str, content, **kw) -> None:
        c.append(Case(name, layout, target, content, **kw))

    # ------------------------------------------------------------------ native config.json
    for name, content in [
        ("config truncated", b'{"name": "refactor-auth", "members": [{"name": "hun'),
        ("config empty", b""),
        ("config null", b"null"),
        ("config array", b"[1, 2]"),
        ("config wrong types", b'{"name": 5, "members": "hunter"}'),
        ("config member null", b'{"name": "refactor-auth", "members": [null]}'),
        ("config member name int", b'{"name": "refactor-auth", "members": [{"name": 7}]}'),
        ("config NUL byte", b'{"name": "refactor-\x00auth", "members": []}'),
        ("config invalid utf-8", b'{"name": "\xc3\x28", "members": []}'),
        ("config deep nesting 100k", _deep_object),
        ("config huge int 5000 digits", b'{"name": "x", "created_at": ' + b"9" * 5000 + b"}"),
        ("config 50MB single line", _big_junk),
        ("config is a directory", DIR),
        ("config symlink out of root", OUTSIDE),
        ("config symlink to /dev/zero", DEVZERO),
        ("config is a FIFO", FIFO),
        ("config no read permission", UNREADABLE),
    ]:
        add("native", N_CFG, name, content, big=content is _big_junk)
    # Readable configs with hostile values: shown, the odd part reported.
    add(
        "native",
        N_CFG,
        "config duplicate member names",
        b'{"name": "refactor-auth", "members": [{"name": "hunter", "status": "active"}, {"name": "hunter"},'
        b' {"name": "scout"}, {"name": "tracer"}]}',
    )
    add(
        "native",
        N_CFG,
        "config unsafe member name",
        b'{"name": "refactor-auth", "members": [{"name": "../../evil"}, {"name": "hunter"}, {"name": "scout"},'
        b' {"name": "tracer"}]}',
    )
    add(
        "native",
        N_CFG,
        "config huge float 1e400 and lone surrogate",
        expect_error=False,
        content=b'{"name": "refactor-auth", "created_at": 1e400, "description": "\\ud800", "members": ['
        b'{"name": "hunter", "joined_at": 1e400}, {"name": "scout"}, {"name": "tracer"}]}',
    )

    # ------------------------------------------------------------------ native task_<id>.json
    for name, content in [
        ("task truncated", b'{"id": "9", "subject": "half'),
        ("task empty", b""),
        ("task null", b"null"),
        ("task array", b'["id", "9"]'),
        ("task wrong types", b'{"id": "9", "subject": ["a"], "blocked_by": "2", "owner": 5}'),
        ("task bad status", b'{"id": "9", "subject": "x", "status": "sleeping"}'),
        ("task NUL byte", b'{"id": "9", "subject": "a\x00b"}'),
        ("task invalid utf-8", b'{"id": "9", "subject": "\xff\xfe"}'),
        ("task deep nesting 100k", _deep_array),
        ("task huge int 5000 digits", b'{"id": ' + b"9" * 5000 + b"}"),
        ("task duplicate id of task 3", b'{"id": "3", "subject": "impostor", "status": "pending"}'),
        ("task id superscript digit", '{"id": "\u00b2", "subject": "odd"}'.encode()),
        ("task 50MB single line", _big_junk),
        ("task is a directory", DIR),
        ("task symlink out of root", OUTSIDE),
        ("task symlink to /dev/zero", DEVZERO),
        ("task is a FIFO", FIFO),
        ("task no read permission", UNREADABLE),
    ]:
        add("native", N_TASK, name, content, big=content is _big_junk)
    add(
        "native",
        ".tasks/task_03.json",
        "task leading-zero name duplicates task 3",
        b'{"id": "03", "subject": "shadow of 3", "status": "pending"}',
    )
    add(
        "native",
        N_TASK,
        "task huge numbers elsewhere",
        expect_error=False,
        content=b'{"id": "9", "subject": "big", "blocked_by": [' + b"1" * 400 + b'], "extra": 1e400}',
    )

    # ------------------------------------------------------------------ native sidecar
    for name, content in [
        ("sidecar truncated", b'{"files": ["a'),
        ("sidecar array", b"[]"),
        ("sidecar wrong types", b'{"files": 5, "created_at": "yesterday"}'),
        ("sidecar NUL byte", b'{"files": []}\x00'),
        ("sidecar is a directory", DIR),
        ("sidecar is a FIFO", FIFO),
    ]:
        add("native", N_SIDE, name, content)

    # ------------------------------------------------------------------ native inbox (bad lines after good ones)
    for name, content in [
        ("inbox truncated line", b'{"type": "message", "sender": "lead", "cont\n'),
        ("inbox wrong types", b'{"type": 5, "sender": [], "content": {"a": 1}}\n'),
        ("inbox null line", b"null\n"),
        ("inbox NUL byte", b'{"type": "message", "content": "a\x00b"}\n'),
        ("inbox invalid utf-8", b'{"type": "message", "content": "\xff"}\n'),
        ("inbox deep nesting 100k", _deep_array() + b"\n"),
        ("inbox huge int 5000 digits", b'{"type": "message", "timestamp": ' + b"9" * 5000 + b"}\n"),
        ("inbox bad protocol payload", b'{"type": "shutdown_response", "approve": "maybe", "pending_work": 7}\n'),
    ]:
        add("native", N_INBOX, name, content + GOOD_LINE, append=True)
    add(
        "native",
        N_INBOX,
        "inbox huge int 400 digits and 1e400",
        expect_error=False,
        append=True,
        content=b'{"type": "message", "sender": "x", "content": "big", "timestamp": ' + b"9" * 400 + b"}\n"
        b'{"type": "message", "sender": "y", "content": "inf", "timestamp": 1e400}\n' + GOOD_LINE,
    )
    add(
        "native",
        N_INBOX,
        "inbox timestamps beyond time_t",
        expect_error=False,
        append=True,
        content=b'{"type": "message", "sender": "x", "content": "big", "timestamp": 1e300}\n'
        b'{"type": "message", "sender": "y", "content": "small", "timestamp": -1e300}\n'
        b'{"type": "message", "sender": "z", "content": "nan", "timestamp": NaN}\n' + GOOD_LINE,
    )
    add(
        "native",
        N_INBOX,
        "inbox half-written last line",
        expect_error=False,
        append=True,
        content=GOOD_LINE + b'{"type": "message", "sender": "lead", "content": "not yet',
    )
    add("native", N_INBOX, "inbox 50MB single line", lambda: _big_json_string_line() + GOOD_LINE, append=True, big=True)
    add("native", N_INBOX, "inbox 100000 lines", _huge_inbox, expect_error=False)
    for name, content in [
        ("inbox is a directory", DIR),
        ("inbox symlink to /dev/zero", DEVZERO),
        ("inbox is a FIFO", FIFO),
        ("inbox symlink out of root", OUTSIDE),
        ("inbox no read permission", UNREADABLE),
    ]:
        add("native", N_INBOX, name, content)

    # ------------------------------------------------------------------ native logs
    add(
        "native",
        N_LOGJ,
        "log jsonl garbage lines are plain entries",
        expect_error=False,
        append=True,
        content=b'{"ts": "x", "level": 5, "text": null}\nnot json at all\n\xff\xfe\x00\n' + _deep_array() + b"\n",
    )
    add(
        "native",
        N_LOGJ,
        "log jsonl timestamps beyond time_t",
        expect_error=False,
        append=True,
        content=b'{"ts": 1e400, "level": "info", "text": "inf"}\n{"ts": 1e300, "level": "info", "text": "big"}\n'
        b'{"ts": -1e300, "level": "info", "text": "small"}\n{"ts": NaN, "level": "info", "text": "nan"}\n',
    )
    add("native", N_LOGJ, "log jsonl 50MB single line", lambda: _big_junk() + b"\n", append=True, big=True)
    add("native", N_LOGP, "log plain 50MB single line", lambda: _big_junk() + b"\n", big=True)
    for name, content in [
        ("log jsonl is a directory", DIR),
        ("log jsonl is a FIFO", FIFO),
        ("log plain symlink to /dev/zero", DEVZERO),
        ("log plain no read permission", UNREADABLE),
    ]:
        add("native", N_LOGJ if "jsonl" in name else N_LOGP, name, content)

    # ------------------------------------------------------------------ claude config.json
    for name, content in [
        ("config truncated", b'{"name": "work-team", "members": [{"agentId"'),
        ("config null", b"null"),
        ("config array", b"[]"),
        ("config members wrong type", b'{"name": "work-team", "members": {"a": 1}}'),
        ("config member name null", b'{"name": "work-team", "members": [{"name": null}]}'),
        ("config NUL byte", b'{"name": "work\x00team"}'),
        ("config invalid utf-8", b'{"name": "\xed\xa0\x80"}'),
        ("config deep nesting 100k", _deep_array),
        ("config 50MB single line", _big_junk),
        ("config is a directory", DIR),
        ("config symlink to /dev/zero", DEVZERO),
        ("config is a FIFO", FIFO),
    ]:
        add("claude", C_CFG, name, content, big=content is _big_junk)
    add(
        "claude",
        C_CFG,
        "config huge times and ids",
        expect_error=False,
        content=b'{"name": "work-team", "createdAt": ' + b"9" * 400 + b', "leadAgentId": "team-lead@work-team",'
        b' "members": [{"agentId": "team-lead@work-team", "name": "team-lead", "joinedAt": 1e400},'
        b' {"agentId": "researcher@work-team", "name": "researcher", "joinedAt": ' + b"9" * 400 + b"},"
        b' {"agentId": "writer@work-team", "name": "writer", "isActive": "yes"}]}',
    )

    # ------------------------------------------------------------------ claude inbox array
    for name, content in [
        ("inbox not an array", b'{"from": "team-lead"}'),
        ("inbox truncated", b'[{"from": "team-lead", "te'),
        ("inbox entries wrong types", b'[{"from": "a", "text": "ok"}, 5, null, {"from": "b", "text": "ok2"}]'),
        ("inbox invalid utf-8", b'[{"text": "\xff"}]'),
        ("inbox NUL byte", b'[{"text": "a"}]\x00'),
        ("inbox deep nesting 100k", _deep_array),
        ("inbox 50MB single line", _big_junk),
        ("inbox is a directory", DIR),
        ("inbox symlink to /dev/zero", DEVZERO),
        ("inbox is a FIFO", FIFO),
    ]:
        add("claude", C_INBOX, name, content, big=content is _big_junk)
    add(
        "claude",
        C_INBOX,
        "inbox odd values",
        expect_error=False,
        content=b'[{"from": {"x": 1}, "text": ["a"], "timestamp": ' + b"9" * 400 + b', "read": "no"},'
        b' {"from": "team-lead", "text": "{\\"type\\": \\"shutdown_request\\", \\"reason\\": 5}", "timestamp": 1e400},'
        b' {"from": "team-lead", "text": "\\ud800 lone surrogate"}]',
    )
    add(
        "claude",
        C_INBOX,
        "inbox timestamps beyond time_t",
        expect_error=False,
        content=b'[{"from": "team-lead", "text": "big", "timestamp": 1e300}, {"from": "team-lead", "text": "small",'
        b' "timestamp": -1e300}, {"from": "team-lead", "text": "nan", "timestamp": NaN},'
        b' {"from": "team-lead", "text": "iso", "timestamp": "99999-01-01T00:00:00Z"}]',
    )
    add("claude", C_INBOX, "inbox 20000 entries", _huge_claude_inbox, expect_error=False)

    # ------------------------------------------------------------------ claude task
    for name, content in [
        ("task truncated", b'{"id": "9", "subj'),
        ("task null", b"null"),
        ("task wrong types", b'{"id": "9", "blockedBy": 2, "metadata": []}'),
        ("task huge int id 5000 digits", b'{"id": ' + b"9" * 5000 + b"}"),
        ("task duplicate id of task 3", b'{"id": "3", "subject": "impostor"}'),
        ("task id superscript digit", '{"id": "\u00b2"}'.encode()),
        ("task is a directory", DIR),
        ("task symlink to /dev/zero", DEVZERO),
        ("task is a FIFO", FIFO),
        ("task symlink out of root", OUTSIDE),
    ]:
        add("claude", C_TASK, name, content)

    # ------------------------------------------------------------------ claude .highwatermark (never parsed by teamtui)
    add("claude", C_HWM, "highwatermark garbage", b"\xff\x00 not a number" * 10, expect_error=False)
    add("claude", C_HWM, "highwatermark is a FIFO", FIFO, expect_error=False)
    return c


CASES: list[Case] = _cases()


def plant(case: Case, root: Path, outside: Path) -> Path:
    """Spoil `case.target` under `root`; `outside` is a directory outside the root. Returns the path."""
    path = root / case.target
    path.parent.mkdir(parents=True, exist_ok=True)
    content = case.content() if callable(case.content) else case.content
    if case.append and isinstance(content, bytes):
        with open(path, "ab") as fh:
            fh.write(content)
        return path
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        for p in path.iterdir():
            p.unlink()
        path.rmdir()
    if content == DIR:
        path.mkdir()
    elif content == FIFO:
        os.mkfifo(path)
    elif content == DEVZERO:
        path.symlink_to("/dev/zero")
    elif content == OUTSIDE:
        target = outside / "passwd"
        target.write_bytes(PASSWD)
        path.symlink_to(target)
    elif content == UNREADABLE:
        # Created with mode 0, so a watcher never sees it readable (a later chmod may go unnoticed).
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0)
        with os.fdopen(fd, "wb") as fh:
            fh.write(b'{"id": "9"}' if case.kind == "task" else b"{}")
    else:
        assert isinstance(content, bytes)
        path.write_bytes(content)
    return path
