"""teamtui started before the real Claude Code: its no-team screen opens the session team the
moment the lead creates it, and the tasks come from the list the lead's
$CLAUDE_CODE_TASK_LIST_ID names, not the team's own folder. Run with `make interop`."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.harness import REPO, Session, claude_bin, tmux_env, wait_until
from tests.interop.test_real_claude import teamtui_in_tmux

pytestmark = pytest.mark.interop

TASK_LIST = "sprint-one"


@pytest.fixture
def watched_early(tmp_path: Path) -> Iterator[tuple[Session, str]]:
    """A HOME with no team yet and `teamtui` already watching it, in its own tmux server; then the
    lead is started with a task list of its own."""
    if claude_bin() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Claude Code is not installed (make interop installs it with npm)")
        pytest.skip("Claude Code is not installed: run `make interop`")
    s = Session(tmp_path, "in-process", extra_env={"CLAUDE_CODE_TASK_LIST_ID": TASK_LIST})
    s.write_home()
    socket = f"teamtui-early-{uuid.uuid4().hex[:8]}"
    env = {
        "HOME": str(s.home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO),
        "XDG_CONFIG_HOME": str(s.home / ".config"),
        "XDG_STATE_HOME": str(s.state_dir),
    }

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=20, env=tmux_env()
        ).stdout

    tmux(
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "dash",
        "-x",
        "160",
        "-y",
        "48",
        *teamtui_in_tmux(s, env),
    )
    try:
        yield s, socket
    finally:
        tmux("kill-server")
        s.stop()


def test_the_no_team_screen_opens_the_session_team_and_its_task_list(watched_early: tuple[Session, str]) -> None:
    s, socket = watched_early

    def screen() -> str:
        return subprocess.run(
            ["tmux", "-L", socket, "capture-pane", "-p", "-J", "-t", "dash"], capture_output=True, text=True, timeout=20
        ).stdout

    wait_until(lambda: "No team found" in screen(), "the no-team screen", 30)
    s.start()  # the lead creates its session team
    wait_until(lambda: s.team in screen() and "No team found" not in screen(), "the dashboard to open the new team", 30)
    s.prompt_lead()  # it spawns alice and bob and creates a task
    wait_until(lambda: "probe task one" in screen(), "the task from the lead's own task list", 90)
    tasks = s.claude_dir / "tasks"
    assert any((tasks / TASK_LIST).glob("*.json")), "the lead wrote its task to the list it was told"
    assert not any((tasks / s.team).glob("*.json")), "nothing in the team's own folder: teamtui read the right list"
    wait_until(lambda: "alice" in screen() and "bob" in screen(), "the teammates on screen", 60)
