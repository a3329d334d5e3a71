"""Snapshots of the main screen (both themes, and narrow as beside tmux panes), the message
modal and the shutdown view.

Deterministic: frozen team copy with fixed mtimes, fixed clock, UTC, no cursor blink, 140x42
(88x44 narrow); the dashboard and the control room also at 120x30 and 80x24 (the room at 100x30 too).
Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update` and look at the SVGs.
"""

from __future__ import annotations

import pytest

from teamtui.tui.screenshots import (
    CLAUDE_CODE_NOW,
    NARROW_SIZE,
    freeze_claude_code,
    make_app,
    show_finished_shutdown,
    transcripts_shown,
)

from .conftest import SIZE


def test_main_dark(snap_compare, frozen_native):
    assert snap_compare(make_app(frozen_native, "teamtui-dark"), terminal_size=SIZE)


def test_main_light(snap_compare, frozen_native):
    assert snap_compare(make_app(frozen_native, "teamtui-light"), terminal_size=SIZE)


def test_main_narrow_beside_tmux_panes(snap_compare, frozen_native):
    assert snap_compare(make_app(frozen_native, "teamtui-dark"), terminal_size=NARROW_SIZE)


def test_main_claude_layout(snap_compare, frozen_claude):
    assert snap_compare(make_app(frozen_claude, "teamtui-dark"), terminal_size=SIZE)


def test_main_claude_code_team_with_transcripts(snap_compare, tmp_path):
    # Claude Code 2.1.328's own files: the lead's row, what each one is doing, tokens, a request waiting.
    app = make_app(freeze_claude_code(tmp_path), "teamtui-dark", now=CLAUDE_CODE_NOW)
    assert snap_compare(app, run_before=transcripts_shown, terminal_size=SIZE)


def test_message_modal(snap_compare, frozen_native):
    assert snap_compare(make_app(frozen_native), press=["m", *"please rebase on main"], terminal_size=SIZE)


def test_shutdown_view(snap_compare, frozen_native):
    async def before(pilot):
        show_finished_shutdown(pilot.app)
        await pilot.pause()

    assert snap_compare(make_app(frozen_native), run_before=before, terminal_size=SIZE)


def test_answer_modal(snap_compare, tmp_path):
    # A permission request alice's hook waits on, in full (the file and the edit), with its answers.
    from teamtui.tui.screenshots import answer_shown

    app = make_app(freeze_claude_code(tmp_path), "teamtui-dark", now=CLAUDE_CODE_NOW)
    assert snap_compare(app, run_before=answer_shown, terminal_size=SIZE)


def test_fleet_overview(snap_compare, fleet_shot):
    # The control room: a native team and a Claude Code team with a request waiting, one listed need.
    from teamtui.tui.screenshots import fleet_shown, make_fleet_app

    assert snap_compare(make_fleet_app(), run_before=fleet_shown, terminal_size=SIZE)


# What a newcomer's terminal is likely to be: 120×30 (a laptop's half screen), 80×24 (the default).
@pytest.mark.parametrize("size", [(120, 30), (80, 24)], ids=["120x30", "80x24"])
def test_dashboard_at_common_sizes(snap_compare, frozen_native, size):
    assert snap_compare(make_app(frozen_native, "teamtui-dark"), terminal_size=size)


@pytest.mark.parametrize("size", [(120, 30), (80, 24)], ids=["120x30", "80x24"])
def test_claude_code_dashboard_at_common_sizes(snap_compare, tmp_path, size):
    app = make_app(freeze_claude_code(tmp_path), "teamtui-dark", now=CLAUDE_CODE_NOW)
    assert snap_compare(app, run_before=transcripts_shown, terminal_size=size)


# The room also at 100 columns: the Files column comes from there on.
@pytest.mark.parametrize("size", [(120, 30), (100, 30), (80, 24)], ids=["120x30", "100x30", "80x24"])
def test_room_at_common_sizes(snap_compare, fleet_shot, size):
    from teamtui.tui.screenshots import fleet_shown, make_fleet_app

    assert snap_compare(make_fleet_app(), run_before=fleet_shown, terminal_size=size)


def test_room_help_at_80x24(snap_compare, fleet_shot):
    # The control room's keys in a dialog that scrolls: the keys the key bar leaves out said first.
    from teamtui.tui.screenshots import fleet_shown, make_fleet_app

    assert snap_compare(make_fleet_app(), press=["question_mark"], run_before=fleet_shown, terminal_size=(80, 24))


def test_team_help_at_160x45(snap_compare, fleet_shot):
    # A team's keys, whole: one long description wraps in its own column, the other rows keep one line.
    from teamtui.tui.screenshots import fleet_shown, make_fleet_app

    async def before(pilot):
        await fleet_shown(pilot)
        await pilot.press("enter")
        for _ in range(500):
            if type(pilot.app.screen).__name__ == "DashboardScreen":
                break
            await pilot.pause(0.02)
        await pilot.pause()

    assert snap_compare(make_fleet_app(), press=["question_mark"], run_before=before, terminal_size=(160, 45))
