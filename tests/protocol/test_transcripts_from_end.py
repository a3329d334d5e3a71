"""A first read from the end (`read_tail`): the window's lines at once, the token sums left out
until the head before them is counted (`count_head`, in a thread on a screen) and added
(`take_head`); then every figure is the one a read of the whole file gives."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from teamtui.protocol.claude.transcripts import TeamTranscripts, TranscriptReader

from test_transcripts import FIXTURES, all_transcripts, assistant, records, tool_result, tool_use, user


def usage_by_id(path: Path) -> dict[str, dict]:
    """Each message id's usage, as a person reads it from the file (the latest line of an id wins)."""
    out: dict[str, dict] = {}
    for rec in records(path):
        msg = rec.get("message")
        if rec.get("type") == "assistant" and isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
            out[msg["id"]] = msg["usage"]
    return out


def figures(reader: TranscriptReader) -> tuple:
    s = reader.stats
    t = s.tokens
    return (t.input, t.output, t.cache_creation, t.cache_read), s.context_tokens, s.model, s.last_write, s.activity


def counted_in_a_thread(reader: TranscriptReader):
    """`count_head` where a screen runs it: in another thread."""
    out = []
    worker = threading.Thread(target=lambda: out.append(reader.count_head()))
    worker.start()
    worker.join()
    return out[0]


@pytest.mark.parametrize("window", [1, 3])
@pytest.mark.parametrize(
    "path",
    all_transcripts(),
    ids=lambda p: f"{p.parts[-4]}/{p.name}" if "subagents" not in p.parts else f"{p.parts[-5]}/{p.name}",
)
def test_the_window_first_then_the_sums_of_the_whole_file(path: Path, window: int) -> None:
    whole = TranscriptReader(path, window=window)
    whole_update = whole.read()
    reader = TranscriptReader(path, window=window)
    update = reader.read_tail()
    shown = sum(1 for r in records(path) if r.get("type") in ("user", "assistant", "system"))
    if shown > window:
        assert reader.head_pending  # only the lines the window needs were read
    # The window shows at once, as a whole read renders it.
    assert [(e.ts, e.kind, e.text) for e in update.entries] == [(e.ts, e.kind, e.text) for e in whole_update.entries]
    assert reader.stats.activity == whole.stats.activity
    if reader.head_pending:
        # No sum of part of the file is shown: the figures are left out.
        tokens = reader.stats.tokens
        assert (tokens.input, tokens.output, tokens.cache_creation, tokens.cache_read, tokens.total) == (None,) * 5
        assert not reader.stats.counted
        assert reader.take_head(counted_in_a_thread(reader))
    assert reader.stats.counted and not reader.head_pending
    assert figures(reader) == figures(whole)
    by_id = usage_by_id(path)
    if by_id:
        keys = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        assert figures(reader)[0] == tuple(sum(u[k] for u in by_id.values()) for k in keys)
    assert list(reader.notices) == list(whole.notices)
    assert reader.offset == whole.offset and reader.bytes_read < whole.bytes_read + path.stat().st_size


def write_big(path: Path, turns: int) -> None:
    with path.open("wb") as fh:
        for i in range(turns):
            usage = {"input_tokens": i, "output_tokens": 2 * i + 1, "cache_read_input_tokens": 1000 + i}
            # One message on two lines (a text block, then a tool call), both repeating its usage.
            fh.write(
                assistant(f"m{i}", [{"type": "text", "text": f"step {i}"}], ts="2026-11-23T07:00:00.000Z", usage=usage)
            )
            fh.write(
                assistant(
                    f"m{i}", [tool_use(f"t{i}", "Bash", command=f"run {i}")], ts="2026-11-23T07:00:01.000Z", usage=usage
                )
            )
            fh.write(user([tool_result(f"t{i}")], ts="2026-11-23T07:00:02.000Z"))


@pytest.mark.parametrize("window", [4, 5, 6])  # the cut between a message's two lines, and on either side
def test_a_message_cut_by_the_window_start_is_counted_once(tmp_path: Path, window: int) -> None:
    path = tmp_path / "t.jsonl"
    write_big(path, 40)
    reader = TranscriptReader(path, window=window)
    reader.read_tail()
    assert reader.take_head(reader.count_head())
    t = reader.stats.tokens
    assert (t.input, t.output, t.cache_read) == (
        sum(range(40)),
        sum(2 * i + 1 for i in range(40)),
        sum(1000 + i for i in range(40)),
    )


