"""Every team a session opens is recorded (open_local gives TeamState the journal and the
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
from teamtui.session.local_team import open_local

TEAM = "refactor-auth"


def test_a_session_records_its_team(native_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    store = NativeTeam(native_root, TEAM)
    session, state = open_local(store, log_limit=100, health_timeout=60)
    assert isinstance(state.journal, Observers) and recorder_of(state) is state.journal.recorder
    state.load_all()
    store.send("scout", "LIVEWORD from a session", "teamtui")
    state.apply(store.inbox_path("scout"))
    assert shared_writer(db_path()).flush()
    con = open_history()
    assert [t.name for t in teams(con)] == [TEAM]
    assert [h.who for h in search(con, "LIVEWORD")] == ["teamtui"]


def test_history_can_be_turned_off(native_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAMTUI_HISTORY", "0")
    session, _state = open_local(NativeTeam(native_root, TEAM), log_limit=100, health_timeout=60)
    assert session.state.journal is None  # a native team keeps no journal either
    assert recorder_of(session.state) is None
