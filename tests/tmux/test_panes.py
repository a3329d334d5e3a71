"""TmuxPanes against a real tmux server: titles, marks, colors, sync, hide/show, close_all."""

from __future__ import annotations

import os

import pytest

from teamtui.tmux.api import PaneSpec
from teamtui.protocol.processes import group_alive
from teamtui.tmux.cleanup import owner_token
from teamtui.tmux.panes import TmuxPanes

from tmux_support import TmuxServer, wait_for

pytestmark = pytest.mark.tmux

FOUR = [
    PaneSpec("hunter", "blue", "sleep 600"),
    PaneSpec("scout", "green", "sleep 600"),
    PaneSpec("tracer", "orange", "sleep 600"),
    PaneSpec("weird#[fg=red]\x1b[31m", "nonsense;bg=red", "sleep 600"),
]


def _by_name(server: TmuxServer, team: str = "t") -> dict[str, dict[str, str]]:
    return {r["@teamtui-teammate"]: r for r in server.marked(team).values()}


def test_four_teammates_get_titled_marked_colored_panes_beside_the_dashboard(tmux_server: TmuxServer) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    panes.sync(FOUR)
    assert panes.wait_idle()
    rows = _by_name(tmux_server)
    # The teammate mark holds the name made inert (no escape, tab or newline can reach tmux listings).
    assert set(rows) == {"hunter", "scout", "tracer", "weird#[fg=red]\\x1b[31m"}
    window = tmux_server.run("display-message", "-p", "-t", tmux_server.dashboard, "#{window_id}")[0]
    for name, row in rows.items():
        assert row["@teamtui-owner"] == owner_token(os.getpid())
        assert row["window_id"] == window
    assert rows["hunter"]["pane_title"] == "hunter"
    # Control characters shown as codes (the one inert), '#' doubled so tmux draws it literally.
    assert rows["weird#[fg=red]\\x1b[31m"]["pane_title"] == "weird##[fg=red]\\x1b[31m"
    color = lambda p: tmux_server.run("show-options", "-p", "-v", "-t", p, "@teamtui-color")[0]  # noqa: E731
    assert color(rows["hunter"]["pane_id"]) == "blue"
    assert color(rows["tracer"]["pane_id"]) == "colour208"
    assert color(rows["weird#[fg=red]\\x1b[31m"]["pane_id"]) == "default"
    assert tmux_server.run("show-options", "-w", "-v", "-t", window, "pane-border-status") == ["top"]
    # The dashboard keeps the largest pane.
    sizes = {
        r.split()[0]: int(r.split()[1]) * int(r.split()[2])
        for r in tmux_server.run("list-panes", "-t", window, "-F", "#{pane_id} #{pane_width} #{pane_height}")
    }
    assert max(sizes, key=sizes.__getitem__) == tmux_server.dashboard
    panes.close_all()


def test_the_dashboard_keeps_its_width_while_teammate_panes_open(tmux_server: TmuxServer) -> None:
    # A hook notes the dashboard's width right after each split, before teamtui lays the window
    # out again: splitting the dashboard in half redrew it at half width for a moment per teammate.
    dashboard = tmux_server.dashboard
    tmux_server.run("set-hook", "-g", "after-split-window", f"set -Fpa -t {dashboard} @widths '#{{pane_width}} '")
    panes = TmuxPanes(tmux_server.tmux, dashboard, "t")
    panes.sync(FOUR[:3])
    assert panes.wait_idle()
    final = int(tmux_server.tmux.pane_info(dashboard, "#{pane_width}") or 0)
    widths = [int(w) for w in tmux_server.run("show-options", "-p", "-v", "-t", dashboard, "@widths")[0].split()]
    assert len(widths) == 3 and final > 220 // 2  # main-vertical: the dashboard keeps 55%
    assert all(w == final for w in widths), f"the dashboard was {widths} columns wide while panes opened, {final} after"
    assert panes.toggle() is False  # hidden: the panes go aside and the dashboard takes the window
    assert panes.wait_idle()
    tmux_server.run("set-option", "-p", "-u", "-t", dashboard, "@widths")
    # tmux has no after-join-pane hook: note the width at every layout change instead.
    tmux_server.run("set-hook", "-g", "window-layout-changed", f"set -Fpa -t {dashboard} @widths '#{{pane_width}} '")
    assert panes.toggle() is True  # shown again: they join the column one by one
    assert panes.wait_idle()
    widths = [int(w) for w in tmux_server.run("show-options", "-p", "-v", "-t", dashboard, "@widths")[0].split()]
    assert len(widths) >= 3 and all(w == final for w in widths), f"{widths} while the panes came back, {final} before"
    assert int(tmux_server.tmux.pane_info(dashboard, "#{pane_width}") or 0) == final
    panes.close_all()


