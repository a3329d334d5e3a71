"""The room answers the real Claude Code (pinned, `make interop`): teamtui's hooks installed, the
control room running under Pilot in this process (it holds the room lock and follows the spool),
the lead's own Bash request allowed with the room's keys (it runs, its output reaches the model),
then its next one denied with a reason typed in the room (it does not run, the model's next
request holds the reason)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.protocol.hooks.place import ensure_spool
from teamtui.tui.app import TeamTUI
from teamtui.tui.screens.answer import AnswerScreen, ReasonScreen
from teamtui.tui.screens.dashboard import DashboardScreen
from teamtui.tui.widgets.fleet import FleetNeeds
from tests.interop.fakeapi import Reply, Request
from tests.interop.harness import who
from tests.interop.test_hooks import HookSession, ran
from tests.interop.test_real_claude import claude_installed  # noqa: F401 - fixture
from tests.tui.conftest import until

pytestmark = pytest.mark.interop


def lead_script(req: Request) -> Reply:
    """The lead asks for one Bash that writes a file (allowed), then another (denied), then idles."""
    done = req.tool_calls()
    if who(req) != "team-lead":
        return Reply(text="ok")
    if done.count("Bash") == 0:
        return Reply(tools=[("Bash", {"command": "echo ROOM-RAN-$((60+6)) | tee room-ran.txt", "description": "a"})])
    if done.count("Bash") == 1:
        return Reply(tools=[("Bash", {"command": "touch ROOM-DENIED.txt", "description": "b"})])
    return Reply(text="LEADIDLE")


@pytest.fixture
def lead(claude_installed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HookSession]:
    s = HookSession(tmp_path / "room", "in-process", script=lead_script, lead_flags="--permission-mode default")
    try:
        s.start()
        # This process is the room: the same HOME, spool and config as the lead's hooks.
        for key in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
            monkeypatch.setenv(key, s.teamtui_env()[key])
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(s.claude_dir))
        yield s
    finally:
        s.stop()


async def test_the_leads_bash_allowed_and_denied_from_the_room(lead: HookSession, tmp_path: Path) -> None:
    s = lead
    app = TeamTUI.watching(
        s.claude_dir, hooks=ensure_spool(), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False
    )

    def ask(marker: str) -> object:
        return next((n for v in app.fleet.needs.values() for n in v if n.kind == "ask" and marker in n.text), None)

    async def open_it(marker: str) -> None:
        await until(pilot, lambda: ask(marker), f"the request {marker} in the room")
        if not isinstance(app.screen, DashboardScreen):
            app.screen.query_one(FleetNeeds).focus()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), "the request in full", 10)

    async with app.run_test(size=(140, 42)) as pilot:
        s.prompt_lead()
        await open_it("ROOM-RAN")
        await pilot.press("a")  # allow
        await until(
            pilot, lambda: ran(s, "team-lead", "ROOM-RAN-66"), "the command ran and its output reached the model"
        )
        assert (s.cwd / "room-ran.txt").read_text().strip() == "ROOM-RAN-66"
        await open_it("ROOM-DENIED")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ReasonScreen), "asked why", 10)
        await pilot.press(*"ROOM-DENY-REASON not here", "enter")
        await until(pilot, lambda: ran(s, "team-lead", "ROOM-DENY-REASON not here"), "the reason reached the model")
        assert not (s.cwd / "ROOM-DENIED.txt").exists()
