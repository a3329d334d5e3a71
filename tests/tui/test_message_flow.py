"""The dashboard's messages: the fleet's feed posts FleetChanged per batch, widgets post their own
messages, and a lead-driven shutdown reports progress from the lead's thread while the keys
keep answering."""

from __future__ import annotations

import threading
from pathlib import Path

from textual.message import Message

from teamtui.protocol.layout import find_team
from teamtui.protocol.models import Message as InboxMessage
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.shutdown import DEFAULT_REASON, Outcome, ShutdownRun
from teamtui.tui.app import TeamTUI
from teamtui.tui.messages import FleetChanged, LeadMessagesDrained, ShutdownProgress
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

from .conftest import SIZE, RecordingPanes, cells, log_lines, make, until


def posted(seen: list[Message], kind: type) -> list:
    """Each message of this kind once (the hook sees a bubbling message at every node it reaches)."""
    return list({id(m): m for m in seen if isinstance(m, kind)}.values())


def led(root: Path, config: Path, **kw) -> TeamTUI:
    """The dashboard of a team this process leads (as under `teamtui run`)."""
    kw.setdefault("on_shutdown", lambda reason, deadline, on_progress: None)
    return TeamTUI.watching(root, "refactor-auth", "native", config_path=config, cursor_blink=False, **kw)


async def test_a_file_change_reaches_the_screen_as_one_team_changed(frozen_native, config_file):
    seen: list[Message] = []
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await pilot.pause(0.3)  # the watcher is up
        NativeTeam(frozen_native, "refactor-auth").log("hunter", "TOKEN-feed")
        await until(
            pilot,
            lambda: any("TOKEN-feed" in line for line in log_lines(app.dashboard.query_one("#log-main"))),
            "line shown",
        )
        batches = [
            b
            for m in posted(seen, FleetChanged)
            for b in m.batch.changes.values()
            if any(c.kind == "log" and c.key == "hunter" for c in b.changes)
        ]
        assert len(batches) == 1 and batches[0].changes[-1].entries[-1].text == "TOKEN-feed"


async def test_lead_messages_from_another_thread_are_shown(frozen_native, config_file):
    seen: list[Message] = []
    app = led(frozen_native, config_file)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        msg = InboxMessage(
            type="message", sender="hunter", recipient="lead", content="TOKEN-drained", timestamp=1763712100.0
        )
        thread = threading.Thread(target=app.ingest_lead_messages, args=([msg],))  # as the lead's thread does
        thread.start()
        thread.join()
        table = app.dashboard.query_one(MessageTraffic)
        await until(
            pilot, lambda: any("TOKEN-drained" in r for r in cells(table)), "the drained message in the traffic"
        )
        assert posted(seen, LeadMessagesDrained)


async def test_widgets_post_their_own_messages(frozen_native, config_file):
    seen: list[Message] = []
    panes = RecordingPanes()
    app = make(frozen_native, config_file, panes=panes)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await pilot.press("down")
        assert [m.name for m in posted(seen, TeamPanel.TeammateHighlighted)][-1] == "scout" == app.selected
        await pilot.press("enter")
        assert [m.name for m in posted(seen, TeamPanel.TeammateChosen)] == ["scout"]
        assert ("select", "scout") in panes.calls
        app.dashboard.query_one(TaskBoard).focus()
        await pilot.press("down", "enter")
        chosen = [m.task_id for m in posted(seen, TaskBoard.TaskChosen)]
        assert chosen == ["2"] and type(app.screen).__name__ == "TaskDetail"


def _run(store, outcomes: dict[str, Outcome]) -> ShutdownRun:
    """A lead's snapshot: a run whose requests went out, with these outcomes so far."""
    run = ShutdownRun(store, list(outcomes), sender="lead", deadline_seconds=30)
    run.started_at = 1763712100.0
    for i, (name, outcome) in enumerate(outcomes.items()):
        run.teammates[name].request_id = f"req{i}"
        run.teammates[name].outcome = outcome
    if run.done:
        run.finished_at = 1763712110.0
    return run


