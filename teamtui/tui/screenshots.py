"""`python -m teamtui.tui.screenshots DIR`: SVGs of the main screens, from a frozen example team.

Deterministic (fixed clock, fixed mtimes, UTC, no cursor blink) so the pictures in the
README and the snapshot tests show the same thing.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "examples"
# The example team's own clock: a little after its last message.
FROZEN_NOW = 1763712130.0
SIZE = (140, 42)
# The dashboard's tmux pane beside its teammates' panes in a 160-column terminal.
NARROW_SIZE = (88, 44)
# A Claude Code 2.1.328 team (two teammates in tmux panes), and its clock: a little after its last line.
CLAUDE_CODE = "claude-2.1.328/tmux-running"
CLAUDE_CODE_NOW = 1795417400.0
# A permission request alice put in the lead's inbox (no such request in the recorded files).
_PERMISSION = {
    "type": "permission_request",
    "request_id": "perm-7f3a",
    "agent_id": "alice@session-421dba11",
    "tool_name": "Bash",
    "tool_use_id": "toolu_01",
    "description": "rm -rf build/",
    "input": {"command": "rm -rf build/"},
    "permission_suggestions": [],
}


# A permission request alice's hook waits on (an Edit: the file and the edit), as the room lists it.
_ASK: dict[str, Any] = {
    "id": "3f6c0d2a9b8e4c1d7a5f2e9b0c4d8a61",
    "kind": "permission",
    "team": "session-421dba11",
    "who": "alice",
    "text": "alice asks permission: Edit /src/app/app.py",
    "since": CLAUDE_CODE_NOW - 12,
    "answers": ("allow", "deny", "lead"),
    "detail": {
        "tool": "Edit",
        "what": {
            "file_path": "/src/app/app.py",
            "old_string": "def greet(name):\n    return 'hello ' + name",
            "new_string": 'def greet(name: str) -> str:\n    return f"hello {name}"',
        },
        "summary": "Edit /src/app/app.py",
        "deadline": CLAUDE_CODE_NOW + 288,
    },
}


def freeze_team(dest: Path, layout: str = "native", now: float = FROZEN_NOW) -> Path:
    """A copy of the example team with fixed mtimes, so relative times never drift."""
    root = dest / layout
    shutil.copytree(EXAMPLES / layout, root)
    for p in sorted(root.rglob("*"), reverse=True):
        os.utime(p, (now - 45, now - 45), follow_symlinks=False)
    os.utime(root, (now - 45, now - 45))
    return root


def freeze_claude_code(dest: Path) -> Path:
    """The Claude Code team with a permission request waiting in the lead's inbox."""
    root = freeze_team(dest, CLAUDE_CODE, CLAUDE_CODE_NOW)
    inbox = root / "teams" / "session-421dba11" / "inboxes" / "team-lead.json"
    entry = {"from": "alice", "text": json.dumps(_PERMISSION), "timestamp": "2026-11-23T07:03:10.000Z", "read": False}
    inbox.write_text(json.dumps([entry], indent=2), encoding="utf-8")
    os.utime(inbox, (CLAUDE_CODE_NOW - 45, CLAUDE_CODE_NOW - 45))
    return root


def make_app(
    root: Path,
    theme: str = "teamtui-dark",
    config_dir: Path | None = None,
    now: float = FROZEN_NOW,
    team: str | None = None,
):
    from teamtui.tui.app import TeamTUI

    config = (config_dir or root.parent) / "config.toml"
    config.write_text(f'theme = "{theme}"\n', encoding="utf-8")
    return TeamTUI.watching(root, team, config_path=config, clock=lambda: now, cursor_blink=False)


async def transcripts_shown(pilot) -> None:
    """Wait (on the app, not a clock) until the transcripts were read and drawn."""
    from teamtui.tui.widgets.header import TeamHeader
    from teamtui.tui.widgets.logs import PLACEHOLDER

    app = pilot.app
    for _ in range(500):
        feed = app.state.transcripts if app.state is not None else None
        board = app.dashboard
        strip = board.query_one("#log-strip") if board is not None else None
        small = board.query("#log-strip TeammateLog") if board is not None else []
        header = board.query_one("#header", TeamHeader) if board is not None else None
        if (
            feed is not None
            and board is not None
            and feed.ready
            and feed.cost() is not None  # every message priced (genai-prices loads after the first screen)
            and header is not None
            and "$" in header.shown  # ... and the header drew it
            and board.query_one("#needs-you").display
            and strip is not None
            and (not strip.display or (small and all(p.text_lines() != [PLACEHOLDER] for p in small)))
        ):
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def answer_shown(pilot) -> None:
    """The Claude Code team, and over it the answering dialog of a request alice's hook waits on."""
    from teamtui.session.items import Item
    from teamtui.tui.screens.answer import AnswerScreen

    await transcripts_shown(pilot)
    app = pilot.app
    app.push_screen(AnswerScreen(Item(**_ASK), app.dashboard.palette, team=_ASK["team"], cursor_blink=False))
    await pilot.pause()


def use_utc() -> None:
    os.environ["TZ"] = "UTC"
    time.tzset()


def show_finished_shutdown(app) -> None:
    """A finished shutdown with fixed request ids and replies (no files written), for pictures."""
    from teamtui.protocol.shutdown import Outcome, ShutdownRun

    run = ShutdownRun.mirror(app.state.name, ["hunter", "scout"], sender=app.state.lead, clock=lambda: FROZEN_NOW)
    run.started_at = FROZEN_NOW - 30
    hunter, scout = run.teammates["hunter"], run.teammates["scout"]
    hunter.request_id, hunter.outcome = "59e88dc7", Outcome.IN_PROGRESS
    hunter.pending_work = ["tests/test_login.py still flaky", "integration suite half written"]
    scout.request_id, scout.outcome, scout.artifacts_committed = "0a75b322", Outcome.CLEAN, True
    run.expire(FROZEN_NOW)
    app.dashboard.shutdowns.show(run)


