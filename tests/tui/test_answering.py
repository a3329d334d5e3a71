"""Answering from the room and the team's dashboard (#30): a real `teamtui hook` process waits on a
PermissionRequest (the one the real Claude Code 2.1.332 sent for in-process alice) while the real
app runs under Pilot; the person allows it, denies it with a reason, or leaves it to the lead's
terminal, and the hook prints exactly that decision for Claude Code. A native team's held task
is retried from the room without opening the team. Hostile request text stays inert."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from teamtui.protocol.hooks import journal
from teamtui.protocol.hooks.answers import list_asks
from teamtui.protocol.hooks.place import ensure_spool
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import record_failure
from teamtui.session.answers import carry_out
from teamtui.session.items import Answered
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.answer import AnswerScreen, ReasonScreen
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.screens.fleet import FleetScreen
from teamtui.tui.widgets.fleet import FleetNeeds
from teamtui.tui.widgets.needs_you import NeedsYouStrip
from tests.conftest import EXAMPLES
from tests.protocol.hooks.helpers import recorded, start_hook

from .conftest import SIZE, open_from_strip, toasts, until

ALICE_ASKS = next(
    e for e in recorded("in-process") if e["hook_event_name"] == "PermissionRequest" and e.get("agent_type") == "alice"
)
TEAM = "session-" + ALICE_ASKS["session_id"][:8]
ALLOW = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}


def claude_team(tmp_path: Path) -> Path:
    """A Claude Code folder holding the team of the session whose hook asks (its name is the session's)."""
    claude = tmp_path / "claude"
    team = claude / "teams" / TEAM
    shutil.copytree(EXAMPLES / "claude" / "teams" / "work-team", team)
    shutil.copytree(EXAMPLES / "claude" / "tasks" / "work-team", claude / "tasks" / TEAM)
    cfg = json.loads((team / "config.json").read_text())
    cfg["name"] = TEAM
    (team / "config.json").write_text(json.dumps(cfg))
    return claude


def room(root: Path, tmp_path: Path) -> TeamTUI:
    return TeamTUI.watching(
        root, hooks=ensure_spool(), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False
    )


def hook_env(claude: Path) -> dict[str, str]:
    """Claude Code's environment for its hook: this test's HOME (so the same spool), its folder."""
    return {**os.environ, "CLAUDE_CONFIG_DIR": str(claude)}


async def finished(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = await asyncio.to_thread(proc.communicate, timeout=30)
    return proc.returncode, out, err


def asks_in_room(app: TeamTUI) -> list:
    return [n for needs in app.fleet.needs.values() for n in needs if n.kind == "ask"]


def team_row(app: TeamTUI):
    return next(row for _, row in app.fleet.overview.rows if row.team.name == TEAM)


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    return claude_team(tmp_path)


async def test_allowed_from_the_room_without_opening_the_team(claude: Path, tmp_path: Path) -> None:
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the lone team opened")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "the room")
        before = team_row(app).needs_you  # the example's teammate gone silent
        hook = start_hook(hook_env(claude), ALICE_ASKS)
        try:
            await until(pilot, lambda: len(asks_in_room(app)) == 1, "the request in the room's needs", limit=20)
            (need,) = asks_in_room(app)
            assert need.team_name == TEAM and need.member == "alice"
            needs = app.screen.query_one(FleetNeeds)
            line = str(needs.get_option_at_index(0).prompt)  # a hook's request first: it waits only so long
            assert "alice asks permission: Bash: echo ALICEPROBE > /src/app/out/aliceprobe.txt" in line
            assert team_row(app).needs_you == before + 1
            await pilot.press("tab")  # the needs list
            await until(pilot, lambda: app.screen.focused is needs, "the needs list focused")
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "the request in full")
            body = str(app.screen.query_one("#answer-body").render())
            assert "echo ALICEPROBE > /src/app/out/aliceprobe.txt" in body and "alice probe" in body
            assert "a allow" in str(app.screen.query_one("#answer-keys").render())
            await pilot.press("a")
            code, out, err = await finished(hook)
        finally:
            if hook.poll() is None:
                hook.kill()
        assert (code, json.loads(out), err) == (0, ALLOW, "")
        await until(pilot, lambda: any("allowed alice's Bash: echo ALICEPROBE" in t for t in toasts(app)), "told")
        await until(pilot, lambda: not asks_in_room(app), "gone from the needs")
        assert isinstance(app.screen, FleetScreen)  # answered without opening the team
    answered = [e for e in journal.read(ensure_spool()) if e["what"] == journal.ANSWERED]
    assert [(e["decision"], e["via"], e["who"]) for e in answered] == [("allow", "room", "alice")]


async def test_denied_with_a_reason_from_the_teams_dashboard(claude: Path, tmp_path: Path) -> None:
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team's dashboard")
        screen = app.screen
        hook = start_hook(hook_env(claude), ALICE_ASKS)
        try:
            strip = screen.query_one(NeedsYouStrip)
            await until(pilot, lambda: any(i.kind == "ask" for i in strip.items), "the request in the strip")
            assert strip.display and "alice asks permission: Bash" in str(strip.get_option_at_index(0).prompt)
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "the request in full")
            await pilot.press("d")
            await until(pilot, lambda: isinstance(app.screen, ReasonScreen), "asked why")
            await pilot.press(*"use the test fixture instead", "enter")
            code, out, err = await finished(hook)
        finally:
            if hook.poll() is None:
                hook.kill()
        decision = json.loads(out)["hookSpecificOutput"]["decision"]
        assert (code, err, decision) == (0, "", {"behavior": "deny", "message": "use the test fixture instead"})
        await until(pilot, lambda: any("denied alice's Bash" in t for t in toasts(app)), "told")
        await until(pilot, lambda: not any(i.kind == "ask" for i in strip.items), "gone from the strip")
        assert app.screen is screen


