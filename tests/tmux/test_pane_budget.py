"""At most `max_panes` follow panes at once, opened off the caller's thread: PaneBudget on its own,
then TmuxPanes against a real tmux server on a private socket."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.settings import load_settings
from teamtui.protocol.processes import group_alive
from teamtui.tmux.api import PaneNews, PaneSpec
from teamtui.tmux.budget import DEFAULT_MAX_PANES, PaneBudget
from teamtui.tmux.mode import ModeDecision, make_panes
from teamtui.tmux.panes import TmuxPanes

NAMES = [f"mate{i}" for i in range(12)]


# ---------------------------------------------------------------------- the budget alone
def test_free_slots_go_to_the_teammates_in_team_order() -> None:
    budget = PaneBudget(8)
    assert budget.plan(NAMES) == NAMES[:8]
    assert budget.waiting(NAMES) == NAMES[8:]


def test_a_chosen_teammate_displaces_the_least_recently_used_and_keeps_its_slot() -> None:
    budget = PaneBudget(3)
    budget.plan(NAMES)
    assert budget.choose("mate1") is None  # it holds a slot: only marked as used now
    assert budget.choose("mate9") == "mate0"
    assert budget.choose("mate10") == "mate2"
    assert budget.plan(NAMES) == ["mate1", "mate9", "mate10"]  # a later plan does not undo the choices
    assert budget.waiting(NAMES) == [n for n in NAMES if n not in ("mate1", "mate9", "mate10")]


def test_a_teammate_that_left_or_whose_pane_ended_frees_its_slot_for_the_next_in_order() -> None:
    budget = PaneBudget(2)
    budget.plan(NAMES)
    assert budget.plan([n for n in NAMES if n != "mate0"]) == ["mate1", "mate2"]
    assert budget.plan(NAMES, skip={"mate1"}) == ["mate0", "mate2"]


def test_a_budget_needs_a_slot() -> None:
    with pytest.raises(ValueError):
        PaneBudget(0)


@given(
    limit=st.integers(1, 6),
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("plan"), st.lists(st.sampled_from(NAMES), unique=True), st.sets(st.sampled_from(NAMES))),
            st.tuples(st.just("choose"), st.sampled_from(NAMES)),
            st.tuples(st.just("release"), st.sampled_from(NAMES)),
        ),
        max_size=30,
    ),
)
def test_the_slots_never_exceed_the_limit_and_a_plan_fills_every_free_slot(limit: int, steps: list) -> None:
    budget = PaneBudget(limit)
    for step in steps:
        if step[0] == "plan":
            _, wanted, skip = step
            held = budget.plan(wanted, skip)
            eligible = [n for n in wanted if n not in skip]
            assert set(held) <= set(eligible)
            assert len(held) == min(limit, len(eligible))  # no free slot is left while someone waits
            assert budget.waiting(wanted) == [n for n in wanted if n not in held]
        elif step[0] == "choose":
            budget.choose(step[1])
            assert budget.holds(step[1])
        else:
            budget.release(step[1])
            assert not budget.holds(step[1])
        assert len(budget.holders) <= limit


# ---------------------------------------------------------------------- the setting
def test_max_panes_comes_from_the_config_file_and_a_bad_value_is_reported(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    assert load_settings(config).max_panes == DEFAULT_MAX_PANES  # no file
    config.write_text("max_panes = 3\n")
    assert load_settings(config).max_panes == 3
    for bad in ("0", "-2", "2.5", '"many"', "true"):
        config.write_text(f"max_panes = {bad}\n")
        settings = load_settings(config)
        assert settings.max_panes == DEFAULT_MAX_PANES
        assert any("max_panes" in p for p in settings.problems), bad


# ---------------------------------------------------------------------- TmuxPanes in a real tmux
def _specs(n: int = 12) -> list[PaneSpec]:
    return [PaneSpec(name, "cyan", "sleep 600") for name in NAMES[:n]]


def _by_name(server: TmuxServer) -> dict[str, dict[str, str]]:
    return {r["@teamtui-teammate"]: r for r in server.marked("t").values()}


@pytest.mark.tmux
def test_twelve_teammates_and_a_bound_of_eight_open_exactly_eight_panes(tmux_server: TmuxServer) -> None:
    news: list[PaneNews] = []
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t", max_panes=8)
    panes.listen(news.append)
    panes.sync(_specs())
    assert panes.wait_idle()
    assert sorted(_by_name(tmux_server)) == sorted(NAMES[:8])
    assert panes.waiting() == tuple(NAMES[8:])
    assert news and news[-1] == PaneNews(tuple(NAMES[8:]), 8, "")
    panes.sync(_specs())  # the same team again: nothing more opens
    assert panes.wait_idle()
    assert len(_by_name(tmux_server)) == 8
    panes.close_all()


@pytest.mark.tmux
def test_enter_on_the_tenth_opens_its_pane_in_the_side_window_in_place_of_the_least_recently_used(
    tmux_server: TmuxServer,
) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t", max_panes=8)
    panes.sync(_specs())
    assert panes.wait_idle()
    before = _by_name(tmux_server)
    assert panes.select("mate1") is True  # used now: not the one to make room
    assert panes.select("mate9") is True
    assert panes.wait_idle()
    rows = _by_name(tmux_server)
    assert sorted(rows) == sorted([*NAMES[1:8], "mate9"])  # still eight: mate0 made room
    window = tmux_server.tmux.pane_info(tmux_server.dashboard, "#{window_id}")
    assert rows["mate9"]["window_id"] != window  # the second window, as beyond six beside the dashboard
    assert tmux_server.run("display-message", "-p", "-t", rows["mate9"]["pane_id"], "#{pane_active}") == ["1"]
    assert rows["mate1"]["pane_id"] == before["mate1"]["pane_id"]  # the others are kept, not reopened
    wait_for(lambda: not group_alive(int(before["mate0"]["pane_pid"])), "mate0's process to end")
    assert panes.waiting() == ("mate0", "mate8", "mate10", "mate11")
    assert panes.select("nobody") is False
    panes.close_all()


@pytest.mark.tmux
def test_closing_the_team_closes_every_pane_and_process_even_while_panes_are_opening(
    tmux_server: TmuxServer,
) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t", max_panes=8)
    panes.sync(_specs())
    wait_for(lambda: len(_by_name(tmux_server)) >= 2, "the first panes to open")
    pids = [int(r["pane_pid"]) for r in _by_name(tmux_server).values()]
    panes.close_all()  # while the worker may still be opening the rest
    assert tmux_server.marked() == {}
    assert tmux_server.run("list-panes", "-a", "-F", "#{pane_id}") == [tmux_server.dashboard]
    assert not panes.select("mate0") and panes.wait_idle()
    assert tmux_server.marked() == {}  # nothing queued opened a pane after the close
    wait_for(lambda: not any(group_alive(p) for p in pids), "every follow process to end")


@pytest.mark.tmux
def test_the_callers_thread_never_waits_for_panes_being_opened(tmux_server: TmuxServer) -> None:
    # The worker is held inside its first report, before it opens any pane: whatever the
    # dashboard asks meanwhile must return on its own thread, and happen once the worker moves on.
    held, release = threading.Event(), threading.Event()

    def listener(news: PaneNews) -> None:
        if not held.is_set():
            held.set()
            release.wait()

    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t", max_panes=8)
    panes.listen(listener)
    panes.sync(_specs())
    assert held.wait(30), "the worker never started"
    answered = threading.Event()

    def dashboard_keys() -> None:
        panes.sync(_specs())
        assert panes.select("mate10") is True
        assert panes.toggle() is False
        assert panes.toggle() is True
        panes.close("mate11")
        answered.set()

    caller = threading.Thread(target=dashboard_keys)
    caller.start()
    caller.join(30)
    assert answered.is_set(), "a call from the dashboard waited for the pane worker"
    assert tmux_server.marked() == {}  # nothing opened yet: the worker is still held
    release.set()
    assert panes.wait_idle()
    rows = _by_name(tmux_server)
    assert len(rows) == 8 and "mate10" in rows
    assert tmux_server.run("display-message", "-p", "-t", rows["mate10"]["pane_id"], "#{pane_active}") == ["1"]
    panes.close_all()


@pytest.mark.tmux
def test_a_pane_closed_by_hand_frees_its_slot_and_enter_brings_it_back(tmux_server: TmuxServer) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t", max_panes=3)
    specs = _specs(5)
    panes.sync(specs)
    assert panes.wait_idle()
    tmux_server.run("kill-pane", "-t", _by_name(tmux_server)["mate1"]["pane_id"])
    panes.sync(specs)
    assert panes.wait_idle()
    assert sorted(_by_name(tmux_server)) == ["mate0", "mate2", "mate3"]
    assert panes.waiting() == ("mate1", "mate4")
    assert panes.select("mate1") is True
    assert panes.wait_idle()
    assert sorted(_by_name(tmux_server)) == ["mate1", "mate2", "mate3"]
    panes.close_all()


@pytest.mark.tmux
def test_the_spawners_panes_and_adopted_panes_take_no_slot(tmux_server: TmuxServer, tmp_path: Path) -> None:
    from teamtui.tmux.spawner import TmuxSpawner

    existing = tmux_server.run(
        "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", tmux_server.dashboard, "sleep 600"
    )[0]
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t", max_panes=2)
    proc = TmuxSpawner(panes).spawn("runner", "sleep 600", cwd=tmp_path, env={}, log_path=tmp_path / "r.log")
    panes.sync([PaneSpec("runner", "red", "unused"), PaneSpec("claude", "blue", "unused", existing), *_specs(3)])
    assert panes.wait_idle()
    assert sorted(_by_name(tmux_server)) == ["mate0", "mate1", "runner"]
    assert panes.waiting() == ("mate2",)
    assert proc.poll() is None
    panes.close_all()


@pytest.mark.tmux
def test_make_panes_gives_the_budget_it_is_asked_for(tmux_server: TmuxServer) -> None:
    panes, _ = make_panes(ModeDecision("tmux"), "t", tmux_server.env(), max_panes=5)
    assert isinstance(panes, TmuxPanes) and panes.budget.limit == 5
    panes.close_all()
    default, _ = make_panes(ModeDecision("tmux"), "t", tmux_server.env())
    assert isinstance(default, TmuxPanes) and default.budget.limit == DEFAULT_MAX_PANES
    default.close_all()
