"""What needs the person and when to call them, from real team files: a new item is announced
once, what was there when the control room first looked is listed but not announced."""

from __future__ import annotations

from pathlib import Path

from teamtui.notify.events import NotifyKind
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import record_failure
from teamtui.session.alerts import Alerts
from teamtui.session.local_team import open_local
from teamtui.session.team import TeamSession
from tests.conftest import native_team
from tests.edits_team import ALICE, ALICE_EDIT, BOB, BOB_EDIT, claude_team, edit_again

KEY = ("native", "/r", "t")


def team(root: Path, members: list[str], tasks: list[str]) -> NativeTeam:
    return native_team(root, "t", members, tasks)


def session_of(store: NativeTeam, clock=None, timeout: float = 60.0) -> TeamSession:
    s, state = open_local(store, log_limit=100, health_timeout=timeout, **({"clock": clock} if clock else {}))
    state.load_all()
    return s


def look_again(alerts: Alerts, session: TeamSession, now: float = 0.0):
    for path in session.state.stale_paths():
        session.state.apply(path)
    return alerts.look(KEY, session, now)


def test_a_team_that_finishes_is_announced_once(tmp_path):
    store = team(tmp_path, ["ana"], ["one", "two"])
    session, alerts = session_of(store), Alerts(host="box")
    assert alerts.look(KEY, session, 0.0) == ([], [])
    store.complete_task("1")
    assert look_again(alerts, session)[1] == []
    store.complete_task("2")
    _needs, events = look_again(alerts, session)
    assert [(e.kind, e.team, e.host) for e in events] == [(NotifyKind.TEAM_FINISHED, "t", "box")]
    assert look_again(alerts, session)[1] == []  # once


def test_a_need_names_its_member_once():
    from teamtui.session.alerts import Need, spoken

    asks = Need(KEY, "t", "permission", "alice", "alice asks permission for Bash: rm -rf build", "p1")
    quiet = Need(KEY, "t", "disappeared", "bob", "no activity while holding a task", "gone:bob")
    assert spoken(asks) == "alice asks permission for Bash: rm -rf build"
    assert spoken(quiet) == "bob: no activity while holding a task"


def test_a_task_held_after_too_many_failures_needs_you(tmp_path):
    store = team(tmp_path, ["ana"], ["flaky"])
    session, alerts = session_of(store), Alerts()
    alerts.look(KEY, session, 0.0)
    for _ in range(3):
        store.claim_task("1", "ana")
        record_failure(store, "1", "it broke", owner="ana")
    needs, events = look_again(alerts, session)
    assert [n.kind for n in needs] == ["held"] and "flaky" in needs[0].text
    assert [e.kind for e in events] == [NotifyKind.NEEDS_YOU]
    assert look_again(alerts, session)[1] == []


def test_what_was_there_at_first_is_listed_not_announced(tmp_path):
    store = team(tmp_path, ["ana"], ["flaky"])
    for _ in range(3):
        store.claim_task("1", "ana")
        record_failure(store, "1", "it broke", owner="ana")
    session, alerts = session_of(store), Alerts()
    needs, events = alerts.look(KEY, session, 0.0)
    assert [n.kind for n in needs] == ["held"] and events == []


def test_a_teammate_that_goes_silent_holding_a_task_is_announced_as_disappeared(tmp_path):
    now = [1000.0]
    store = team(tmp_path, ["ana"], ["slow"])
    store.claim_task("1", "ana")
    session, alerts = session_of(store, clock=lambda: now[0], timeout=5.0), Alerts()
    session.state.touch("ana", 1000.0)
    assert alerts.look(KEY, session, now[0])[1] == []
    now[0] = 1010.0
    needs, events = alerts.look(KEY, session, now[0])
    assert [(n.kind, n.member) for n in needs] == [("disappeared", "ana")]
    assert [e.kind for e in events] == [NotifyKind.TEAMMATE_DISAPPEARED]


def test_a_teammate_that_leaves_holding_a_task_is_announced_as_crashed(tmp_path):
    store = team(tmp_path, ["ana", "bo"], ["half done"])
    store.claim_task("1", "ana")
    session, alerts = session_of(store), Alerts()
    alerts.look(KEY, session, 0.0)
    store.release_owner("ana")
    store.update_member("ana", status="shutdown")
    _needs, events = look_again(alerts, session)
    assert [e.kind for e in events] == [NotifyKind.TEAMMATE_CRASHED]
    assert "ana" in events[0].text


