"""Format drift: transcript entries of a Claude Code newer than those tested, of a type or with a key
teamtui does not know, are counted (never dropped silently), summed up in one line, and listed by
`teamtui doctor`. The real 2.1.328 files hold none."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.claude.transcripts.known import KINDS_KEPT, Drift, newest_tested, version_key
from teamtui.protocol.claude.transcripts.reader import TranscriptReader
from teamtui.protocol.claude_versions import TESTED_CLAUDE_CODE
from teamtui.protocol.layout import find_team
from teamtui.protocol.state import TeamState
from tests.conftest import copy_fixture

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"
WORKFLOWS = Path(__file__).resolve().parents[1] / "fixtures" / "claude-workflow"
LEAD = Path("projects") / "-src-app" / "421dba11-a86f-4c03-bd8f-13c51d730076.jsonl"
NEWER = ".".join(
    map(str, (*(version_key(newest_tested()) or (0, 0, 0))[:2], (version_key(newest_tested()) or (0, 0, 0))[2] + 9))
)


def copy(tmp_path: Path, case: str) -> Path:
    return copy_fixture(FIXTURES / case, tmp_path / case)


def newer_lines() -> bytes:
    """What a newer Claude Code might write: its version, a new entry type, a new key on a line teamtui reads."""
    msg = {
        "id": "msg_90",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-5-5",
        "content": [{"type": "text", "text": "thinking harder"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    recs = [
        {
            "parentUuid": None,
            "isSidechain": False,
            "message": msg,
            "type": "assistant",
            "reasoningTrace": {"steps": 3},
            "timestamp": "2026-12-01T10:00:00.000Z",
            "sessionId": "421dba11-a86f-4c03-bd8f-13c51d730076",
            "version": NEWER,
        },
        {
            "type": "thinking-trace",
            "sessionId": "421dba11-a86f-4c03-bd8f-13c51d730076",
            "steps": [1, 2],
            "version": NEWER,
        },
    ]
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in recs)


def loaded(root: Path) -> TeamState:
    state = TeamState(find_team(root))
    state.load_all()
    state.load_transcripts()
    return state


def test_newer_version_is_above_the_tested_ones() -> None:
    assert all((version_key(NEWER) or ()) > (version_key(v) or ()) for v in TESTED_CLAUDE_CODE)


@pytest.mark.parametrize(
    "case", ["tmux-running", "tmux-after-bob-shutdown", "inprocess-running", "inprocess-after-lead-exit"]
)
def test_the_real_files_hold_nothing_unknown(tmp_path: Path, case: str) -> None:
    root = copy(tmp_path, case)
    for path in sorted(root.rglob("*.jsonl")):
        for from_end in (False, True):
            reader = TranscriptReader(path, window=2)
            reader.read_tail() if from_end else reader.read()
            head = reader.count_head()
            if head is not None:
                reader.take_head(head)
            assert not reader.drift.items, (path, reader.drift.items)
            assert reader.drift.versions == {"2.1.328"}
            full = Drift(path)
            for no, line in enumerate(path.read_bytes().splitlines(), 1):
                full.see_all(line, no)
            assert not full.items, (path, full.items)


def test_the_workflow_transcripts_of_2_1_331_hold_nothing_unknown() -> None:
    for path in sorted(WORKFLOWS.rglob("agent-*.jsonl")) + sorted(WORKFLOWS.glob("*/projects/-src-app/*.jsonl")):
        full = Drift(path)
        for no, line in enumerate(path.read_bytes().splitlines(), 1):
            full.see_all(line, no)
        assert not full.items, (path, full.items)


def test_a_newer_claude_code_is_summed_up_in_one_line(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    state = loaded(root)
    assert state.transcripts is not None
    assert state.transcripts.drift().summary() == ""
    with (root / LEAD).open("ab") as fh:
        fh.write(newer_lines())
    changes = state.apply_batch([root / LEAD])
    assert [c.kind for c in changes if c.kind == ChangeKind.DRIFT] == [ChangeKind.DRIFT]
    report = state.transcripts.drift()
    assert report.summary() == f"Claude Code {NEWER}: 2 unknown entry kinds — teamtui tested up to {newest_tested()}"
    found = {(i.kind, i.name): i for i in report.items}
    assert set(found) == {("version", NEWER), ("type", "thinking-trace"), ("key", "assistant.reasoningTrace")}
    assert found[("version", NEWER)].count == 2
    kind = found[("type", "thinking-trace")]
    assert (kind.path, kind.line) == (root / LEAD, 42)
    assert '"steps":[1,2]' in kind.example
    assert found[("key", "assistant.reasoningTrace")].example == 'reasoningTrace: {"steps": 3}'
    # Nothing dropped silently: the newer assistant line still shows in the lead's log.
    assert "thinking harder" in [e.text for e in state.logs["team-lead"].since(0)]


def test_drift_is_found_on_a_first_read_and_in_a_head_counted_apart(tmp_path: Path) -> None:
    root = copy(tmp_path, "tmux-running")
    path = root / LEAD
    data = path.read_bytes()
    path.write_bytes(newer_lines() + data)  # at the start: in the head of a read from the end
    reader = TranscriptReader(path, window=3)
    reader.read_tail()
    assert ("type", "thinking-trace") not in reader.drift.items
    head = reader.count_head()
    assert head is not None and reader.take_head(head)
    assert {("version", NEWER), ("type", "thinking-trace")} <= set(reader.drift.items)
    whole = TranscriptReader(path)
    whole.read()
    assert {("version", NEWER), ("type", "thinking-trace")} <= set(whole.drift.items)


def test_drift_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b"".join(json.dumps({"type": f"kind-{i}", "pad": "x" * 5000}).encode() + b"\n" for i in range(KINDS_KEPT * 3))
    )
    reader = TranscriptReader(path)
    reader.read()
    assert len(reader.drift.items) == KINDS_KEPT
    assert all(len(i.example) <= 240 for i in reader.drift.items.values())


# ---------------------------------------------------------------- teamtui doctor


def test_doctor_lists_what_it_saw_where_with_an_example(tmp_path: Path, cli) -> None:
    root = copy(tmp_path, "tmux-running")
    with (root / LEAD).open("ab") as fh:
        fh.write(newer_lines())
    code, out, _err = cli("doctor", "--root", str(root))
    assert code == 1
    assert f"Claude Code {NEWER}: 2 unknown entry kinds — teamtui tested up to {newest_tested()}" in out
    assert f"Claude Code versions seen: 2.1.328, {NEWER}" in out
    assert f"- unknown entry type 'thinking-trace': 1 line, first at {LEAD}:42" in out
    assert f"- unknown key 'assistant.reasoningTrace': 1 line, first at {LEAD}:41" in out
    assert f"- entries written by Claude Code {NEWER}: 2 lines, first at {LEAD}:41" in out
    assert 'e.g. reasoningTrace: {"steps": 3}' in out
    code, out, _err = cli("doctor", "--root", str(root), "--json")
    assert code == 1
    team = json.loads(out)["teams"][0]
    assert team["team"] == "session-421dba11"
    assert {(u["kind"], u["name"], u["line"]) for u in team["unknown"]} == {
        ("version", NEWER, 41),
        ("type", "thinking-trace", 42),
        ("key", "assistant.reasoningTrace", 41),
    }


def test_doctor_on_the_real_files_finds_nothing(tmp_path: Path, cli, monkeypatch) -> None:
    root = copy(tmp_path, "tmux-running")
    shutil.copytree(
        copy(tmp_path, "inprocess-running") / "teams" / "session-8dd2dc96", root / "teams" / "session-8dd2dc96"
    )
    shutil.copytree(
        FIXTURES / "inprocess-running" / "projects" / "-src-app" / "8dd2dc96-b94b-4a1b-95fb-3eab30f4436d",
        root / "projects" / "-src-app" / "8dd2dc96-b94b-4a1b-95fb-3eab30f4436d",
    )
    shutil.copy(
        FIXTURES / "inprocess-running" / "projects" / "-src-app" / "8dd2dc96-b94b-4a1b-95fb-3eab30f4436d.jsonl",
        root / "projects" / "-src-app",
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    code, out, _err = cli("doctor")  # every team under the config dir
    assert code == 0
    assert out.count("ok: nothing teamtui does not know") == 2
    assert "team session-421dba11" in out and "team session-8dd2dc96" in out
    assert "team-lead: projects/-src-app/421dba11-a86f-4c03-bd8f-13c51d730076.jsonl (40 lines)" in out
