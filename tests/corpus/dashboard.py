"""Drive the real dashboard (TeamTUI under Pilot) over a team directory and report what it shows:
the problems list, team rows, task rows, message texts and log lines. Used by the corpus and the
racing-writers tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from teamtui.tui.app import TeamTUI
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.logs import LogStrip
from teamtui.tui.widgets.messages import MessageTraffic
from teamtui.tui.widgets.problems import ProblemList
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel
from tests.tui.conftest import until as wait_until

SIZE = (140, 42)
WAIT = 60.0  # seconds: only a hang ever reaches it; waits end as soon as the screen shows the thing


def make_app(root: Path, team: str, layout: str) -> TeamTUI:
    # As `teamtui watch --root ROOT --team TEAM --layout LAYOUT`; no user config.
    return TeamTUI.watching(root, team, layout, config_path=root.parent / "no-config.toml", cursor_blink=False)


async def until(pilot, cond: Callable[[], bool], what: str, limit: float = WAIT) -> None:
    """The dashboard tests' wait, with a cap long enough for the huge corpus cases."""
    app = pilot.app

    def holds() -> bool:
        # A dashboard that died has no screens to query: report why it died, not the empty stack.
        if app._exception is not None:
            raise AssertionError(f"the dashboard crashed while waiting for {what}") from app._exception
        return cond()

    await wait_until(pilot, holds, what, limit)


def messages(app: TeamTUI, route: bool = False) -> list[str]:
    """The message table's texts, or "sender → recipient | text" rows."""
    table = app.dashboard.query_one(MessageTraffic)
    rows = [(table.get_cell(r.key, "route").plain, table.get_cell(r.key, "text").plain) for r in table.ordered_rows]
    return [f"{who} | {text}" if route else text for who, text in rows]


def problems(app: TeamTUI) -> list[str]:
    return [t.plain for t in app.dashboard.query_one(ProblemList).problems]


def observe(app: TeamTUI) -> dict:
    """What the dashboard shows right now (plain text), plus the state's own errors."""
    team = app.dashboard.query_one(TeamPanel)
    board = app.dashboard.query_one(TaskBoard)
    plist = app.dashboard.query_one(ProblemList)
    strip = app.dashboard.query_one(LogStrip)
    return {
        "team": app.state.name if app.state else None,
        "header": str(app.dashboard.query_one(TeamHeader).content),
        "problems": problems(app),
        "problems_drawn": plist.display and plist.size.height > 0,
        "members": [str(r.key.value) for r in team.ordered_rows],
        "tasks": {str(r.key.value): board.get_row(r.key)[2].plain.split("\n")[0] for r in board.ordered_rows},
        "messages": messages(app, route=True),
        "logs": {name: panel.text_lines() for name, panel in strip.panels.items()},
        "errors": [(str(e.path), e.line, e.reason) for e in app.state.all_errors()] if app.state else [],
    }


def shown_reason(reason: str) -> str:
    return safe_text(reason).plain


async def first_load(root: Path, team: str, layout: str) -> dict:
    app = make_app(root, team, layout)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the team is opened")
        await pilot.pause()
        seen = observe(app)
        await pilot.press("q")
    return seen


def probe(root: Path, layout: str, team: str, text: str, ts: float) -> None:
    """A good message written like a peer would, into an inbox no corpus case spoils."""
    if layout == "native":
        line = {"type": "message", "sender": "scout", "content": text, "timestamp": ts}
        with open(root / ".teams" / team / "lead_inbox.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
    else:
        inbox = root / "teams" / team / "inboxes" / "researcher.json"
        entries = json.loads(inbox.read_bytes())
        entries.append(
            {"from": "team-lead", "text": text, "timestamp": "2030-01-01T00:00:%02d.000Z" % int(ts % 60), "read": False}
        )
        tmp = inbox.with_name(".probe.tmp")
        tmp.write_text(json.dumps(entries, indent=2), encoding="utf-8")
        tmp.replace(inbox)


async def while_watching(
    root: Path, team: str, layout: str, spoil: Callable[[], Path], expect_error: bool
) -> tuple[dict, str]:
    """Open the clean team, make sure the watcher is live, then spoil a file while it watches."""
    app = make_app(root, team, layout)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the team is opened")
        probe(root, layout, team, "probe before", 2e9)
        await until(pilot, lambda: "probe before" in messages(app), "the watcher delivers a probe")
        path = spoil()
        # Written after the spoiled file: once the probe is on screen, the spoiled file's events were applied too.
        probe(root, layout, team, "probe after", 2e9 + 1)
        await until(pilot, lambda: "probe after" in messages(app), "the watcher delivers the second probe")
        rel = str(path.relative_to(root))
        if expect_error:
            await until(pilot, lambda: any(rel in p for p in problems(app)), f"{rel} listed as unreadable")
        await pilot.pause()
        seen = observe(app)
        await pilot.press("q")
    return seen, str(path)
