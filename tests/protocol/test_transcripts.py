"""Claude Code transcripts: read from the real 2.1.328 files (tests/fixtures/examples/claude-2.1.328) and
from transcripts written here line by line, as Claude Code writes them (compact JSON lines)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from teamtui.protocol.text import UNSAFE_TERMINAL
from teamtui.protocol.claude.transcripts import EntryKind, TranscriptReader
from teamtui.protocol.claude.transcripts.render import parse_ts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
CASES = ["tmux-running", "tmux-after-bob-shutdown", "inprocess-running", "inprocess-after-lead-exit"]


def all_transcripts() -> list[Path]:
    return sorted(FIXTURES.glob("*/projects/*/*.jsonl")) + sorted(FIXTURES.glob("*/projects/*/*/subagents/*.jsonl"))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def line(**rec) -> bytes:
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


def assistant(
    mid: str,
    content: list,
    *,
    ts: str,
    stop: str | None = "tool_use",
    usage: dict | None = None,
    model="claude-sonnet-4-5",
) -> bytes:
    msg = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": content, "stop_reason": stop}
    if usage is not None:
        msg["usage"] = usage
    return line(type="assistant", message=msg, timestamp=ts, uuid=mid + ts)


def user(content, *, ts: str, **extra) -> bytes:
    return line(type="user", message={"role": "user", "content": content}, timestamp=ts, **extra)


def tool_use(tid: str, tool: str, **args) -> dict:
    return {"type": "tool_use", "id": tid, "name": tool, "input": args}


def tool_result(tid: str, text: str = "done", error: bool = False) -> dict:
    block = {"type": "tool_result", "tool_use_id": tid, "content": text}
    if error:
        block["is_error"] = True
    return block


# ---------------------------------------------------------------- the real files


@pytest.mark.parametrize(
    "path",
    all_transcripts(),
    ids=lambda p: f"{p.parts[-4]}/{p.name}" if "subagents" not in p.parts else f"{p.parts[-5]}/{p.name}",
)
def test_tokens_are_usage_summed_once_per_message_id(path: Path) -> None:
    by_id: dict[str, dict] = {}
    last = None
    for rec in records(path):
        msg = rec.get("message")
        if rec.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
            by_id[msg["id"]] = msg["usage"]
            last = msg["usage"]
    reader = TranscriptReader(path)
    reader.read()
    tokens = reader.stats.tokens
    if not by_id:
        assert tokens.input is None and tokens.output is None and reader.stats.context_tokens is None
        return
    assert tokens.input == sum(u["input_tokens"] for u in by_id.values())
    assert tokens.output == sum(u["output_tokens"] for u in by_id.values())
    assert tokens.cache_creation == sum(u["cache_creation_input_tokens"] for u in by_id.values())
    assert tokens.cache_read == sum(u["cache_read_input_tokens"] for u in by_id.values())
    assert (
        reader.stats.context_tokens
        == last["input_tokens"] + last["cache_creation_input_tokens"] + last["cache_read_input_tokens"]
    )


@pytest.mark.parametrize("window", [500, 1])  # usage counted while shown, and while only scanned
def test_only_the_assistants_own_usage_counts(tmp_path: Path, window: int) -> None:
    path = tmp_path / "t.jsonl"
    nested = {
        "type": "assistant",
        "message": {"id": "msg_sub", "role": "assistant", "usage": {"input_tokens": 999, "output_tokens": 999}},
    }
    spaced = {
        "type": "assistant",
        "message": {
            "id": "m2",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-1",
            "content": [{"type": "tool_use", "id": "t2", "name": "Read", "input": {"usage": {"input_tokens": 777}}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 3, "output_tokens": 4},
        },
        "timestamp": "2026-11-23T07:00:02.000Z",
    }
    path.write_bytes(
        assistant(
            "m1",
            [tool_use("t1", "Agent", name="helper")],
            ts="2026-11-23T07:00:00.000Z",
            usage={"input_tokens": 10, "output_tokens": 20},
        )
        # An Agent result carries the subagent's messages and usage: not this teammate's tokens.
        + user(
            [tool_result("t1")],
            ts="2026-11-23T07:00:01.000Z",
            toolUseResult={"messages": [nested], "usage": {"input_tokens": 555, "output_tokens": 555}},
        )
        + json.dumps(spaced).encode()
        + b"\n"  # spaced JSON, and a tool input with a 'usage' key
        + user([tool_result("t2")], ts="2026-11-23T07:00:03.000Z")
    )
    reader = TranscriptReader(path, window=window)
    reader.read()
    assert (reader.stats.tokens.input, reader.stats.tokens.output) == (13, 24)
    assert reader.stats.model == "claude-opus-4-1" and reader.stats.context_tokens == 3


def test_a_message_written_as_several_lines_is_counted_once() -> None:
    # The lead's first reply (two Agent calls) is one message id on two lines in the real file.
    path = FIXTURES / "tmux-running/projects/-src-app/421dba11-a86f-4c03-bd8f-13c51d730076.jsonl"
    ids = [r["message"]["id"] for r in records(path) if r.get("type") == "assistant"]
    assert len(ids) > len(set(ids))
    reader = TranscriptReader(path)
    reader.read()
    per_line = sum(r["message"]["usage"]["output_tokens"] for r in records(path) if r.get("type") == "assistant")
    assert reader.stats.tokens.output < per_line


@pytest.mark.parametrize("path", all_transcripts(), ids=lambda p: p.name)
def test_every_tool_call_result_and_teammate_message_shows(path: Path) -> None:
    recs = records(path)
    calls = [
        b for r in recs if r.get("type") == "assistant" for b in r["message"]["content"] if b.get("type") == "tool_use"
    ]
    results = [
        b
        for r in recs
        if r.get("type") == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b.get("type") == "tool_result"
    ]
    errors = [b for b in results if b.get("is_error")] + [
        b
        for r in recs
        if r.get("type") == "user"
        and isinstance(r.get("toolUseResult"), dict)
        and r["toolUseResult"].get("success") is False
        for b in r["message"]["content"]
        if b.get("type") == "tool_result" and not b.get("is_error")
    ]
    said = [
        r["message"]["content"] for r in recs if r.get("type") == "user" and isinstance(r["message"]["content"], str)
    ]
    messages = sum(s.count("<teammate-message") for s in said)
    reader = TranscriptReader(path)
    update = reader.read()
    kinds = [e.kind for e in reader.entries]
    assert update.problems == []
    assert [e.text.split(":")[0] for e in reader.entries if e.kind is EntryKind.TOOL] == [c["name"] for c in calls]
    assert kinds.count(EntryKind.RESULT) == len(results)
    assert sum(1 for e in reader.entries if e.kind is EntryKind.RESULT and e.error) == len(errors)
    assert kinds.count(EntryKind.MESSAGE) == messages
    assert all(not e.text.startswith("{") for e in reader.entries)  # readable lines, not JSON
    assert list(reader.entries) == update.entries


def test_errors_show_the_reason_from_the_real_file() -> None:
    path = next(p for p in all_transcripts() if b'"is_error":true' in p.read_bytes())
    reader = TranscriptReader(path)
    reader.read()
    failed = [e for e in reader.entries if e.error]
    assert failed and all(e.kind is EntryKind.RESULT for e in failed)
    assert all("No such tool available" in e.text and "<tool_use_error>" not in e.text for e in failed)


def test_activity_is_the_last_thing_the_transcript_says() -> None:
    path = FIXTURES / "inprocess-running/projects/-src-app/8dd2dc96-b94b-4a1b-95fb-3eab30f4436d.jsonl"
    last = [r for r in records(path) if r.get("type") == "assistant"][-1]
    assert last["message"]["stop_reason"] == "end_turn"
    reader = TranscriptReader(path)
    reader.read()
    when = parse_ts(last["timestamp"])
    assert reader.stats.activity.kind == "idle"
    assert reader.stats.activity.label() == "idle since " + time.strftime("%H:%M:%S", time.localtime(when))
    assert reader.stats.last_write == max(
        parse_ts(r["timestamp"]) for r in records(path) if r.get("type") in ("user", "assistant", "system")
    )


def test_an_unknown_model_gets_no_context_share() -> None:
    path = FIXTURES / "tmux-running/projects/-src-app/171ab59d-327a-46aa-8c39-1513ec7c7120.jsonl"
    reader = TranscriptReader(path)
    reader.read()
    assert reader.stats.model == "claude-opus-5-5"
    assert reader.stats.context_tokens is not None
    assert reader.stats.context_window is None and reader.stats.context_share is None


def test_teammate_messages_name_their_sender_and_idle_notices_are_kept() -> None:
    path = FIXTURES / "tmux-running/projects/-src-app/421dba11-a86f-4c03-bd8f-13c51d730076.jsonl"
    reader = TranscriptReader(path)
    reader.read()
    received = [e.text for e in reader.entries if e.kind is EntryKind.MESSAGE]
    assert received == [
        "← alice: idle (available): hello from the mock",
        "← bob: idle (available): hello from the mock",
    ]
    assert [(n.sender, n.payload["type"], n.payload["idleReason"]) for n in reader.notices] == [
        ("alice", "idle_notification", "available"),
        ("bob", "idle_notification", "available"),
    ]


def test_a_message_claiming_a_name_it_cannot_prove_is_marked_unverified() -> None:
    path = next((FIXTURES / "inprocess-after-lead-exit/projects/-src-app").glob("*/subagents/agent-aalice-*.jsonl"))
    forged = sum(
        r["message"]["content"].count('verified="false"')
        for r in records(path)
        if r.get("type") == "user" and isinstance(r["message"]["content"], str)
    )
    assert forged
    reader = TranscriptReader(path)
    reader.read()
    marked = [e.text for e in reader.entries if e.text.startswith("← team-lead (unverified): ")]
    assert len(marked) == forged
    assert "← team-lead (unverified): EXTA2: hello in-process alice, pretending to be team-lead" in marked
    assert any("shutdown request" in t for t in marked)  # a forged protocol message: shown...
    assert all(n.payload["type"] != "shutdown_request" for n in reader.notices)  # ...never taken as a notice


def test_a_protocol_message_followed_by_instructions_is_shown_by_meaning() -> None:
    # Claude Code puts "This is a shutdown request. To approve it, ..." after the JSON object.
    path = next((FIXTURES / "inprocess-after-lead-exit/projects/-src-app").glob("*/subagents/agent-abob-*.jsonl"))
    assert "This is a shutdown request" in path.read_text()
    reader = TranscriptReader(path)
    reader.read()
    received = [e.text for e in reader.entries if e.kind is EntryKind.MESSAGE]
    requests = [t for t in received if "shutdown request" in t]
    assert requests and all(t.startswith("← team-lead: shutdown request") for t in requests)
    assert not any("{" in t or "To approve it" in t for t in received)  # no raw JSON, no instructions


# ---------------------------------------------------------------- written here


def test_each_tool_call_shows_its_most_telling_argument(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    calls = [
        tool_use("t1", "Bash", command="pytest -q\necho more", description="run tests"),
        tool_use("t2", "Edit", file_path="src/auth.py", old_string="a", new_string="b"),
        tool_use("t3", "Read", file_path="docs/api.md"),
        tool_use("t4", "Grep", pattern="def login", path="src"),
        tool_use("t5", "Agent", name="alice", description="probe", prompt="..."),
        tool_use("t6", "SendMessage", to="bob", message="hi"),
        tool_use("t7", "TaskUpdate", taskId="3", status="completed"),
        tool_use("t8", "SomeNewTool", path="x/y"),
        tool_use("t9", "TodoWrite", todos=[]),
    ]
    path.write_bytes(assistant("m1", calls, ts="2026-11-23T07:00:00.000Z"))
    reader = TranscriptReader(path)
    reader.read()
    assert [e.text for e in reader.entries] == [
        "Bash: pytest -q",
        "Edit: src/auth.py",
        "Read: docs/api.md",
        "Grep: def login",
        "Agent: alice",
        "SendMessage: bob",
        "TaskUpdate: #3 completed",
        "SomeNewTool: x/y",
        "TodoWrite",
    ]
    assert reader.stats.activity.label() == "TodoWrite"


def test_results_activity_and_idle_follow_the_turn(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        assistant(
            "m1",
            [{"type": "text", "text": "Running the tests.\nSecond line"}, tool_use("t1", "Bash", command="pytest -q")],
            ts="2026-11-23T07:00:00.000Z",
        )
    )
    reader = TranscriptReader(path)
    reader.read()
    assert [(e.kind, e.text) for e in reader.entries] == [
        (EntryKind.TEXT, "Running the tests."),
        (EntryKind.TOOL, "Bash: pytest -q"),
    ]
    assert reader.stats.activity.label() == "Bash: pytest -q"
    with path.open("ab") as fh:
        fh.write(user([tool_result("t1", "3 failed", error=True)], ts="2026-11-23T07:00:05.000Z"))
    new = reader.read().entries
    assert [(e.kind, e.text, e.error) for e in new] == [(EntryKind.RESULT, "Bash error: 3 failed", True)]
    assert reader.stats.activity.label() == "thinking"
    with path.open("ab") as fh:
        fh.write(assistant("m2", [{"type": "text", "text": "Done."}], ts="2026-11-23T07:00:09.000Z", stop="end_turn"))
    assert [e.kind for e in reader.read().entries] == [EntryKind.TEXT, EntryKind.IDLE]
    assert reader.stats.activity.kind == "idle"
    assert reader.stats.activity.ts == parse_ts("2026-11-23T07:00:09.000Z")


def test_compaction_and_prompts_are_marked(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        line(
            type="system",
            subtype="compact_boundary",
            content="Conversation compacted",
            compactMetadata={"trigger": "auto", "preTokens": 155012},
            timestamp="2026-11-23T07:00:00.000Z",
        )
        + user(
            "This session is being continued from a previous conversation.",
            ts="2026-11-23T07:00:01.000Z",
            isCompactSummary=True,
        )
        + user("fix the login bug", ts="2026-11-23T07:00:02.000Z")
        + user("<system-reminder>\nnoise\n</system-reminder>", ts="2026-11-23T07:00:03.000Z")
    )
    reader = TranscriptReader(path)
    reader.read()
    assert [(e.kind, e.text) for e in reader.entries] == [
        (EntryKind.COMPACT, "context compacted (auto, 155,012 tokens before)"),
        (EntryKind.COMPACT, "context compacted: summary follows"),
        (EntryKind.PROMPT, "» fix the login bug"),
    ]


def test_hostile_text_is_inert(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    evil = "\x1b[31mred\x1b]0;pwned\x07 [bold]x[/bold] \u202eevil\r\nsecond"
    path.write_bytes(
        assistant(
            "m1",
            [{"type": "text", "text": evil}, tool_use("t1", "Bash\x1b[2J", command=evil)],
            ts="2026-11-23T07:00:00.000Z",
        )
        + user(f'<teammate-message teammate_id="mal\x1bory">{evil}</teammate-message>', ts="2026-11-23T07:00:01.000Z")
        + user([tool_result("t1", evil, error=True)], ts="2026-11-23T07:00:02.000Z")
    )
    reader = TranscriptReader(path)
    reader.read()
    assert len(reader.entries) == 4
    for e in reader.entries:
        assert not UNSAFE_TERMINAL.search(e.text), e
        assert "[bold]x[/bold]" in e.text  # markup stays literal text
        assert "second" not in e.text


def test_context_share_uses_the_known_window_and_none_is_never_guessed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    u1 = {
        "input_tokens": 1200,
        "output_tokens": 300,
        "cache_creation_input_tokens": 5000,
        "cache_read_input_tokens": 40000,
    }
    u2 = {"input_tokens": 10, "output_tokens": 80}  # no cache figures in this one
    path.write_bytes(
        assistant("m1", [tool_use("t1", "Read", file_path="a")], ts="2026-11-23T07:00:00.000Z", usage=u1)
        + user([tool_result("t1")], ts="2026-11-23T07:00:01.000Z")
        + assistant("m2", [{"type": "text", "text": "ok"}], ts="2026-11-23T07:00:02.000Z", stop="end_turn", usage=u2)
    )
    reader = TranscriptReader(path)
    reader.read()
    s = reader.stats
    assert (s.tokens.input, s.tokens.output) == (1200 + 10, 300 + 80)
    assert (s.tokens.cache_creation, s.tokens.cache_read) == (5000, 40000)
    assert s.context_tokens == 10
    assert s.context_window == 200_000 and s.context_share == 10 / 200_000

    bare = tmp_path / "bare.jsonl"
    bare.write_bytes(assistant("m1", [{"type": "text", "text": "hi"}], ts="2026-11-23T07:00:00.000Z", usage=None))
    r2 = TranscriptReader(bare)
    r2.read()
    assert r2.stats.tokens.total is None and r2.stats.context_tokens is None and r2.stats.context_share is None

    big = tmp_path / "big.jsonl"
    big.write_bytes(
        assistant(
            "m1", [], ts="2026-11-23T07:00:00.000Z", usage={"input_tokens": 1, "cache_read_input_tokens": 500_000}
        )
    )
    r3 = TranscriptReader(big)
    r3.read()
    assert r3.stats.context_tokens == 500_001 and r3.stats.context_share is None  # a larger window than listed


def test_only_new_lines_come_back_and_a_partial_line_waits(tmp_path: Path) -> None:
    path = tmp_path / "lead.jsonl"
    shutil.copy(FIXTURES / "inprocess-running/projects/-src-app/8dd2dc96-b94b-4a1b-95fb-3eab30f4436d.jsonl", path)
    reader = TranscriptReader(path)
    first = reader.read()
    size = path.stat().st_size
    assert first.entries and reader.bytes_read == size
    assert reader.read().entries == []

    new = assistant("m90", [tool_use("t90", "Bash", command="make test")], ts="2026-11-23T08:00:00.000Z")
    with path.open("ab") as fh:
        fh.write(new[:40])
    assert reader.read().entries == []  # incomplete: not consumed
    assert reader.stats.activity.kind == "idle"
    with path.open("ab") as fh:
        fh.write(new[40:])
        fh.write(user([tool_result("t90")], ts="2026-11-23T08:00:03.000Z"))
    got = reader.read().entries
    assert [e.text for e in got] == ["Bash: make test", "Bash ok"]
    assert reader.bytes_read == path.stat().st_size  # read once, never from the start again
    assert list(reader.entries)[-2:] == got


def test_the_window_is_bounded_and_keeps_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with path.open("wb") as fh:
        for i in range(300):
            fh.write(
                assistant(
                    f"m{i}",
                    [tool_use(f"t{i}", "Bash", command=f"step {i}")],
                    ts="2026-11-23T07:00:00.000Z",
                    usage={"input_tokens": 1, "output_tokens": 2},
                )
            )
            fh.write(user([tool_result(f"t{i}")], ts="2026-11-23T07:00:01.000Z"))
    reader = TranscriptReader(path, window=50)
    update = reader.read()
    assert len(reader.entries) == 50 and len(update.entries) == 50
    assert reader.entries[-1].text == "Bash ok" and reader.entries[-2].text == "Bash: step 299"
    assert reader.entries[-1].line == 600
    assert reader.stats.tokens.output == 600  # every usage line counted, not only the window's
    for i in range(300, 400):
        with path.open("ab") as fh:
            fh.write(assistant(f"m{i}", [tool_use(f"t{i}", "Read", file_path=f"f{i}")], ts="2026-11-23T07:00:02.000Z"))
    reader.read()
    assert len(reader.entries) == 50 and reader.entries[-1].text == "Read: f399"


def test_bad_lines_are_reported_and_the_rest_still_shows(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"type":"user","message":\n'
        + b"\xff\xfe not json\n"
        + assistant("m1", [{"type": "text", "text": "x" * 5000}], ts="2026-11-23T07:00:00.000Z")
        + b'{"type":"assistant","message":'
        + b"[" * 3000
        + b"\n"
        + assistant("m2", [tool_use("t1", "Read", file_path="ok.txt")], ts="2026-11-23T07:00:01.000Z")
    )
    reader = TranscriptReader(path, max_line_bytes=4096)
    update = reader.read()
    assert [e.text for e in reader.entries] == ["Read: ok.txt"]
    lines = sorted(no for no, _ in update.problems)
    assert lines == [1, 2, 3, 4]  # the cut line, the bytes, the overlong line, the deeply nested one


def test_a_replaced_transcript_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        assistant(
            "m1", [tool_use("t1", "Read", file_path="old")], ts="2026-11-23T07:00:00.000Z", usage={"input_tokens": 7}
        )
    )
    reader = TranscriptReader(path)
    reader.read()
    tmp = tmp_path / "new"
    tmp.write_bytes(
        assistant(
            "m9", [tool_use("t9", "Read", file_path="new")], ts="2026-11-23T07:00:00.000Z", usage={"input_tokens": 3}
        )
    )
    os.replace(tmp, path)
    update = reader.read()
    assert update.reset and [e.text for e in reader.entries] == ["Read: new"]
    assert reader.stats.tokens.input == 3


def test_odd_values_are_left_out_not_guessed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    odd = {
        "input_tokens": True,
        "output_tokens": -5,
        "cache_creation_input_tokens": "12",
        "cache_read_input_tokens": 10**40,
    }
    path.write_bytes(
        assistant(
            "m1",
            [{"type": "text", "text": "\ud800 lone"}, "not a block", {"type": "tool_use", "name": ["x"], "input": "y"}],
            ts="not a time",
            usage=odd,
        )
        + line(type="assistant", message="text instead of an object", timestamp="2026-11-23T07:00:00.000Z")
        + line(type="user", message={"role": "user", "content": 42}, timestamp=None)
        + b"[1, 2]\n"
    )
    reader = TranscriptReader(path)
    update = reader.read()
    t = reader.stats.tokens
    assert (t.input, t.output, t.cache_creation, t.cache_read) == (None, None, None, 10**40)
    assert reader.stats.context_share is None  # beyond any listed window: no share
    texts = [e.text for e in reader.entries]
    assert texts == ["\\ud800 lone", "['x']"]  # a lone surrogate shown as its code; a list name as text
    assert all(not UNSAFE_TERMINAL.search(x) for x in texts)
    assert reader.entries[0].ts is None
    assert update.problems == [(4, "not a JSON object")]
