"""The room and the hooks around an answer (#30): a request nobody answers within `answer_wait`
is shown as moved to the lead's terminal; a room that quits hands a waiting request back at once;
a session that says it waits for a person is a need until it moves on; the room says once where
hooks would help (the flag kept in the user's state folder), never once they are installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from teamtui.protocol.hooks.install import hook_command, install, user_settings
from teamtui.protocol.hooks.place import state_home
from teamtui.tui.app import TeamTUI
from teamtui.tui.controllers.answers import HOOKS_HINT
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.widgets.team import TeamPanel
from tests.protocol.hooks.helpers import hook, start_hook

from .conftest import SIZE, cells, until
from .test_answering import ALICE_ASKS, TEAM, asks_in_room, claude_team, finished, hook_env, room, toasts


def room_needs(app: TeamTUI, kind: str) -> list:
    return [n for needs in app.fleet.needs.values() for n in needs if n.kind == kind]


def hint_looked(app: TeamTUI) -> bool:
    """The room looked whether to say where hooks would help (its worker ran to its end)."""
    return app.fleet._hinted and not any(w.group == "hooks-hint" and not w.is_finished for w in app.workers)


def answer_wait(seconds: float) -> None:
    """config.toml's answer_wait, as the hook reads it (this test's XDG_CONFIG_HOME)."""
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "teamtui"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(f"answer_wait = {seconds}\n")


async def test_nobody_answers_within_answer_wait_the_room_says_it_moved(tmp_path: Path) -> None:
    claude = claude_team(tmp_path)
    answer_wait(1)
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        proc = start_hook(hook_env(claude), ALICE_ASKS)
        await until(pilot, lambda: len(asks_in_room(app)) == 1, "the request listed")
        code, out, err = await finished(proc)
        assert (code, out, err) == (0, "", "")  # Claude Code's own dialog decides
        said = "alice's Bash: echo ALICEPROBE > /src/app/out/aliceprobe.txt: moved to the lead's terminal"
        await until(pilot, lambda: any(said in t and "nobody answered within 1 s" in t for t in toasts(app)), "said")
        await until(pilot, lambda: not asks_in_room(app), "no longer listed")


async def test_a_room_that_quits_hands_the_request_back_at_once(tmp_path: Path) -> None:
    claude = claude_team(tmp_path)
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        proc = start_hook(hook_env(claude), ALICE_ASKS)
        await until(pilot, lambda: len(asks_in_room(app)) == 1, "the request listed")
        quit_at = time.monotonic()
    code, out, err = await finished(proc)  # the app has ended: its room lock went with it
    assert (code, out, err) == (0, "", "")
    assert time.monotonic() - quit_at < 10  # not answer_wait (300 s by default): the room quit
    # With no room, a request is not even offered: Claude Code's dialog at once.
    assert hook(hook_env(claude), ALICE_ASKS).stdout == ""


async def test_a_session_waiting_for_a_person_is_a_need_until_it_moves_on(tmp_path: Path) -> None:
    claude = claude_team(tmp_path)
    idle = {
        "session_id": ALICE_ASKS["session_id"],
        "transcript_path": ALICE_ASKS["transcript_path"],
        "cwd": "/src/app",
        "hook_event_name": "Notification",
        "message": "Claude is waiting for your input",
        "notification_type": "idle_prompt",
    }
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        assert hook(hook_env(claude), idle).returncode == 0
        await until(pilot, lambda: len(room_needs(app, "waiting")) == 1, "the session waits for you")
        (need,) = room_needs(app, "waiting")
        assert need.team_name == TEAM and need.text == "team-lead waits for you: Claude is waiting for your input"
        strip = app.screen.query_one("#needs-you")
        await until(pilot, lambda: any(i.kind == "waiting" for i in strip.items), "in the team's strip")
        stop = {k: idle[k] for k in ("session_id", "transcript_path", "cwd")} | {"hook_event_name": "Stop"}
        assert hook(hook_env(claude), stop).returncode == 0  # it worked on: no longer waiting
        await until(pilot, lambda: not room_needs(app, "waiting"), "moved on")


def _row_of(panel: TeamPanel, name: str) -> str:
    return next((r for r in cells(panel) if name in r), "")


async def test_what_the_hooks_say_of_a_teammate_is_its_row(tmp_path: Path) -> None:
    """TeammateIdle and an in-process teammate's SubagentStart / SubagentStop are exact: the row
    shows them at once, while nothing newer of the teammate was seen, and a teammate its hook just
    spoke of is not flagged (nor called) as disappeared."""
    claude = claude_team(tmp_path)
    said = {k: ALICE_ASKS[k] for k in ("session_id", "transcript_path", "cwd")}
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        panel = app.screen.query_one(TeamPanel)
        # Silent for hours while holding a task: flagged, until its hook speaks of it.
        await until(pilot, lambda: "disappeared" in _row_of(panel, "researcher"), "researcher flagged")
        idle = said | {"hook_event_name": "TeammateIdle", "teammate_name": "researcher", "team_name": TEAM}
        assert hook(hook_env(claude), idle).returncode == 0
        await until(pilot, lambda: "idle" in _row_of(panel, "researcher"), "researcher idle, as its hook said")
        assert "0s ago" in _row_of(panel, "researcher")  # the hook's word is news of it: not disappeared
        # `teamtui status` says the same as the room (one truth), from the same spool.
        status = subprocess.run(
            [sys.executable, "-m", "teamtui", "status", "--json", "--layout", "claude", "--root", str(claude)]
            + ["--team", TEAM],
            capture_output=True,
            text=True,
            timeout=60,
        )
        members = {m["name"]: m["status"] for m in json.loads(status.stdout)["members"]}
        assert members["researcher"] == "idle", status.stderr
        start = said | {"hook_event_name": "SubagentStart", "agent_id": "awriter-0123456789abcdef"}
        assert hook(hook_env(claude), start | {"agent_type": "writer"}).returncode == 0
        await until(pilot, lambda: "working" in _row_of(panel, "writer"), "writer working, as its hook said")
        # A hostile name names nobody: no row appears for it, nothing breaks.
        odd = idle | {"teammate_name": "[b]x[/b]\x1b[31m", "team_name": TEAM}
        assert hook(hook_env(claude), odd).returncode == 0
        stop = start | {"hook_event_name": "SubagentStop", "agent_type": "writer"}
        assert hook(hook_env(claude), stop).returncode == 0
        await until(pilot, lambda: "idle" in _row_of(panel, "writer"), "writer idle again")
        assert not any("[b]x" in r for r in cells(panel))


async def test_the_room_says_once_where_hooks_would_help(tmp_path: Path) -> None:
    claude = claude_team(tmp_path)
    for said_before in (False, True):
        app = room(claude, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
            if not said_before:
                await until(pilot, lambda: HOOKS_HINT in toasts(app), "the hint")
            else:
                await until(pilot, lambda: hint_looked(app), "the look at the hooks")
                assert HOOKS_HINT not in toasts(app)
    assert (state_home() / "teamtui" / "said" / "hooks-hint").exists()


async def test_with_hooks_installed_the_room_says_nothing_of_them(tmp_path: Path) -> None:
    claude = claude_team(tmp_path)
    install(user_settings(), hook_command())
    assert json.loads(user_settings().read_text())["hooks"]["PermissionRequest"]
    app = room(claude, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DashboardScreen), "the team")
        await until(pilot, lambda: hint_looked(app), "the look at the hooks")
        assert HOOKS_HINT not in toasts(app)
    assert not (state_home() / "teamtui" / "said" / "hooks-hint").exists()  # said should they go
