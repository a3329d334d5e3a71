"""The real dashboard, driven by Pilot against real team directories."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from teamtui.protocol.layout import find_team
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.shutdown import Outcome
from teamtui.tui.widgets.fleet import FleetTable
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel

from .conftest import SIZE, RecordingPanes, cells, log_lines, make, until


def inbox_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_message_native_written_then_read(frozen_native, config_file):
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("m", *"rebase first", "enter")
        last = inbox_lines(frozen_native / ".teams/refactor-auth/hunter_inbox.jsonl")[-1]
        assert last["type"] == "message" and last["sender"] == "lead" and last["content"] == "rebase first"
        assert any("Message written to hunter" in str(n.message) for n in app._notifications)
        table = app.dashboard.query_one(MessageTraffic)
        await until(pilot, lambda: any(r.endswith("| unread | rebase first") for r in cells(table)), "unread shown")
        # The recipient drains its inbox: the message turns read.
        NativeTeam(frozen_native, "refactor-auth").drain("hunter")
        await until(pilot, lambda: any(r.endswith("| read | rebase first") for r in cells(table)), "read shown")


async def test_message_claude_and_escape_cancels(frozen_claude, config_file):
    app = make(frozen_claude, config_file)
    inbox = frozen_claude / "teams/work-team/inboxes/researcher.json"
    before = json.loads(inbox.read_text())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the lead is not a row: researcher is first
        assert app.dashboard.query_one(TeamPanel).selected == "researcher"
        await pilot.press("m", *"never sent", "escape")
        assert json.loads(inbox.read_text()) == before
        await pilot.press("m", *"map the grammar", "enter")
    entry = json.loads(inbox.read_text())[-1]
    # teamtui writes under its own name: Claude Code marks anything else claiming to be its lead unverified.
    assert entry["from"] == "teamtui" and entry["text"] == "map the grammar" and entry["read"] is False
    assert entry["timestamp"].endswith("Z")


async def test_broadcast_native_and_claude(frozen_native, frozen_claude, config_file):
    async with make(frozen_native, config_file).run_test(size=SIZE) as pilot:
        await pilot.press("b", *"freeze the API", "enter")
    team = frozen_native / ".teams/refactor-auth"
    for name in ("hunter", "scout"):
        last = inbox_lines(team / f"{name}_inbox.jsonl")[-1]
        assert last["type"] == "broadcast" and last["content"] == "freeze the API"
    assert inbox_lines(team / "tracer_inbox.jsonl") == []  # shut down: no broadcast
    async with make(frozen_claude, config_file).run_test(size=SIZE) as pilot:
        await pilot.press("b", *"freeze the API", "enter")
    for name in ("researcher", "writer"):
        assert (
            json.loads((frozen_claude / f"teams/work-team/inboxes/{name}.json").read_text())[-1]["text"]
            == "freeze the API"
        )


async def _answer(store, name: str, status: str) -> None:
    """A teammate that answers its shutdown request through the protocol library."""
    while True:
        mine = [m for m in store.peek(name).messages if m.type == "shutdown_request" and m.payload is not None]
        fresh = [m for m in mine if m.payload.request_id not in ("a1b2c3d4",) and m.payload.request_id]
        if fresh:
            store.send_shutdown_response(name, fresh[-1].payload.request_id, approve=True, status=status)
            return
        await asyncio.sleep(0.05)


async def _confirm(pilot, deadline: str) -> None:
    screen = pilot.app.screen
    screen.query_one("#deadline").value = deadline
    await pilot.press("enter")


async def test_shutdown_one_clean_one_silent_native(frozen_native, config_file):
    app = make(frozen_native, config_file)
    store = find_team(frozen_native)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("S")
        assert type(app.screen).__name__ == "ShutdownConfirm"
        answering = asyncio.create_task(_answer(store, "hunter", "clean"))
        await _confirm(pilot, "2")
        assert type(app.screen).__name__ == "ShutdownView"
        await until(pilot, lambda: app.shutdown_run.teammates["hunter"].outcome is Outcome.CLEAN, "hunter clean")
        assert not app.shutdown_run.done  # scout is silent: still requested, UI still responsive
        await pilot.press("escape")  # hide the view; the run goes on
        assert type(app.screen).__name__ != "ShutdownView"
        await until(pilot, lambda: app.shutdown_run.done, "deadline passes")
        await answering
        app.dashboard.shutdowns.show()  # the view again, now with the verification summary
        await pilot.pause()
        summary = str(app.screen.query_one("#shutdown-summary").render())
        assert "hunter: clean" in summary and "scout: timed out" in summary
        assert "#2 Write integration tests" in summary
        run = app.shutdown_run
    for t in run.teammates.values():
        result = json.loads((frozen_native / f".teams/refactor-auth/shutdown/{t.request_id}.json").read_text())
        assert result["outcome"] == t.outcome.value
    scout_req = inbox_lines(frozen_native / ".teams/refactor-auth/scout_inbox.jsonl")[-1]
    assert scout_req["type"] == "shutdown_request" and scout_req["deadline_seconds"] == 2.0


async def test_shutdown_news_while_the_view_is_taken_down_is_not_a_crash(frozen_native, config_file):
    """News of the run can reach a view whose parts are already removed (the app closing): it
    is dropped, and the app goes on instead of dying on a missing widget."""
    from textual.containers import Vertical

    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("S")
        await _confirm(pilot, "30")
        view = app.screen
        assert type(view).__name__ == "ShutdownView"
        await view.query_one(Vertical).remove()  # the parts go first when a screen is taken down
        view.show_run(app.shutdown_run, [])
        view.refresh_countdown()
        await pilot.pause()
        assert app.is_running and app._exception is None


async def test_a_native_team_led_by_another_process_gets_teamtuis_own_name(frozen_native, config_file):
    """While `teamtui run` leads the team in another process, the dashboard is not its lead: a
    message goes under teamtui's own name, and S asks that lead instead of writing its requests."""
    from teamtui.protocol.native.leadpid import mark_lead

    store = find_team(frozen_native)
    lead = subprocess.Popen(["sleep", "60"])  # stands for the other process's lead
    team = frozen_native / ".teams/refactor-auth"
    before = {n: inbox_lines(team / f"{n}_inbox.jsonl") for n in ("hunter", "scout")}
    try:
        mark_lead(store, lead.pid)
        app = make(frozen_native, config_file)
        told: list[str] = []
        notify = app.notify
        app.notify = lambda message, *a, **k: (told.append(str(message)), notify(message, *a, **k))[1]  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("m", *"rebase first", "enter")
            await until(
                pilot,
                lambda: len(inbox_lines(team / "hunter_inbox.jsonl")) > len(before["hunter"]),
                "the message written",
            )
            last = inbox_lines(team / "hunter_inbox.jsonl")[-1]
            assert last["sender"] == "teamtui" and last["content"] == "rebase first"
            await pilot.press("S")
            await _confirm(pilot, "5")
            await until(pilot, lambda: any(f"pid {lead.pid}" in t for t in told), "the ask told")
            assert app.shutdown_run is None  # nothing run in the lead's name
        asked = inbox_lines(team / "lead_inbox.jsonl")[-1]
        assert asked["type"] == "shutdown_request" and asked["sender"] == "teamtui"
        assert asked["deadline_seconds"] == 5.0 and asked["teammates"] == []
        after = {n: inbox_lines(team / f"{n}_inbox.jsonl") for n in ("hunter", "scout")}
        assert after["scout"] == before["scout"]  # no request written to a teammate as the lead
        assert not any(e["type"] == "shutdown_request" for e in after["hunter"])
    finally:
        lead.kill()
        lead.wait()