# The control room's pictures need the same folder every time: the Where column shows it.
FLEET_BASE = Path(tempfile.gettempdir()) / "teamtui-fleet-shot"


def make_fleet_app(tmp: Path = FLEET_BASE, theme: str = "teamtui-dark"):
    """The control room over the frozen native team and the Claude Code team (its request
    waiting), every clock fixed; `tmp` is emptied first."""
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    from teamtui.protocol.settings import load_settings
    from teamtui.session.fleet import open_fleet
    from teamtui.tui.app import TeamTUI

    claude = freeze_claude_code(tmp / "cc")
    native = freeze_team(tmp / "proj", "native", CLAUDE_CODE_NOW - 30)
    config = tmp / "config.toml"
    config.write_text(f'theme = "{theme}"\n', encoding="utf-8")
    fleet = open_fleet(
        load_settings(config),
        roots=[native],
        cwd=tmp,
        claude_root=claude,
        clock=lambda: CLAUDE_CODE_NOW,
        registry=tmp / "registry",
        journal=tmp / "journal",
    )
    return TeamTUI(fleet, config_path=config, clock=lambda: CLAUDE_CODE_NOW, cursor_blink=False)


async def fleet_shown(pilot) -> None:
    """Until each team's row is in and the Claude Code team's transcripts were read (its request listed)."""
    from teamtui.tui.widgets.fleet import FleetNeeds

    for _ in range(1500):  # a cap only turns a hang into a picture of it
        screen = pilot.app.screen
        priced = any(r.cost is not None for _, r in getattr(screen, "rows", []))  # the Claude Code team's
        # Both teams' needs: the native teammate silent while holding a task, the request waiting.
        if screen.query(FleetNeeds) and len(screen.query_one(FleetNeeds).needs) >= 2 and priced:
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def _shoot(app, path: Path, keys: list[str], before=None, size: tuple[int, int] = SIZE) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if asyncio.iscoroutinefunction(before):
            await before(pilot)
        elif before is not None:
            before(app)
        for k in keys:
            await pilot.press(k)
            await pilot.pause()
        await pilot.pause()
        path.write_text(app.export_screenshot(), encoding="utf-8")


# Claude Code 2.1.332's own edits: alice writes and edits app.py, then bob edits it too.
EDITS_NOW = 1795747788.304 + 60


def freeze_edits(dest: Path) -> Path:
    root = dest / ".claude"
    shutil.copytree(EXAMPLES / "claude-2.1.332-edits" / ".claude", root)
    for p in sorted([root, *root.rglob("*")], reverse=True):
        p.chmod(0o755 if p.is_dir() else 0o644)
        os.utime(p, (EDITS_NOW, EDITS_NOW), follow_symlinks=False)
    return root


async def _until(pilot, cond) -> None:
    """Let the app run until `cond` holds (on the app, not a clock); a cap turns a hang into an error."""
    for _ in range(1000):
        if cond():
            return
        await pilot.pause(0.01)
    raise RuntimeError("the screen never got there")


async def changes_shown(pilot) -> None:
    """The changes view (c) on alice's app.py: her edits, and the collision with bob's."""
    from teamtui.tui.screens.changes import SEP, ChangesScreen

    app = pilot.app
    await _until(
        pilot, lambda: app.state is not None and app.state.transcripts is not None and app.state.transcripts.ready
    )
    await pilot.press("c")
    await _until(pilot, lambda: isinstance(app.screen, ChangesScreen))
    app.screen.select(f"f{SEP}alice{SEP}/src/app/app.py{SEP}seen")
    await pilot.pause()


async def _shoot_all(out: Path) -> None:
    shots = [
        ("main-dark.svg", "teamtui-dark", [], None, SIZE),
        ("main-light.svg", "teamtui-light", [], None, SIZE),
        ("main-narrow.svg", "teamtui-dark", [], None, NARROW_SIZE),
        ("message-modal.svg", "teamtui-dark", ["m", *"please rebase on main"], None, SIZE),
        ("shutdown-view.svg", "teamtui-dark", [], show_finished_shutdown, SIZE),
    ]
    for name, theme, keys, before, size in shots:
        with tempfile.TemporaryDirectory() as tmp:
            root = freeze_team(Path(tmp))
            await _shoot(make_app(root, theme), out / name, keys, before, size)
            print(out / name)
    with tempfile.TemporaryDirectory() as tmp:
        root = freeze_claude_code(Path(tmp))
        await _shoot(
            make_app(root, "teamtui-dark", now=CLAUDE_CODE_NOW), out / "main-claude-code.svg", [], transcripts_shown
        )
        print(out / "main-claude-code.svg")
    with tempfile.TemporaryDirectory() as tmp:
        root = freeze_claude_code(Path(tmp))
        await _shoot(make_app(root, "teamtui-dark", now=CLAUDE_CODE_NOW), out / "answer-modal.svg", [], answer_shown)
        print(out / "answer-modal.svg")
    with tempfile.TemporaryDirectory() as tmp:
        root = freeze_edits(Path(tmp))
        app = make_app(root, "teamtui-dark", now=EDITS_NOW, team=next(p.name for p in (root / "teams").iterdir()))
        await _shoot(app, out / "changes-view.svg", [], changes_shown)
        print(out / "changes-view.svg")
    await _shoot(make_fleet_app(), out / "fleet-overview.svg", [], fleet_shown)
    shutil.rmtree(FLEET_BASE, ignore_errors=True)
    print(out / "fleet-overview.svg")


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    use_utc()
    asyncio.run(_shoot_all(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
