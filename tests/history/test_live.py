"""Every team a session opens is recorded (TeamSession.open gives TeamState the journal and the
history's recorder); TEAMTUI_HISTORY=0 records nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamtui.protocol import NativeTeam
from teamtui.protocol.history import db_path
from teamtui.protocol.history.live import Observers, recorder_of
from teamtui.protocol.history.query import open_history, teams
from teamtui.protocol.history.search import search
from teamtui.protocol.history.writer import shared_writer
from teamtui.session.team import TeamSession

TEAM = "refactor-auth"


def test_a_session_records_its_team(native_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    store = NativeTeam(native_root, TEAM)
    session = TeamSession.open(store, log_limit=100, health_timeout=60)
    assert isinstance(session.state.journal, Observers) and recorder_of(session.state) is session.state.journal.recorder
    session.load()
    store.send("scout", "LIVEWORD from a session", "teamtui")
    session.state.apply(store.inbox_path("scout"))
    assert shared_writer(db_path()).flush()
    con = open_history()
    assert [t.name for t in teams(con)] == [TEAM]
    assert [h.who for h in search(con, "LIVEWORD")] == ["teamtui"]


def test_history_can_be_turned_off(native_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAMTUI_HISTORY", "0")
    session = TeamSession.open(NativeTeam(native_root, TEAM), log_limit=100, health_timeout=60)
    assert session.state.journal is None  # a native team keeps no journal either
    assert recorder_of(session.state) is None