async def test_shutdown_selected_teammate_claude_asks_the_lead(frozen_claude, config_file):
    """Claude Code refuses shutdown requests not signed by its lead: `x` asks the lead instead."""
    app = make(frozen_claude, config_file)
    before = json.loads((frozen_claude / "teams/work-team/inboxes/researcher.json").read_text())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        assert app.screen.targets == ["researcher"]
        await _confirm(pilot, "5")
        assert app.shutdown_run.teammates["researcher"].outcome is Outcome.REQUESTED
        assert "asked team-lead" in app.shutdown_run.teammates["researcher"].detail
    entry = json.loads((frozen_claude / "teams/work-team/inboxes/team-lead.json").read_text())[-1]
    assert entry["from"] == "teamtui" and "shut down teammate researcher gracefully" in entry["text"]
    assert json.loads((frozen_claude / "teams/work-team/inboxes/researcher.json").read_text()) == before


async def test_file_from_another_process_shows_up(frozen_native, config_file):
    app = make(frozen_native, config_file)
    told: list[
        str
    ] = []  # every toast, kept: a routine one leaves the screen after 3 s, sooner than a loaded machine redraws
    notify = app.notify
    app.notify = lambda message, *a, **k: (told.append(str(message)), notify(message, *a, **k))[1]  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        main_log = app.dashboard.query_one("#log-main")
        code = (
            "import sys; from teamtui.protocol.native import NativeTeam;"
            "NativeTeam(sys.argv[1], 'refactor-auth').log('hunter', 'from another process', 'error');"
            "NativeTeam(sys.argv[1], 'refactor-auth').complete_task('2')"
        )
        await asyncio.to_thread(subprocess.run, [sys.executable, "-c", code, str(frozen_native)], check=True)
        await until(
            pilot, lambda: any("from another process" in line for line in log_lines(main_log)), "log line on screen"
        )
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: any(r.startswith("✓ | 2 ") for r in cells(board)), "task 2 completed on the board")
        await until(pilot, lambda: any("#2 completed" in m for m in told), "a toast says task 2 completed")


