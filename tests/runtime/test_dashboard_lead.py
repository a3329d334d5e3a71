"""The dashboard opened by `teamtui run`: S hands the team shutdown to the lead, and what the lead
drains from its own inbox still reaches the screen."""

from __future__ import annotations

import json

from teamtui.protocol.shutdown import Outcome
from tests.runtime.helpers import lead_with_dashboard, processes_of, team_toml
from tests.tui.conftest import until


async def test_S_in_the_dashboard_is_run_by_the_lead(tmp_path, monkeypatch):
    tf = tmp_path / "team.toml"
    # Two ready tasks start both teammates; #3 waits on them, so the team is still live when S is pressed.
    tf.write_text(
        team_toml(
            "dash",
            teammates=["a", "b"],
            tasks=[("first", []), ("second", []), ("third", [1, 2])],
            settings="restarts = 0\n",
        )
    )
    monkeypatch.setenv("WORK", "4")
    with lead_with_dashboard(tf, tmp_path) as (lead, app, outcome, thread):
        async with app.run_test(size=(140, 42)) as pilot:
            await until(
                pilot,
                lambda: sum(t.status.value == "in_progress" for t in app.state.tasks.values()) == 2,
                "both work",
                limit=30,
            )
            await pilot.press("S")
            assert type(app.screen).__name__ == "ShutdownConfirm"
            app.screen.query_one("#deadline").value = "10"
            await pilot.press("enter")
            await until(pilot, lambda: type(app.screen).__name__ == "ShutdownView", "the lead's run shown")
            # The view follows snapshots of the lead's own run: one set of requests, not two.
            ids = lambda run: {n: t.request_id for n, t in run.teammates.items()}  # noqa: E731
            assert ids(app.shutdown_run) == ids(lead.shutdown_run)
            await until(pilot, lambda: app.shutdown_run.done, "both teammates answer", limit=20)
            assert {n: t.outcome for n, t in app.shutdown_run.teammates.items()} == {
                "a": Outcome.CLEAN,
                "b": Outcome.CLEAN,
            }
            # The replies were drained by the lead, yet the message traffic shows them.
            await until(
                pilot, lambda: sum(m.type == "shutdown_response" for m in app.state.messages) == 2, "replies shown"
            )
        thread.join(30)
    assert not thread.is_alive()
    # Each teammate got exactly one shutdown request: the dashboard sent none of its own.
    results = [json.loads(p.read_text()) for p in (tmp_path / ".teams/dash/shutdown").glob("*.json")]
    assert sorted(r["teammate"] for r in results) == ["a", "b"]
    assert outcome and outcome[0].code == 0
    assert processes_of(tmp_path) == []