async def asked_on_dashboard(pilot, claude: Path, request: dict):
    """Once the team's dashboard is up, a hook of `claude`'s asks `request`: the hook's process."""
    await until(pilot, lambda: isinstance(pilot.app.screen, DashboardScreen), "the team's dashboard")
    return start_hook(hook_env(claude), request)


async def test_left_to_the_leads_terminal(claude: Path, tmp_path: Path) -> None:
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        hook = await asked_on_dashboard(pilot, claude, ALICE_ASKS)
        try:
            await open_from_strip(pilot, app, "ask", "the request in the strip")
            await pilot.press("l")
            code, out, err = await finished(hook)
        finally:
            if hook.poll() is None:
                hook.kill()
        assert (code, out, err) == (0, "", "")  # nothing printed: Claude Code's own dialog decides
        await until(
            pilot, lambda: any("left alice's Bash" in t and "lead's terminal" in t for t in toasts(app)), "told"
        )
        assert [o.state for o in app.fleet.answering.outcomes] == [Answered.MOVED]
        # Answered already: a second answer is told so (what came first, named), and nothing is answered twice.
        assert list_asks(ensure_spool()) == []
        (moved,) = list_asks(ensure_spool(), closed=True)
        again = carry_out(
            moved.id, "allow", "", spool=ensure_spool(), session=None, store=None, sender="me", via="room", where=""
        )
        assert (again.taken, again.state) == (False, Answered.MOVED) and "left to the lead's terminal" in again.text


async def test_hostile_request_text_is_shown_inert(claude: Path, tmp_path: Path) -> None:
    hostile = dict(
        ALICE_ASKS, tool_input={"command": "[bold red]rm -rf /[/] \x1b[2J\x1b]0;pwned\x07", "description": "x"}
    )
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        hook = await asked_on_dashboard(pilot, claude, hostile)
        try:
            await open_from_strip(pilot, app, "ask", "the request in the strip")
            body = app.screen.query_one("#answer-body").render()
            text = str(body)
            assert "[bold red]rm -rf /[/]" in text  # markup shown as typed, never applied
            assert "\x1b" not in text and "\\x1b[2J" in text  # the escape made visible, never sent
            assert not any("red" in str(span.style) for span in getattr(body, "spans", []))
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "closed, unanswered")
        finally:
            hook.kill()
            hook.wait()


async def test_a_held_task_is_retried_from_the_room(native_root: Path, tmp_path: Path) -> None:
    store = NativeTeam(native_root, "refactor-auth")
    for i in range(3):
        record_failure(store, "3", f"boom {i}")
    assert store.get_task("3").metadata.get("blocked_reason")
    app = room(native_root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the lone team opened")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "the room")
        held = [n for needs in app.fleet.needs.values() for n in needs if n.kind == "held"]
        assert [n.answer_id for n in held] == ["held:refactor-auth:3"]
        await pilot.press("a")  # on the team's row: its first need
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "the held task in full")
        keys = str(app.screen.query_one("#answer-keys").render())
        assert "r retry" in keys and "b block" in keys and "a allow" not in keys
        await pilot.press("r")
        await until(pilot, lambda: any("#3 back on the board" in t for t in toasts(app)), "told")
        await until(pilot, lambda: not any(n.kind == "held" for v in app.fleet.needs.values() for n in v), "not held")
        assert isinstance(app.screen, FleetScreen)
    task = store.get_task("3")
    assert not task.metadata.get("blocked_reason") and not task.metadata.get("failure_count")
    answered = [e for e in journal.read(ensure_spool()) if e["what"] == journal.ANSWERED]
    assert [(e["kind"], e["decision"], e["via"]) for e in answered] == [("held", "retry", "room")]