# ---------------------------------------------------------------------- what was said, across starts


def opened(root: Path, tmp_path: Path):
    """The team as a room opens it (a source over its folder), its transcripts read."""
    from teamtui.protocol.settings import load_settings
    from teamtui.session.local import LocalSource

    source = LocalSource(load_settings(tmp_path / "none.toml"), roots=[root], cwd=tmp_path, claude_root=tmp_path / "x")
    source.discover()
    [(key, session)] = source.sessions.items()
    state = source.states[key]
    state.take_transcripts(state.transcript_files.read())
    state.apply_batch([], rescan=True)
    return key, session, state


def test_a_collision_is_called_once_per_file_and_pair_even_after_a_restart(tmp_path):
    from teamtui.session.alerts import needs_of

    root, bob = claude_team(tmp_path)
    alice = (root / ALICE).read_text(encoding="utf-8").splitlines(keepends=True)
    key, session, state = opened(root, tmp_path)
    alerts = Alerts()
    assert alerts.look(key, session, 0.0)[1] == []
    state.apply_batch([edit_again(root, BOB, bob[BOB_EDIT], 0)])
    needs, events = alerts.look(key, session, 1.0)
    assert [n.kind for n in needs if n.kind == "collision"] == ["collision"]
    assert [(e.kind, e.text) for e in events] == [(NotifyKind.NEEDS_YOU, "alice and bob both changed app.py")]
    # Each edits the file once more: the same file and pair, not a new collision.
    state.apply_batch([edit_again(root, ALICE, alice[ALICE_EDIT], 1)])
    assert alerts.look(key, session, 2.0)[1] == []
    state.apply_batch([edit_again(root, BOB, bob[BOB_EDIT], 2)])
    assert alerts.look(key, session, 3.0)[1] == []
    # bob leaves the team (the collision with him goes), comes back and edits it again: still the same one.
    import json

    config = next(root.glob("teams/*/config.json"))
    whole = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**whole, "members": [m for m in whole["members"] if m["name"] != "bob"]}))
    state.apply_batch([config])
    assert not [n for n in alerts.look(key, session, 3.1)[0] if n.kind == "collision"]
    config.write_text(json.dumps(whole))
    state.apply_batch([config, edit_again(root, BOB, bob[BOB_EDIT], 3)])
    needs, events = alerts.look(key, session, 3.2)
    assert [n.kind for n in needs if n.kind == "collision"] == ["collision"] and events == []
    # The control room starts again, on a team whose transcripts say less at first (bob's edits
    # not read yet): they come, and a further edit with them; the collision was said already.
    (root / BOB).write_text("".join(bob[: BOB_EDIT.start]), encoding="utf-8")
    key, session, state = opened(root, tmp_path)
    again = Alerts()
    assert not [n for n in needs_of(key, session, 4.0) if n.kind == "collision"]
    assert again.look(key, session, 4.0)[1] == []
    state.apply_batch([edit_again(root, BOB, bob[BOB_EDIT], 4)])
    needs, events = again.look(key, session, 5.0)
    assert [n.kind for n in needs if n.kind == "collision"] == ["collision"] and events == []


def test_a_finished_team_is_not_announced_again_by_a_new_room(tmp_path):
    store = team(tmp_path, ["ana"], ["one"])
    session, alerts = session_of(store), Alerts(host="box")
    alerts.look(KEY, session, 0.0)
    store.complete_task("1")
    assert [e.kind for e in look_again(alerts, session)[1]] == [NotifyKind.TEAM_FINISHED]
    # Another room, that first saw the team before its last task was done (it was reopened).
    store.update_task("1", status="in_progress")
    session, again = session_of(store), Alerts(host="box")
    again.look(KEY, session, 0.0)
    store.complete_task("1")
    assert look_again(again, session)[1] == []
    # Another team's life (made again under the same name): its own calls.
    import shutil

    shutil.rmtree(store.team_dir)
    shutil.rmtree(store.tasks_dir)
    store = team(tmp_path, ["ana"], ["one"])
    session, third = session_of(store), Alerts(host="box")
    third.look(KEY, session, 0.0)
    store.complete_task("1")
    assert [e.kind for e in look_again(third, session)[1]] == [NotifyKind.TEAM_FINISHED]