async def test_markup_and_escapes_show_literally(frozen_native, config_file):
    team = frozen_native / ".teams/refactor-auth"
    evil = "[bold red]x[/] \x1b]52;c;cHduZWQ=\x07 \x1b[31mred \u202eevil"
    with open(team / "logs/hunter.jsonl", "a") as fh:
        fh.write(json.dumps({"ts": 1763712050.0, "level": "info", "text": evil}) + "\n")
    with open(team / "hunter_inbox.jsonl", "a") as fh:
        fh.write(
            json.dumps({"type": "message", "sender": "[link=x]lead[/link]", "content": evil, "timestamp": 1763712051.0})
            + "\n"
        )
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        line = "".join(log_lines(app.dashboard.query_one("#log-main")))  # a long line wraps
        assert "[bold red]x[/] \\x1b]52;c;cHduZWQ=\\x07 \\x1b[31mred \\u202eevil" in line
        rows = cells(app.dashboard.query_one(MessageTraffic))
        assert any("[link=x]lead[/link]" in r and "[bold red]x[/]" in r and "\\x1b]52" in r for r in rows)
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\u202e" not in svg


async def test_health_flag_and_clear(frozen_native, config_file):
    """A teammate silent past the health timeout is flagged and called; its activity clears the
    flag. What the room found flagged on its first look is listed, never called: so the call is
    checked on a flag that comes back after activity (on any machine load, the same order)."""
    team = NativeTeam(frozen_native, "refactor-auth")
    app = make(frozen_native, config_file, health_timeout=2.0)  # time enough to see "working" between
    said = lambda: sum("hunter disappeared" in str(n.message) for n in app._notifications)  # noqa: E731
    async with app.run_test(size=SIZE) as pilot:
        panel = app.dashboard.query_one(TeamPanel)
        await until(pilot, lambda: "⚠ disappeared" in cells(panel)[0], "hunter flagged (silent for long)")
        assert said() == 0  # there before the room looked: listed, not called
        team.log("hunter", "still here")
        await until(pilot, lambda: "working" in cells(panel)[0], "activity clears the flag")
        await until(pilot, lambda: "⚠ disappeared" in cells(panel)[0], "hunter flagged again by the health timer")
        await until(pilot, lambda: said() == 1, "the call")  # it may come a frame after the row
        team.log("hunter", "back again")
        await until(pilot, lambda: "working" in cells(panel)[0], "activity clears the flag again")


async def test_focus_filter_toggle_help_and_quit(frozen_native, config_file):
    panes = RecordingPanes()
    app = make(frozen_native, config_file, panes=panes)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        assert ("select", "scout") in panes.calls and app.selected == "scout"
        assert ("sync", ["hunter", "scout"]) in panes.calls
        await pilot.press("t")
        assert ("toggle", False) in panes.calls
        await pilot.press("slash", *"review")
        assert [r.split(" | ")[1] for r in cells(app.dashboard.query_one(TaskBoard))] == ["5"]
        await pilot.press("escape")
        assert len(cells(app.dashboard.query_one(TaskBoard))) == 5
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape", "q")
    assert panes.calls[-1] == ("close_all", None)


async def test_task_detail_shows_chain(frozen_native, config_file):
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        app.dashboard.query_one(TaskBoard).focus()
        await pilot.press("down", "down", "down", "down", "enter")
        text = app.screen.render_task().plain
        assert "Final review" in text and "#4 pending" in text and "#2 in progress" in text
        assert "#9 missing dependency" in text


async def test_keymap_remap_and_theme_remembered(frozen_native, config_file):
    config_file.parent.mkdir(parents=True)
    config_file.write_text('[keymap]\nmessage = "n"\n')
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        assert type(app.screen).__name__ == "MessageModal"
        await pilot.press("escape")
        app.switch_theme("teamtui-light")
        await pilot.pause()
        assert app.current_theme.name == "teamtui-light"
    text = config_file.read_text()
    assert 'theme = "teamtui-light"' in text and '[keymap]\nmessage = "n"' in text
    app2 = make(frozen_native, config_file)
    async with app2.run_test(size=SIZE):
        assert app2.current_theme.name == "teamtui-light"


async def test_with_no_team_the_room_says_where_it_looks_and_opens_the_first_that_appears(tmp_path, config_file):
    root = tmp_path / "empty"
    root.mkdir()
    app = make(root, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen is app.fleet.overview
        shown = str(app.screen.query_one("#fleet-empty").render())
        assert "teamtui demo" in shown and str(root / ".teams") in shown
        await pilot.pause(0.2)
        store = NativeTeam(root, "late-team")
        store.create()
        await until(pilot, lambda: app.state is not None and app.screen is app.dashboard, "team picked up")
        assert app.state.name == "late-team"


async def test_several_teams_are_rows_of_the_room_and_enter_opens_one(frozen_native, config_file):
    NativeTeam(frozen_native, "second").create()
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen is app.fleet.overview
        table = app.screen.query_one(FleetTable)
        names = [r.split(" | ")[0].split()[0] for r in cells(table)]
        assert sorted(names) == ["refactor-auth", "second"]
        table.move_cursor(row=names.index("second"))
        await pilot.press("enter")
        await until(pilot, lambda: app.state is not None, "picked")
        assert app.state.name == "second"
