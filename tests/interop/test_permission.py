"""A real permission request: the lead runs Claude Code 2.1.328 in its default permission mode, so
alice's Bash call waits for the lead's approval and reaches `team-lead.json` as a
`permission_request`. teamtui's "Needs you" strip shows it while it waits, and it leaves the strip
once the lead answers (in its own pane, as a person would). Run with `make interop`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.fakeapi import Reply, Request
from tests.interop.harness import Session, spawn_alice, wait_until, who
from tests.interop.test_real_claude import claude_installed, start_teamtui  # noqa: F401 - fixture

pytestmark = pytest.mark.interop

PROBE = "PERMPROBE.txt"


def asks_permission(req: Request) -> Reply:
    """The lead spawns alice; alice runs one Bash command that needs approval, then idles."""
    agent, done = who(req), req.tool_calls()
    if agent == "team-lead":
        return spawn_alice(done)
    if agent == "alice" and "Bash" not in done:
        return Reply(tools=[("Bash", {"command": f"touch {PROBE}", "description": "Make the probe file"})])
    return Reply(text=f"{agent.upper()}IDLE")


@pytest.fixture
def waiting_for_approval(claude_installed: None, tmp_path: Path) -> Iterator[tuple[Session, str]]:
    s = Session(tmp_path / "claude-permission", "tmux", script=asks_permission, lead_flags="--permission-mode default")
    try:
        s.start()
        pane = start_teamtui(s)  # watching before the request: Claude Code prunes it within a second
        wait_until(lambda: s.team in s.capture(pane), "the dashboard on the session team", 30)
        s.prompt_lead()
        yield s, pane
    finally:
        s.stop()


def test_a_teammates_permission_request_waits_in_the_strip_until_the_lead_answers(
    waiting_for_approval: tuple[Session, str],
) -> None:
    s, pane = waiting_for_approval
    item = "alice asks permission for Bash: Make the probe file"
    try:
        wait_until(lambda: item in s.capture(pane), "the request in the Needs you strip", 60)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}; the screen:\n{s.capture(pane)}") from None
    assert "needs you" in s.capture(pane)
    assert not (s.cwd / PROBE).exists()  # nothing ran: it waits for the person
    # The person answers at the lead's prompt ("1. Yes" is selected): the command runs, the item goes.
    wait_until(lambda: "Do you want to proceed?" in s.capture("lead:0.0"), "the lead's approval prompt", 30)
    time.sleep(1)  # the prompt takes keys a moment after it is drawn
    s.keys("lead:0.0", "Enter")
    wait_until(lambda: (s.cwd / PROBE).exists(), "alice's command to run once approved", 30)
    wait_until(lambda: item not in s.capture(pane), "the answered request to leave the strip", 30)