async def test_a_lead_driven_shutdown_reports_later_and_keys_still_answer(frozen_native, config_file):
    store = find_team(frozen_native)
    asked: list[tuple[str, float]] = []
    progress: list = []

    def on_shutdown(reason, deadline, on_progress) -> None:  # the lead's side: returns at once
        asked.append((reason, deadline))
        progress.append(on_progress)

    def requests() -> int:
        return sum(m.type == "shutdown_request" for n in ("hunter", "scout") for m in store.peek(n).messages)

    before = requests()
    seen: list[Message] = []
    panes = RecordingPanes()
    app = led(frozen_native, config_file, panes=panes, on_shutdown=on_shutdown)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await pilot.press("S")
        app.screen.query_one("#deadline").value = "7"
        await pilot.press("enter")
        assert asked == [(DEFAULT_REASON, 7.0)]
        # No run yet: the dashboard did not wait for one, and answers its keys.
        assert type(app.screen).__name__ == "DashboardScreen" and app.shutdown_run is None
        await pilot.press("t", "down")
        assert ("toggle", False) in panes.calls and app.selected == "scout"
        assert requests() == before, "the dashboard sent no request itself"

        # The lead's thread reports: the run started, then one reply, then done.
        def lead_reports() -> None:
            progress[0](_run(store, {"hunter": Outcome.REQUESTED, "scout": Outcome.REQUESTED}))
            progress[0](_run(store, {"hunter": Outcome.CLEAN, "scout": Outcome.REQUESTED}))

        threading.Thread(target=lead_reports).start()
        await until(pilot, lambda: type(app.screen).__name__ == "ShutdownView", "the view opens on the first report")
        await until(pilot, lambda: app.shutdown_run.teammates["hunter"].outcome is Outcome.CLEAN, "hunter's reply")
        table = app.screen.query_one("#shutdown-table")
        await until(
            pilot, lambda: "clean" in (cells(table) or [""])[0], "the view follows the snapshots"
        )  # rows come a frame later
        await pilot.press("escape")  # hidden; the lead goes on
        threading.Thread(
            target=progress[0], args=(_run(store, {"hunter": Outcome.CLEAN, "scout": Outcome.TIMED_OUT}),)
        ).start()
        await until(pilot, lambda: app.shutdown_run.done, "the lead's run finished")
        await until(
            pilot,
            lambda: any("Shutdown finished: 1 clean, 1 timed out" in str(n.message) for n in app._notifications),
            "announced",
        )
        assert len(posted(seen, ShutdownProgress)) >= 2


async def test_a_lead_that_starts_no_shutdown_is_reported(frozen_native, config_file):
    def on_shutdown(reason, deadline, on_progress) -> None:
        threading.Thread(target=on_progress, args=(None,)).start()

    app = led(frozen_native, config_file, on_shutdown=on_shutdown)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("S", "enter")
        await until(
            pilot, lambda: any("did not start a shutdown" in str(n.message) for n in app._notifications), "said so"
        )
        assert app.shutdown_run is None and type(app.screen).__name__ == "DashboardScreen"


async def test_a_lead_that_is_gone_is_reported(frozen_native, config_file):
    def on_shutdown(reason, deadline, on_progress) -> None:
        raise RuntimeError("the lead has exited")

    app = led(frozen_native, config_file, on_shutdown=on_shutdown)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("S", "enter")
        assert any("Shutdown not started: the lead has exited" in str(n.message) for n in app._notifications)
        await pilot.press("down")
        assert app.selected == "scout"


async def test_a_failing_batch_is_told_and_the_feed_goes_on(frozen_native, config_file):
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)  # the watcher is up
        state = app.state
        apply = state.apply
        failures: list[Path] = []

        def apply_failing_once(path):  # a fault in reading one batch (a bug, not a bad file: those are ReadErrors)
            if not failures:
                failures.append(path)
                raise RuntimeError("TOKEN-fault")
            return apply(path)

        state.apply = apply_failing_once
        team = NativeTeam(frozen_native, "refactor-auth")
        team.log("hunter", "TOKEN-lost-then-found")
        await until(
            pilot,
            lambda: any(
                "could not apply a change (RuntimeError: TOKEN-fault)" in str(n.message) for n in app._notifications
            ),
            "told",
        )
        # The feed restarted: its first batch re-reads what changed meanwhile, and later lines still arrive.
        main_log = app.dashboard.query_one("#log-main")
        await until(
            pilot,
            lambda: any("TOKEN-lost-then-found" in line for line in log_lines(main_log)),
            "the failed batch's line",
        )
        team.log("hunter", "TOKEN-after")
        await until(pilot, lambda: any("TOKEN-after" in line for line in log_lines(main_log)), "a later line")