def test_sync_adds_and_removes_a_teammate(tmux_server: TmuxServer) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    panes.sync(FOUR[:2])
    assert panes.wait_idle()
    first = _by_name(tmux_server)
    assert set(first) == {"hunter", "scout"}
    panes.sync([*FOUR[:2], FOUR[2]])
    assert panes.wait_idle()
    assert set(_by_name(tmux_server)) == {"hunter", "scout", "tracer"}
    panes.sync([FOUR[0], FOUR[2]])
    assert panes.wait_idle()
    after = _by_name(tmux_server)
    assert set(after) == {"hunter", "tracer"}
    assert after["hunter"]["pane_id"] == first["hunter"]["pane_id"]  # kept, not reopened
    scout_pid = int(first["scout"]["pane_pid"])
    wait_for(lambda: not group_alive(scout_pid), "the removed teammate's process to end")
    panes.close_all()


def test_close_all_leaves_no_pane_and_no_process_and_restores_the_window(tmux_server: TmuxServer) -> None:
    window = tmux_server.run("display-message", "-p", "-t", tmux_server.dashboard, "#{window_id}")[0]
    tmux_server.run("set-option", "-w", "-t", window, "pane-border-style", "fg=magenta")  # the user's own
    before = tmux_server.run("show-options", "-w", "-t", window)
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    panes.sync(FOUR)
    assert panes.wait_idle()
    pids = [int(r["pane_pid"]) for r in tmux_server.marked().values()]
    assert len(pids) == 4
    panes.close_all()
    panes.close_all()  # safe to call again
    assert tmux_server.marked() == {}
    assert tmux_server.run("list-panes", "-a", "-F", "#{pane_id}") == [tmux_server.dashboard]
    wait_for(lambda: not any(group_alive(p) for p in pids), "every teammate process to end")
    assert tmux_server.run("show-options", "-w", "-q", "-v", "-t", window, "pane-border-status") == []
    # Borders, titles and layout options of the user's window are as they were (tmux 3.3 puts pane
    # border styles on the window, so those are restored too).
    assert tmux_server.run("show-options", "-w", "-t", window) == before


def test_toggle_hides_and_shows_the_panes_with_their_processes_kept(tmux_server: TmuxServer) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    panes.sync(FOUR[:3])
    assert panes.wait_idle()
    window = tmux_server.run("display-message", "-p", "-t", tmux_server.dashboard, "#{window_id}")[0]
    before = {n: r["pane_id"] for n, r in _by_name(tmux_server).items()}
    assert panes.toggle() is False
    assert panes.wait_idle()
    hidden = _by_name(tmux_server)
    assert {n: r["pane_id"] for n, r in hidden.items()} == before
    assert all(r["window_id"] != window for r in hidden.values())
    assert tmux_server.run("list-panes", "-t", window, "-F", "#{pane_id}") == [tmux_server.dashboard]
    assert panes.toggle() is True
    assert panes.wait_idle()
    assert all(r["window_id"] == window for r in _by_name(tmux_server).values())
    panes.close_all()


def test_beyond_six_teammates_go_to_a_side_window(tmux_server: TmuxServer) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    specs = [PaneSpec(f"mate{i}", "cyan", "sleep 600") for i in range(8)]
    panes.sync(specs)
    assert panes.wait_idle()
    window = tmux_server.run("display-message", "-p", "-t", tmux_server.dashboard, "#{window_id}")[0]
    rows = _by_name(tmux_server)
    beside = sorted(n for n, r in rows.items() if r["window_id"] == window)
    assert beside == [f"mate{i}" for i in range(6)]
    assert len({rows["mate6"]["window_id"], rows["mate7"]["window_id"]}) == 1
    # One beside the dashboard leaves: the first aside moves over.
    panes.sync([s for s in specs if s.name != "mate0"])
    assert panes.wait_idle()
    rows = _by_name(tmux_server)
    assert rows["mate6"]["window_id"] == window and rows["mate7"]["window_id"] != window
    panes.close_all()
    assert tmux_server.marked() == {}


def test_select_focuses_the_teammates_pane_by_id(tmux_server: TmuxServer) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    panes.sync(FOUR[:2])
    assert panes.wait_idle()
    scout = _by_name(tmux_server)["scout"]["pane_id"]
    assert panes.select("scout") is True
    assert panes.wait_idle()
    assert tmux_server.run("display-message", "-p", "-t", scout, "#{pane_active}") == ["1"]
    assert panes.select("nobody") is False
    panes.close_all()


def test_claude_members_with_a_live_tmux_pane_get_no_duplicate(tmux_server: TmuxServer) -> None:
    existing = tmux_server.run(
        "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", tmux_server.dashboard, "sleep 600"
    )[0]
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "work-team")
    panes.sync(
        [PaneSpec("researcher", "blue", "sleep 600", existing), PaneSpec("writer", "green", "sleep 600", "%999")]
    )
    assert panes.wait_idle()
    assert set(_by_name(tmux_server, "work-team")) == {"writer"}  # %999 does not exist: a pane is opened
    assert panes.select("researcher") is True
    assert panes.wait_idle()
    assert tmux_server.run("display-message", "-p", "-t", existing, "#{pane_active}") == ["1"]
    panes.close_all()
    assert tmux_server.tmux.pane_exists(existing)  # not ours: never closed
