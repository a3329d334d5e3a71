"""What the control room said and the person dismissed, kept across its starts
(notify/said.py): bounded, written whole, and a damaged or unreadable file never stops the calls
nor is written over."""

from __future__ import annotations

import json
import time

from teamtui.notify.events import NotifyKind
from teamtui.notify.said import KEEP_SECONDS, MAX_KEPT, SaidBook, said_path
from teamtui.protocol.native import NativeTeam
from teamtui.session.alerts import Alerts
from teamtui.session.local_team import open_local

KEY = ("native", "/r", "t")


def finishing_team(tmp_path):
    store = NativeTeam(tmp_path, "t")
    store.create(description="")
    store.add_member("ana")
    store.create_task("one")
    session, state = open_local(store, log_limit=100, health_timeout=60.0)
    state.load_all()
    return store, session


def finish(alerts: Alerts, store: NativeTeam, session) -> list:
    alerts.look(KEY, session, 0.0)
    store.complete_task("1")
    for path in session.state.stale_paths():
        session.state.apply(path)
    return alerts.look(KEY, session, 0.0)[1]


def test_what_is_said_lands_in_the_state_folder_and_old_entries_go(tmp_path):
    path = said_path()
    assert path.parent.name == "notify" and path.parent.parent.name == "teamtui"
    path.parent.mkdir(parents=True)
    old = time.time() - KEEP_SECONDS - 60
    path.write_text(json.dumps({"version": 1, "said": {"gone": old, "kept": time.time()}, "dismissed": {}}))
    store, session = finishing_team(tmp_path)
    assert [e.kind for e in finish(Alerts(), store, session)] == [NotifyKind.TEAM_FINISHED]
    said = json.loads(path.read_text())["said"]
    assert "gone" not in said and "kept" in said
    assert any(k.endswith("|team_finished|finished") for k in said)
    assert not list(path.parent.glob(".*.tmp"))  # written through a temporary file, renamed


def test_the_book_keeps_at_most_its_bound(tmp_path):
    book = SaidBook(tmp_path / "said.json")
    for n in range(MAX_KEPT + 10):
        book.say(f"k{n}")
    book.save()
    said = json.loads((tmp_path / "said.json").read_text())["said"]
    assert len(said) == MAX_KEPT and "k0" not in said and f"k{MAX_KEPT + 9}" in said


def test_a_damaged_file_is_moved_aside_said_once_and_the_calls_go_on(tmp_path):
    path = said_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    store, session = finishing_team(tmp_path)
    alerts = Alerts()
    problem = alerts.said.take_problem()
    assert problem is not None and "damaged" in problem and "moved aside" in problem
    assert alerts.said.take_problem() is None  # once
    [aside] = path.parent.glob("said.json.damaged-*")
    assert aside.read_text(encoding="utf-8") == "{not json"  # kept as it was, for a person to look at
    assert [e.kind for e in finish(alerts, store, session)] == [NotifyKind.TEAM_FINISHED]
    assert any(k.endswith("|team_finished|finished") for k in json.loads(path.read_text())["said"])


def test_an_unreadable_file_is_left_alone_and_what_is_said_is_kept_in_memory(tmp_path):
    path = said_path()
    path.mkdir(parents=True)  # not a file: cannot be read, nor replaced
    store, session = finishing_team(tmp_path)
    alerts = Alerts()
    problem = alerts.said.take_problem()
    assert problem is not None and "cannot be read" in problem and "until the room quits" in problem
    assert [e.kind for e in finish(alerts, store, session)] == [NotifyKind.TEAM_FINISHED]
    assert path.is_dir() and not list(path.iterdir())  # untouched
    assert alerts.said.take_problem() is None  # said once, not at every call
