"""Hypothesis fuzzes every parser with arbitrary bytes and arbitrary JSON values: each returns its
value or its documented error (a ReadError item, or ParseError from the two decode_* that raise it),
and whatever it returns can be printed by the CLI (inert, strict UTF-8) without raising."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamtui.cli.common import inert
from teamtui.protocol.text import UNSAFE_TERMINAL
from teamtui.protocol.board import Board
from teamtui.protocol.claude import ClaudeTeam, parse_time
from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.fsio import parse_json_bytes
from teamtui.protocol.models import LogEntry, Message, Task, TeamConfig
from teamtui.protocol.native import NativeTeam, decode_message_dict, decode_task_dict
from teamtui.protocol.store.logs import log_entry
from teamtui.protocol.tail import TailReader

ROOT = Path(tempfile.gettempdir()) / "teamtui-fuzz-never-written"
NATIVE = NativeTeam(ROOT, "fuzz")
CLAUDE = ClaudeTeam(ROOT, "fuzz")
P = ROOT / "x.json"
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = [
    "id",
    "subject",
    "description",
    "status",
    "active_form",
    "activeForm",
    "owner",
    "blocks",
    "blocked_by",
    "blockedBy",
    "files",
    "metadata",
    "_internal",
    "created_at",
    "result",
    "name",
    "members",
    "lead",
    "agent_id",
    "agentId",
    "agentType",
    "joinedAt",
    "isActive",
    "tmuxPaneId",
    "leadAgentId",
    "createdAt",
    "pid",
    "last_seen",
    "type",
    "sender",
    "content",
    "timestamp",
    "from",
    "text",
    "read",
    "summary",
    "color",
    "request_id",
    "requestId",
    "approve",
    "pending_work",
    "deadline_seconds",
    "reason",
    "ts",
    "level",
    "message",
]
TYPES = [
    "message",
    "broadcast",
    "shutdown_request",
    "shutdown_response",
    "shutdown_approved",
    "idle_notification",
    "task_assignment",
    "plan_approval_request",
    "plan_approval_response",
    "permission_request",
    "odd",
]
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=20)  # surrogates included
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**400), 10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | any_text
    | st.sampled_from(TYPES + ["pending", "in_progress", "completed", "active", "1", "\u00b2", "03"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | any_text, inner, max_size=6),
    max_leaves=30,
)
objects = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=10)


def printable(*values: object) -> None:
    """What the CLI does with text from a file: inert, then strict UTF-8 to the terminal."""
    for v in values:
        s = inert(v)
        s.encode("utf-8")
        assert not UNSAFE_TERMINAL.search(s)


def check_task(task: Task) -> None:
    task.sort_key()
    board = Board([task])
    for view in board.views():
        printable(view.task.id, view.task.subject, view.task.owner, view.blocked_reason)
    json.dumps(task.model_dump(mode="json"), ensure_ascii=True)


def check_message(msg: Message) -> None:
    printable(msg.sender, msg.type, msg.content, msg.summary)
    json.dumps(
        {"t": msg.timestamp, "c": msg.content, "p": msg.payload and msg.payload.model_dump(mode="json")},
        ensure_ascii=True,
    )


def check_config(cfg: TeamConfig, store) -> None:
    printable(cfg.name, cfg.lead, cfg.description, *[m.name for m in cfg.members])
    for e in store.config_problems(cfg):
        printable(e)


@FUZZ
@given(st.binary(max_size=300))
def test_parse_json_bytes_and_inbox_lines(data: bytes) -> None:
    assert parse_json_bytes(P, data) is not None or True  # any value, or a ReadError; never raises
    items = NATIVE.decode_inbox_line("hunter", data, 1)
    assert 1 <= len(items) <= 2  # a torn line with a whole one glued on gives both
    for item in items:
        assert isinstance(item, (Message, ReadError))
        if isinstance(item, Message):
            check_message(item)
        else:
            printable(item)


@FUZZ
@given(json_values | objects.map(lambda d: {**d, "type": d.get("type", "message")}))
def test_native_message_decoder(value) -> None:
    item = decode_message_dict(value, P, "hunter", 3)
    assert isinstance(item, (Message, ReadError))
    if isinstance(item, Message):
        check_message(item)
    # and the same value as a wire line
    try:
        line = json.dumps(value).encode()
    except (ValueError, RecursionError):
        return
    assert [type(i) for i in NATIVE.decode_inbox_line("hunter", line, 1)] in ([Message], [ReadError])


@FUZZ
@given(json_values | objects)
def test_task_decoder(value) -> None:
    try:
        task = decode_task_dict(value, P)
    except ParseError as exc:
        printable(exc.error)
        return
    check_task(task)
    if isinstance(value, dict):
        assert NATIVE.sidecar_problem(value) is None or True
        check_task(NATIVE.merge_sidecar(task, value))


@FUZZ
@given(json_values | objects | objects.map(lambda d: {"name": "t", "members": [d, d]}))
def test_config_decoders(value) -> None:
    for store in (NATIVE, CLAUDE):
        try:
            cfg = store.decode_config(value, P)
        except ParseError as exc:
            printable(exc.error)
            continue
        check_config(cfg, store)


@FUZZ
@given(json_values | st.lists(objects | json_values, max_size=5))
def test_claude_inbox_decoder(value) -> None:
    read = CLAUDE.decode_inbox("writer", value)
    for m in read.messages:
        check_message(m)
    for e in read.errors:
        assert isinstance(e, ReadError)
        printable(e)


@FUZZ
@given(json_values)
def test_claude_times(value) -> None:
    assert isinstance(parse_time(value), float)


@FUZZ
@given(st.binary(max_size=300) | objects.map(lambda d: json.dumps(d).encode(errors="surrogatepass")))
def test_log_line_parser(line: bytes) -> None:
    for name in ("hunter.jsonl", "hunter.log"):
        entry = log_entry("hunter", ROOT / name, line, 1)
        assert isinstance(entry, LogEntry)
        printable(entry.text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=12), st.integers(1, 64))
def test_tail_reader_on_arbitrary_bytes(chunks: list[bytes], max_line: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.jsonl"
        reader = TailReader(path, max_line_bytes=max_line, chunk=7)
        got: list[bytes] = []
        overlong = 0
        for chunk in chunks:
            with open(path, "ab") as fh:
                fh.write(chunk)
            batch = reader.read_all()
            assert batch.error is None and not batch.reset
            got += batch.lines
            overlong += len(batch.overlong)
        data = b"".join(chunks)
        complete = data.split(b"\n")[:-1]
        # Every complete line is returned once, or reported as overlong.
        assert got == [line for line in complete if len(line) <= max_line]
        assert overlong == sum(1 for line in complete if len(line) > max_line)


@FUZZ
@given(any_text)
def test_inert_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    s = inert(text)
    s.encode("utf-8")
    assert not any(0x80 <= ord(ch) <= 0x9F or ord(ch) < 0x20 and ch not in "\t\n" for ch in s)
