"""Words a person reads on the dashboard: one word for one thing."""

from __future__ import annotations

from pathlib import Path

from teamtui.tui.screens.shutdown_view import ShutdownView
from teamtui.tui.screenshots import make_app, show_finished_shutdown

from .conftest import SIZE, until


async def test_the_shutdown_summary_says_in_progress_of_tasks_only(frozen_native: Path) -> None:
    # hunter answered with status in_progress (it stopped before its work was done) while #2 is
    # still in progress on the board: two things, two words.
    app = make_app(frozen_native)
    async with app.run_test(size=SIZE) as pilot:
        show_finished_shutdown(app)
        await until(pilot, lambda: isinstance(app.screen, ShutdownView) and app.screen._ready, "the shutdown view")
        view = app.screen
        assert isinstance(view, ShutdownView)
        summary = view.summary_text().plain
        hunter_state = str(view._table.get_cell("hunter", "state"))
    assert "hunter: left work unfinished · pending work: tests/test_login.py still flaky" in summary
    assert "1 left work unfinished" in summary
    assert "tasks still in progress: #2 Write integration tests (hunter)" in summary
    assert summary.count("in progress") == 1, summary
    assert hunter_state.endswith("left work unfinished")
