"""Leaving the app: q and ctrl+c on the team this process leads (`teamtui run`) ask whether to stop
it, keep it running headless or stay; the demo's team stops (the key bar says so); a dashboard that
only watches quits. On the graceful shutdown's view q hides it, as on the other views, ctrl+c quits
as everywhere, and its words follow the run (finished: nothing "goes on")."""

from __future__ import annotations

from pathlib import Path

from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.leave_lead import KEEP, Leading, LeaveLead
from teamtui.tui.screens.shutdown_view import ShutdownView
from teamtui.tui.widgets.footer import KeyFooter

from .conftest import SIZE, until

TEAM = "refactor-auth"


def led(root: Path, config: Path, *, running: bool = True, simulated: bool = False) -> TeamTUI:
    """The dashboard of a team this process leads (as under `teamtui run`; `simulated`: `teamtui demo`)."""
    leading = Leading(TEAM, lambda: running, pid=4242, simulated=simulated)
    return TeamTUI.watching(
        root,
        TEAM,
        "native",
        config_path=config,
        cursor_blink=False,
        on_shutdown=lambda reason, deadline, on_progress: None,
        leading=leading,
    )


def watched(root: Path, config: Path) -> TeamTUI:
    return TeamTUI.watching(root, TEAM, "native", config_path=config, cursor_blink=False)


async def _dashboard(pilot) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, DashboardScreen) and pilot.app.state, "the team's screen")


def _text(screen) -> str:
    return "\n".join(str(s.render()) for s in screen.query("Static"))


def _bar(app) -> dict[str, str]:
    return {s.key: s.description for s in app.screen.query_one(KeyFooter).slots}


async def test_q_on_a_led_team_asks_and_escape_stays(frozen_native, config_file):
    app = led(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, LeaveLead)
        said = _text(app.screen)
        assert "refactor-auth" in said and "pid 4242" in said
        assert "stop the team" in said and "keep it running headless" in said and "cancel" in said
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen) and app.is_running
        # Ctrl-C asks the same; pressed again it waits for the answer (one question, not two).
        await pilot.press("ctrl+c")
        assert isinstance(app.screen, LeaveLead)
        await pilot.press("ctrl+c", "q")
        assert isinstance(app.screen, LeaveLead) and len(app.screen_stack) == 3
        await pilot.press("c")
        assert isinstance(app.screen, DashboardScreen) and app.is_running


async def left_with(root: Path, config_file: Path, *keys: str) -> TeamTUI:
    """A led team's dashboard, left with `keys` (the question and its answer): the app, once ended."""
    app = led(root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot)
        await pilot.press(*keys)
        await until(pilot, lambda: not app.is_running, "the app ends")
    return app


async def test_s_in_the_question_stops_the_team(frozen_native, config_file):
    app = await left_with(frozen_native, config_file, "q", "s")
    assert app.return_value is None  # run_with_dashboard stops the lead, as before


async def test_k_in_the_question_keeps_the_team_running_headless(frozen_native, config_file):
    app = await left_with(frozen_native, config_file, "ctrl+c", "k")
    assert app.return_value == KEEP  # run_with_dashboard leaves the lead running


async def test_q_quits_at_once_once_the_lead_is_done(frozen_native, config_file):
    app = led(frozen_native, config_file, running=False)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot)
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the app ends")
    assert app.return_value is None


async def test_the_demo_stops_on_q_and_says_so(frozen_native, config_file):
    app = led(frozen_native, config_file, simulated=True)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot)
        await until(pilot, lambda: "q" in _bar(app), "the key bar")
        assert _bar(app)["q"] == "Stop demo"
        await pilot.press("question_mark")
        assert "Stop the demo team and quit" in _text(app.screen)
        await pilot.press("escape", "q")
        await until(pilot, lambda: not app.is_running, "the demo ends")
    assert app.return_value is None


async def test_a_watching_dashboard_quits_on_q(frozen_native, config_file):
    app = watched(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot)
        assert _bar(app)["q"] == "Quit"
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the app ends")


async def _shutdown_view(pilot, deadline: str) -> ShutdownView:
    """x on the selected teammate (hunter), confirmed with `deadline` seconds: the run's view."""
    await _dashboard(pilot)
    await pilot.press("x")
    pilot.app.screen.query_one("#deadline").value = deadline
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, ShutdownView), "the shutdown's view")
    return pilot.app.screen


async def test_q_hides_the_shutdown_view_and_its_words_follow_the_run(frozen_native, config_file):
    app = watched(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        view = await _shutdown_view(pilot, "1")
        assert "esc/q hide (the shutdown goes on)" in _text(view)
        await pilot.press("q")  # hidden; the run goes on
        assert isinstance(app.screen, DashboardScreen) and app.is_running
        assert not app.shutdown_run.done
        await until(pilot, lambda: app.shutdown_run.done, "the deadline passes")
        app.dashboard.shutdowns.show()
        await until(pilot, lambda: isinstance(app.screen, ShutdownView), "the view again")
        view = app.screen
        await until(pilot, lambda: "finished" in _text(view), "drawn finished")
        said = _text(view)
        assert "esc/q close" in said and "goes on" not in said
        await pilot.press("q")
        assert isinstance(app.screen, DashboardScreen) and app.is_running


async def test_a_finishing_run_changes_the_words_of_the_open_view(frozen_native, config_file):
    app = watched(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        view = await _shutdown_view(pilot, "1")
        assert "goes on" in _text(view)
        await until(pilot, lambda: "esc/q close" in _text(view), "the view says close once finished")
        assert "goes on" not in _text(view)


async def test_ctrl_c_on_the_shutdown_view_quits_as_everywhere(frozen_native, config_file):
    app = watched(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await _shutdown_view(pilot, "30")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the app ends")


async def test_ctrl_c_on_the_shutdown_view_of_a_led_team_asks(frozen_native, config_file):
    app = led(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await _shutdown_view(pilot, "30")
        await pilot.press("ctrl+c")
        assert isinstance(app.screen, LeaveLead)
        await pilot.press("escape")
        assert isinstance(app.screen, ShutdownView)  # back where it was asked


async def test_ctrl_c_in_a_dialog_one_types_in_keeps_the_text(frozen_native, config_file):
    app = watched(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot)
        await pilot.press("m", *"half a thought", "ctrl+c")
        assert type(app.screen).__name__ == "MessageModal" and app.is_running
        assert app.screen.query_one("Input").value == "half a thought"
