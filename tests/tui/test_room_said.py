"""What the control room says, across its starts: an old team's old news (a collision, a finished
team, a lead that ended) is listed, never called, even when the transcripts hold it far back; what
a room said is not said again by the next one, nor a collision again for one more edit of the
same file; a collision dismissed with `d` stays dismissed. The calls are read where a person's
[notify] command writes them."""

from __future__ import annotations

import json
from pathlib import Path

from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.fleet import FleetNeeds
from tests.edits_team import ALICE, ALICE_EDIT, BOB, BOB_EDIT, claude_team, edit_again, lines_of

from .conftest import record_toasts, toasts, until

COLLISION = ("needs_you", "alice and bob both changed app.py")


def room(tmp_path: Path, *roots: Path, log_limit: int = 1000) -> TeamTUI:
    """A control room over `root`, whose [notify] command appends each call to calls.jsonl."""
    config = tmp_path / "config.toml"
    command = json.dumps(["sh", "-c", f"cat >> '{tmp_path / 'calls.jsonl'}'"])
    config.write_text(f"[notify]\ncommand = {command}\n", encoding="utf-8")
    settings = load_settings(config)
    source = LocalSource(
        settings, roots=list(roots), cwd=tmp_path, claude_root=tmp_path / "no-claude", log_limit=log_limit
    )
    source.discover()
    return TeamTUI(Fleet([source]), config_path=config, cursor_blink=False, sync_panes=False)


def calls(tmp_path: Path) -> list[tuple[str, str]]:
    try:
        text = (tmp_path / "calls.jsonl").read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [(e["kind"], e["text"]) for e in map(json.loads, text.splitlines())]


def collisions(app: TeamTUI) -> list:
    return [n for needs in app.fleet.needs.values() for n in needs if n.kind == "collision"]


def settled(app: TeamTUI) -> bool:
    """The teams' transcripts read, their heads too (what was there at the start is all known)."""
    feeds = [s.state.transcripts for s in app.fleet.fleet.sessions.values()]
    return all(f.ready and not f.counting for f in feeds) and app.fleet.notifier is not None


def edits_of(app: TeamTUI, member: str) -> int:
    return sum(
        len(s.state.transcripts.edits.edits(member, "/src/app/app.py")) for s in app.fleet.fleet.sessions.values()
    )


async def start_and_edit(tmp_path: Path, root: Path, who: str, lines: list[str], n: int) -> None:
    """A room started again on the team, which lists the collision; then `who` edits the file once more."""
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: settled(app) and len(collisions(app)) == 1, "the collision listed")
        member = "alice" if who == ALICE else "bob"
        had = edits_of(app, member)
        edit_again(root, who, lines, n)
        await until(pilot, lambda: edits_of(app, member) > had, "the edit read")
        await pilot.pause(0.5)


async def test_a_room_started_again_says_nothing_it_or_an_earlier_one_said(tmp_path):
    root, bob = claude_team(tmp_path)  # an old team: all its tasks done, its lead ended, bob working
    alice = lines_of(root / ALICE)
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: settled(app), "the team read")
        edit_again(root, BOB, bob[BOB_EDIT], 0)  # bob edits alice's file: the one new thing
        await until(pilot, lambda: bool(calls(tmp_path)), "the collision called")
        await pilot.pause(0.5)
        assert calls(tmp_path) == [COLLISION]  # the team's old news listed, not called
    # Started twice more, alice then bob editing the file once more meanwhile.
    await start_and_edit(tmp_path, root, ALICE, alice[ALICE_EDIT], 1)
    await start_and_edit(tmp_path, root, BOB, bob[BOB_EDIT], 2)
    assert calls(tmp_path) == [COLLISION]


async def test_an_edit_far_back_in_a_transcript_is_old_news_at_the_first_look(tmp_path):
    root, bob = claude_team(tmp_path, bob_edited=True)
    later = [line for line in bob[BOB_EDIT.stop :] if '"type":"assistant"' in line][-1]
    with (root / BOB).open("a", encoding="utf-8") as fh:  # bob said more since: his edit is in the head
        fh.write("".join(later.replace('"uuid":"', f'"uuid":"more{n}-') for n in range(12)))
    app = room(tmp_path, root, log_limit=3)  # the first read takes each transcript's last 3 lines
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: settled(app) and len(collisions(app)) == 1, "the collision found in the head")
        edit_again(root, BOB, bob[BOB_EDIT], 0)  # and bob edits it once more
        await until(pilot, lambda: edits_of(app, "bob") == 2, "read")
        await pilot.pause(0.5)
    assert COLLISION not in calls(tmp_path)  # (bob working again after the lead ended is news: called)


async def test_a_collision_dismissed_with_d_stays_dismissed_when_the_room_starts_again(tmp_path):
    root, bob = claude_team(tmp_path, bob_edited=True)
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: settled(app) and len(collisions(app)) == 1, "the collision listed")
        if app.screen is not app.fleet.overview:
            await pilot.press("escape")
        needs = app.fleet.overview.query_one(FleetNeeds)
        await until(pilot, lambda: any(n.kind == "collision" for n in needs.needs), "under Needs you")
        needs.focus()
        needs.highlighted = next(i for i, n in enumerate(needs.needs) if n.kind == "collision")
        await pilot.press("d")
        await until(pilot, lambda: not collisions(app), "dismissed")
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: settled(app), "the team read")
        edit_again(root, BOB, bob[BOB_EDIT], 1)  # bob edits the file once more
        await until(pilot, lambda: edits_of(app, "bob") == 2, "read")
        await pilot.pause(0.3)
        assert not collisions(app)
    assert COLLISION not in calls(tmp_path)


async def test_two_teams_on_one_file_since_before_the_room_started_are_listed_not_called(tmp_path):
    (red, _), (blue, bob) = (claude_team(tmp_path, bob_edited=True, where=w) for w in ("red", "blue"))
    app = room(tmp_path, blue, red)  # blue read first: the pairs across are on its row, found as red is read
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: settled(app) and len(collisions(app)) == 6, "two in each team, four across them")
        edit_again(blue, BOB, bob[BOB_EDIT], 0)  # one of them edits the file once more
        await until(pilot, lambda: edits_of(app, "bob") == 3, "read")  # blue's two, red's one
        await pilot.pause(0.5)
    assert not [c for c in calls(tmp_path) if c[0] == "needs_you"]


async def test_a_damaged_record_is_moved_aside_and_said_once_and_the_room_calls_on(tmp_path):
    from teamtui.notify.said import said_path

    said_path().parent.mkdir(parents=True)
    said_path().write_text("{half a file", encoding="utf-8")
    root, bob = claude_team(tmp_path)
    app = room(tmp_path, root)
    async with app.run_test(size=(160, 40)) as pilot:
        damaged = [t for t in toasts(app) if "was damaged" in t and "moved aside" in t]  # said at the first look
        shown = record_toasts(app)
        await until(pilot, lambda: settled(app), "the team read")
        edit_again(root, BOB, bob[BOB_EDIT], 0)
        await until(pilot, lambda: calls(tmp_path) == [COLLISION], "the collision called")
        assert len(damaged) == 1 and not [t for t in shown if "damaged" in t]  # once
    assert [p.name.split("-")[0] for p in said_path().parent.glob("said.json.damaged-*")] == ["said.json.damaged"]
    assert "collision:/src/app/app.py:alice:bob" in said_path().read_text(encoding="utf-8")