def test_lines_written_before_the_head_is_counted_count_too_and_are_numbered(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_big(path, 40)
    reader = TranscriptReader(path, window=10)
    first = reader.read_tail()
    assert first.entries[-1].line is None  # where the tail begins in the file is not known yet: no number is guessed
    head = reader.count_head()
    with path.open("ab") as fh:  # the teammate goes on meanwhile
        fh.write(
            assistant(
                "m99",
                [tool_use("t99", "Read", file_path="late.py")],
                ts="2026-11-23T08:00:00.000Z",
                usage={"input_tokens": 5, "output_tokens": 7},
            )
        )
    assert [e.text for e in reader.read().entries] == ["Read: late.py"]
    assert reader.stats.tokens.total is None
    assert reader.take_head(head)
    assert reader.stats.tokens.output == sum(2 * i + 1 for i in range(40)) + 7
    assert reader.stats.context_tokens == 5
    with path.open("ab") as fh:
        fh.write(user([tool_result("t99")], ts="2026-11-23T08:00:01.000Z"))
    assert [(e.text, e.line) for e in reader.read().entries] == [("Read ok", 40 * 3 + 2)]


def test_a_head_counted_before_the_file_was_replaced_is_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_big(path, 40)
    reader = TranscriptReader(path, window=3)
    reader.read_tail()
    head = reader.count_head()
    tmp = tmp_path / "new"
    tmp.write_bytes(
        assistant(
            "n1", [tool_use("x1", "Read", file_path="new")], ts="2026-11-23T09:00:00.000Z", usage={"input_tokens": 3}
        )
    )
    os.replace(tmp, path)
    update = reader.read()
    assert update.reset and [e.text for e in update.entries] == ["Read: new"]
    assert not reader.take_head(head)  # the old file's head: not this file's
    assert reader.stats.counted and reader.stats.tokens.input == 3 and reader.stats.tokens.output is None


def test_a_file_replaced_before_its_head_is_counted_gives_no_head(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_big(path, 40)
    reader = TranscriptReader(path, window=3)
    reader.read_tail()
    os.replace(path, tmp_path / "moved.jsonl")
    path.write_bytes(b"")
    assert reader.count_head() is None
    assert reader.stats.tokens.total is None  # still not known, not a guess


def test_notices_in_the_head_arrive_with_the_sums(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    notice = {
        "type": "idle_notification",
        "from": "bob",
        "idleReason": "interrupted",
        "timestamp": "2026-11-23T06:59:00.000Z",
    }
    body = f'<teammate-message teammate_id="bob">{json.dumps(notice)}</teammate-message>'
    path.write_bytes(user(body, ts="2026-11-23T06:59:00.000Z"))
    with path.open("ab") as fh:
        fh.write(
            b"".join(
                assistant(f"m{i}", [tool_use(f"t{i}", "Bash", command="x")], ts="2026-11-23T07:00:00.000Z")
                for i in range(20)
            )
        )
    reader = TranscriptReader(path, window=5)
    reader.read_tail()
    assert list(reader.notices) == []
    assert reader.take_head(reader.count_head())
    assert [(n.sender, n.payload["idleReason"]) for n in reader.notices] == [("bob", "interrupted")]


def test_a_team_read_from_the_end_counts_every_head(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    import shutil

    shutil.copytree(FIXTURES / "inprocess-running", root)
    cfg = json.loads((root / "teams/session-8dd2dc96/config.json").read_text())
    whole = TeamTranscripts(root, cfg, window=2)
    whole.load()
    team = TeamTranscripts(root, cfg, window=2)
    team.load(from_end=True)
    assert sorted(m for m, r in team.readers.items() if r.head_pending) == ["alice", "bob", "team-lead"]
    heads = team.count_heads()
    assert sorted(team.take_heads(heads)) == ["alice", "bob", "team-lead"]
    for member, reader in whole.readers.items():
        assert figures(team.readers[member]) == figures(reader)
    assert team.take_heads(heads) == []  # taken once


def test_a_model_named_only_in_the_head_still_gives_the_context_share(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        assistant(
            "m1", [{"type": "text", "text": "hi"}], ts="2026-11-23T07:00:00.000Z", model="claude-sonnet-4-5"
        )  # no usage
        + b"".join(user(f"prompt {i}", ts="2026-11-23T07:00:01.000Z") for i in range(5))
        + assistant(
            "m2",
            [{"type": "text", "text": "ok"}],
            ts="2026-11-23T07:00:02.000Z",
            model="<synthetic>",
            usage={"input_tokens": 1000},
        )
    )
    whole = TranscriptReader(path)
    whole.read()
    reader = TranscriptReader(path, window=2)
    reader.read_tail()
    assert reader.head_pending and reader.stats.model is None and reader.stats.context_share is None
    assert reader.take_head(reader.count_head())
    assert reader.stats.model == whole.stats.model == "claude-sonnet-4-5"
    assert reader.stats.context_share == whole.stats.context_share == 1000 / 200_000