def _silent(store: NativeTeam, name: str, seconds: float = 3600) -> None:
    """`name` last did anything an hour ago (what the health rule reads: its files' times)."""
    import time

    old = time.time() - seconds
    for p in [*store.log_paths(name), store.inbox_path(name)]:
        if p.exists():
            os.utime(p, (old, old))


async def test_a_gone_teammates_tasks_released_and_a_message_sent_from_the_room(
    native_root: Path, tmp_path: Path
) -> None:
    store = NativeTeam(native_root, "refactor-auth")
    _silent(store, "hunter")
    app = room(native_root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the lone team opened")
        await open_from_strip(pilot, app, "disappeared", "hunter gone, in the strip")
        keys = str(app.screen.query_one("#answer-keys").render())
        assert "e release its tasks" in keys and "m message" in keys and "s restart" not in keys  # no run leads it
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, ReasonScreen), "the message asked for")
        await pilot.press(*"are you stuck on #2?", "enter")
        await until(pilot, lambda: any("sent to hunter as lead" in t for t in toasts(app)), "sent")
        _silent(store, "hunter")  # the message touched its inbox
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "the room")
        gone = lambda: [n for v in app.fleet.needs.values() for n in v if n.kind == "disappeared"]  # noqa: E731
        await until(pilot, lambda: gone(), "hunter gone, in the room")
        needs = app.screen.query_one(FleetNeeds)
        needs.focus()
        needs.highlighted = next(i for i, n in enumerate(needs.needs) if n.kind == "disappeared")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "what can be done")
        await pilot.press("e")
        await until(pilot, lambda: any("released #2 from hunter" in t for t in toasts(app)), "released")
    task = store.get_task("2")
    assert (task.owner, task.status.value) == ("", "pending")
    assert store.peek("hunter").messages[-1].content == "are you stuck on #2?"
    answered = [e for e in journal.read(ensure_spool()) if e["what"] == journal.ANSWERED]
    assert [(e["decision"], e["via"]) for e in answered] == [("message", "room"), ("release", "room")]


async def test_a_gone_teammates_dialog_names_the_teammate_its_task_and_its_team(
    native_root: Path, tmp_path: Path
) -> None:
    """Its need says only "no activity while holding a task": the dialog says whose, which task, which team."""
    _silent(NativeTeam(native_root, "refactor-auth"), "hunter")
    app = room(native_root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the lone team opened")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, FleetScreen), "the room")
        needs = app.screen.query_one(FleetNeeds)
        await until(pilot, lambda: any(n.kind == "disappeared" for n in needs.needs), "hunter gone, in the room")
        needs.focus()
        needs.highlighted = next(i for i, n in enumerate(needs.needs) if n.kind == "disappeared")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "what can be done")
        title = str(app.screen.query_one("#answer-title").render())
        sub = str(app.screen.query_one(".dialog-sub").render())
        assert "hunter: no activity while holding a task" in title
        assert "team refactor-auth · teammate hunter · task #2 Write integration tests" in sub


async def test_a_pane_teammates_request_not_on_the_leads_screen_is_said_so(tmp_path: Path) -> None:
    from teamtui.tui.screenshots import CLAUDE_CODE_NOW, freeze_claude_code

    root = freeze_claude_code(tmp_path)  # alice's permission request waits in the lead's inbox
    app = TeamTUI.watching(
        root,
        hooks=ensure_spool(),
        config_path=tmp_path / "none.toml",
        clock=lambda: CLAUDE_CODE_NOW,
        cursor_blink=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        strip = await open_from_strip(pilot, app, "permission", "alice's request in the strip")
        assert "pressed in the lead's own dialog" in str(app.screen.query_one(".dialog-sub").render())
        await pilot.press("a")
        said = "the lead's dialog does not show this request now (or the lead is in no tmux pane teamtui can reach)"
        await until(pilot, lambda: any(said in t for t in toasts(app)), "said why not")
        assert any(i.kind == "permission" for i in strip.items)  # still waiting: nothing was pressed
