"""The fleet's watch folders, under the real watcher: a team appearing, a run starting and a team
ending each arrive as a file event (no polling)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from teamtui.protocol.fleet import discover_fleet, fleet_watch_dirs, register_run, unregister_run
from teamtui.protocol.watch import WatchBatch, watch_dirs

from .conftest import LIVE_TEAM, NATIVE_TEAM, Machine


class Seen:
    """Every batch the watcher gave, gathered by a task of its own."""

    def __init__(self) -> None:
        self.batches: list[WatchBatch] = []

    async def path(self, path: Path, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not any(path in b.paths for b in self.batches):
                await asyncio.sleep(0.02)

    async def rescan(self, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not any(b.rescan for b in self.batches):
                await asyncio.sleep(0.02)


@asynccontextmanager
async def watching(dirs: list[Path]) -> AsyncIterator[Seen]:
    stop = asyncio.Event()
    seen = Seen()
    ready = asyncio.Event()

    async def gather() -> None:
        async for batch in watch_dirs(dirs, stop):
            seen.batches.append(batch)
            if batch.ready:
                ready.set()

    task = asyncio.create_task(gather())
    try:
        await asyncio.wait_for(ready.wait(), 10)
        yield seen
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_teams_appearing_and_ending_are_file_events(machine: Machine) -> None:
    machine.registry.mkdir(parents=True)  # teamtui has run here before
    async with watching(fleet_watch_dirs()) as seen:
        # A Claude Code session starts: its folder, then its config.json.
        team = machine.claude / "teams" / "session-feedbeef"
        team.mkdir()
        (team / "config.json").write_text(json.dumps({"name": "session-feedbeef", "members": []}))
        await seen.path(team)
        assert "session-feedbeef" in {t.name for t in discover_fleet().teams}
        # A run starts and ends.
        entry = register_run(machine.project, NATIVE_TEAM)
        await seen.path(entry)
        assert [t.source for t in discover_fleet().teams if t.name == NATIVE_TEAM] == ["run"]
        seen.batches.clear()
        unregister_run(entry)
        await seen.path(entry)
        # The lead exits: Claude Code deletes the team folder.
        shutil.rmtree(machine.claude / "teams" / LIVE_TEAM)
        await seen.path(machine.claude / "teams" / LIVE_TEAM)
        assert LIVE_TEAM not in {t.name for t in discover_fleet().teams}
        # A native team created under a config.toml root.
        (machine.other / ".teams" / "new-team").mkdir()
        await seen.path(machine.other / ".teams" / "new-team")


async def test_the_first_run_on_a_machine_is_seen_though_its_folder_did_not_exist(machine: Machine) -> None:
    assert not machine.registry.exists()
    async with watching(fleet_watch_dirs()) as seen:
        register_run(machine.project, NATIVE_TEAM)
        await seen.rescan()  # awaited on its nearest parent: look again
        assert [t.source for t in discover_fleet().teams if t.name == NATIVE_TEAM] == ["run"]


async def test_a_team_made_before_the_watches_are_in_place_is_found(machine: Machine) -> None:
    """Between the first look and the watches starting nothing is lost: when they are in place the
    teams are looked for again, and one made meanwhile arrives with the first batch."""
    from teamtui.protocol.native import NativeTeam
    from teamtui.protocol.settings import load_settings
    from teamtui.session.local import LocalSource

    fleet = LocalSource(
        load_settings(),
        cwd=machine.project,
        claude_root=machine.claude,
        registry=machine.registry,
        journal=machine.journal,
    )
    fleet.discover()
    team = NativeTeam(machine.project, "made-meanwhile")
    team.create(description="")
    team.add_member("eve")
    stop = asyncio.Event()
    appeared: list = []
    async with asyncio.timeout(15):
        async for batch in fleet.follow(stop):
            appeared += [k[2] for k in batch.appeared]
            if "made-meanwhile" in appeared:
                stop.set()
    assert appeared == ["made-meanwhile"]
    assert fleet.sessions[next(k for k in fleet.sessions if k[2] == "made-meanwhile")].state.config is not None


async def test_recording_history_wakes_no_watcher_waiting_for_the_runs_registry(machine: Machine) -> None:
    """The runs' registry not there yet: the watcher waits on $XDG_STATE_HOME/teamtui/ for it. The
    history database writes there at every batch it records; were its files in that folder, each
    commit would make the control room rescan every team (and record again: a loop)."""
    import time

    from teamtui.protocol.history import db_path
    from teamtui.protocol.history.ops import TeamIdent
    from teamtui.protocol.history.writer import HistoryWriter

    assert not machine.registry.exists()
    writer = HistoryWriter(db_path(), import_journals=False)
    team = TeamIdent("", "native", str(machine.project), NATIVE_TEAM)
    writer.put(("event", team, time.time(), ("first", "")))
    assert writer.flush()  # its folder exists before the watch starts
    try:
        async with watching(fleet_watch_dirs()) as seen:
            for i in range(20):
                writer.put(("event", team, time.time() + 100 * i, ("recorded", str(i))))
                assert writer.flush()
            machine.registry.mkdir()  # what the watcher does wait for: it wakes for this alone
            await seen.rescan()
            woke = [b for b in seen.batches if b.rescan or b.paths]
            assert [sorted(p.name for p in b.paths) for b in woke] == [[machine.registry.name]]
    finally:
        writer.close()


async def test_a_transcript_line_written_while_the_watch_starts_over_is_read(tmp_path: Path) -> None:
    """A folder the watcher waited for appears (a team's first failure makes `.tasks/.teamtui/`):
    the watch starts over, and what a transcript gained in between showed no event. The new
    watches in place, the transcripts are read on from where they were: bob's edit of alice's
    file, written in that gap, is in his log and a collision the room calls."""
    from teamtui.protocol.settings import load_settings
    from teamtui.session.alerts import needs_of
    from teamtui.session.local import LocalSource
    from tests.edits_team import BOB, BOB_EDIT, claude_team

    root, bob = claude_team(tmp_path)
    fleet = LocalSource(load_settings(tmp_path / "none.toml"), roots=[root], cwd=tmp_path, claude_root=root)
    fleet.discover()
    ((key, session),) = fleet.sessions.items()
    feed = session.state.transcripts
    assert feed is not None
    stop = asyncio.Event()
    stream = fleet.follow(stop)
    try:
        async with asyncio.timeout(15):
            while not (feed.ready and not feed.counting):  # the transcripts read, their heads too
                await anext(stream)
            logged = session.state.logs["bob"].total
            (root / "tasks" / key[2]).mkdir(parents=True)  # awaited on .claude/: the watch starts over
            while not (await anext(stream)).rediscovered:
                pass
            # The old watches are still there but about to go: what they see now is never given.
            with (root / BOB).open("a", encoding="utf-8") as fh:
                fh.write("".join(bob[BOB_EDIT]))
            while len(feed.edits.edits("bob", "/src/app/app.py")) == 0:
                await anext(stream)
    finally:
        stop.set()
        await stream.aclose()
    assert any("app.py" in e.text for e in session.state.logs["bob"].since(logged))  # his log panel shows it
    assert [n.text for n in needs_of(key, session, 0.0) if n.kind == "collision"] == [
        "alice and bob both changed app.py"
    ]
