"""Stores declare what their layout can do; TeamState and the shutdown ask those flags, never the class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teamtui.protocol import ClaudeTeam, NativeTeam, TeamState, UnsupportedError, find_team
from teamtui.protocol.shutdown import ShutdownRun
from teamtui.protocol.store import (
    KeepsJournal,
    KeepsTranscripts,
    LeadsInTmux,
    RecordsLead,
    RunsLead,
    ScriptRun,
    TeamStore,
)
from teamtui.protocol.tail import MAX_LINE_BYTES

FLAGS = ("writes_tasks", "has_teammate_logs", "appends_to_inboxes", "writes_shutdown_results")


def test_each_layout_declares_every_flag() -> None:
    assert all(getattr(NativeTeam, f) is True for f in FLAGS)
    assert all(getattr(ClaudeTeam, f) is False for f in FLAGS)
    assert all(getattr(TeamStore, f) is False for f in FLAGS)
    # Only Claude Code's lead can stop its teammates (it signs its requests): a dashboard asks it.
    assert (ClaudeTeam.shutdown_via_lead, NativeTeam.shutdown_via_lead, TeamStore.shutdown_via_lead) == (
        True,
        False,
        False,
    )


def test_what_a_claude_team_cannot_do_is_a_clear_error(claude_root: Path) -> None:
    store = find_team(claude_root)
    for attempt in (
        lambda: store.drain("writer"),
        lambda: store.decode_inbox_batch("writer", None),
        lambda: store.log_files(),
        lambda: store.log("writer", "hi"),
        lambda: store.write_shutdown_result("r1", {}),
    ):
        with pytest.raises(UnsupportedError, match="not supported for claude teams"):
            attempt()


def test_state_reads_claude_teams_without_touching_what_they_lack(claude_root: Path) -> None:
    # Any sidecar, log or line-by-line inbox call would raise UnsupportedError here.
    state = TeamState(find_team(claude_root))
    state.load_all()
    assert state.tasks and state.logs == {}
    assert state.inbox_messages("team-lead")
    assert state.resync() == []


def test_state_merges_sidecars_because_the_layout_has_them(native_root: Path) -> None:
    state = TeamState(find_team(native_root))
    state.load_all()
    assert state.tasks["2"].files == ["tests/test_auth.py"]  # from .tasks/.teamtui/2.json


class NoLogsTeam(NativeTeam):
    has_teammate_logs = False


def test_state_asks_the_flag_not_the_class(native_root: Path) -> None:
    store = NoLogsTeam(native_root, "refactor-auth")
    assert list(store.logs_dir.iterdir())  # the files are there
    state = TeamState(store)
    state.load_all()
    assert state.logs == {}
    full = TeamState(find_team(native_root))
    full.load_all()
    assert set(full.logs) == {"hunter", "scout"}


def test_shutdown_results_are_written_only_where_the_layout_keeps_them(native_root: Path, claude_root: Path) -> None:
    native = find_team(native_root)
    run = ShutdownRun(native, ["scout"], sender="lead")
    run.start()
    written = run.write_results()
    assert len(written) == 1 and json.loads(Path(written[0]).read_text())["teammate"] == "scout"
    claude = find_team(claude_root)
    run = ShutdownRun(claude, ["writer"], sender="team-lead")
    run.start()
    assert run.write_results() == []


def test_an_overlong_inbox_line_reads_the_same_to_peek_and_to_the_state(native_root: Path) -> None:
    store = find_team(native_root)
    inbox = store.inbox_path("scout")
    with open(inbox, "ab") as fh:
        fh.write(b'{"content": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n')
    store.send("scout", "after the long line", "lead")
    peeked = store.peek("scout")
    state = TeamState(store)
    state.load_all()
    assert [str(e) for e in peeked.errors] == [str(e) for e in state.errors[inbox]]
    assert "over the limit" in str(peeked.errors[0])
    assert peeked.messages[-1].content == state.inbox_messages("scout")[-1].content == "after the long line"


def test_the_layouts_declare_members_team_creation_and_their_wire_spelling(
    native_root: Path, claude_root: Path
) -> None:
    assert (NativeTeam.writes_members, ClaudeTeam.writes_members, TeamStore.writes_members) == (True, False, False)
    assert (NativeTeam.creates_teams, ClaudeTeam.creates_teams, TeamStore.creates_teams) == (True, False, False)
    assert find_team(native_root).protocol_key("idle_reason", "idleReason") == "idle_reason"
    assert find_team(claude_root).protocol_key("idle_reason", "idleReason") == "idleReason"
    made = NativeTeam.create_team(native_root, "fresh", description="new")
    assert made.read_config().description == "new"
    with pytest.raises(UnsupportedError, match="not supported for claude teams"):
        ClaudeTeam.create_team(claude_root, "fresh")


def test_what_a_claude_team_cannot_change_is_a_clear_error(claude_root: Path) -> None:
    store = find_team(claude_root)
    for attempt in (
        lambda: store.add_member("newbie"),
        lambda: store.update_member("writer", status="idle"),
        lambda: store.change_task("1", lambda task: None),
        lambda: store.import_tasks(lambda first: []),
    ):
        with pytest.raises(UnsupportedError, match="not supported for claude teams"):
            attempt()


def test_each_layout_offers_only_the_lead_it_has(native_root: Path, claude_root: Path) -> None:
    """Claude Code records its lead's process and panes; a native team may be run by a teamtui lead."""
    claude, native = find_team(claude_root), find_team(native_root)
    assert isinstance(claude, RecordsLead) and isinstance(claude, LeadsInTmux) and not isinstance(claude, RunsLead)
    assert isinstance(native, RunsLead) and not isinstance(native, RecordsLead | LeadsInTmux)
    assert native.running_lead() is None  # no `teamtui run` leads it


def test_a_message_to_a_team_whose_config_does_not_parse_is_refused_with_the_reason(tmp_path):
    """check_recipient retries a config caught mid-rewrite, then says what is wrong (it once
    raised NameError: the retry's sleep had no `time`)."""
    import pytest

    from teamtui.protocol.errors import ParseError
    from teamtui.protocol.native import NativeTeam

    team = NativeTeam(tmp_path, "t")
    team.create(description="")
    team.config_path.write_text("{ not json", encoding="utf-8")
    with pytest.raises(ParseError):
        team.send("bob", "hi", "lead")
    assert not team.inbox_path("bob").exists()  # nothing written


def test_only_the_layouts_that_keep_records_offer_them(native_root: Path, claude_root: Path) -> None:
    """Transcripts and a journal where Claude Code keeps them; a native team keeps neither, and is no script's run."""
    claude, native = find_team(claude_root), find_team(native_root)
    assert (
        isinstance(claude, KeepsTranscripts) and isinstance(claude, KeepsJournal) and not isinstance(claude, ScriptRun)
    )
    assert not isinstance(native, KeepsTranscripts | KeepsJournal | ScriptRun)
    assert TeamState(native).transcripts is None and TeamState(claude).transcript_files is not None
