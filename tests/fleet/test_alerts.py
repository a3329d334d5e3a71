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

KEY = ("native", "/r", "t")


def team(root: Path, members: list[str], tasks: list[str]) -> NativeTeam:
    t = NativeTeam(root, "t")
    t.create(description="")
    for m in members:
        t.add_member(m)
    for subject in tasks:
        t.create_task(subject)
    return t


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
