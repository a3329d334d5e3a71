"""A team published through a real nats-server reads in the room as its publishing host's own room
reads it: a Claude Code team whose lead ended but whose teammates idle is "0 working · 2 idle"
(the lead's end is not the team's: its members are not counted gone), and what needs the person
there is listed once, named with its host, and called once with that host in its JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.outcomes import record_failure
from teamtui.session.fleet import Fleet
from teamtui.tui.app import TeamTUI
from teamtui.tui.widgets.fleet import FleetNeeds, FleetTable
from tests.notify.test_notify_app import events_of
from tests.remote.conftest import empty_local_fleet
from tests.tui.conftest import cells

from .conftest import CLAUDE_TEAM, NATIVE_TEAM, Server, room
from .test_nats_tui import SIZE, until


async def test_a_nats_team_reads_as_its_host_says_and_its_items_name_the_host(
    server: Server, hosts, tmp_path: Path
) -> None:
    box = hosts("box1", claude=True)  # its Claude Code team's lead process is long gone; alice and bob idle
    box.publish(server.url)
    events = tmp_path / "events.jsonl"
    config = tmp_path / "config.toml"
    config.write_text(f"[notify]\ncommand = {json.dumps(['sh', '-c', f'cat >> {events}'])}\n")
    source = room(server.url)
    app = TeamTUI(
        Fleet([empty_local_fleet(tmp_path), source]), config_path=config, cursor_blink=False, sync_panes=False
    )
    claude = ("nats:box1", os.path.realpath(box.claude), CLAUDE_TEAM)
    native = ("nats:box1", os.path.realpath(box.project), NATIVE_TEAM)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: {claude, native} <= source.sessions.keys(), "both published teams")
        table = app.fleet.overview.query_one(FleetTable)
        await until(pilot, lambda: any(c.startswith(CLAUDE_TEAM) for c in cells(table)), "its row")
        # What the publishing host's own room counted (its row, as it published it), and this room's.
        said = source.hosts["box1"].rows_said[claude]
        there = tuple(said[f"members_{k}"] for k in ("working", "idle", "gone", "unknown"))
        row = next(r for r in source.rows(source.clock()) if r.team.key == claude)
        assert there == (0, 2, 0, 0) and (row.working, row.idle, row.gone, row.unknown) == there
        assert "0 working · 2 idle |" in next(c for c in cells(table) if c.startswith(CLAUDE_TEAM))

        store = NativeTeam(box.project, NATIVE_TEAM)  # a task held there after three failures
        task = store.create_task("flaky migration")
        for i in range(3):
            record_failure(store, task.id, f"boom {i}")
        strip = app.fleet.overview.query_one(FleetNeeds)
        held = f"held:{task.id}"
        await until(pilot, lambda: any(n.key == held for n in strip.needs), "the held task listed")
        await until(
            pilot, lambda: any(e.get("id") == f"held:{NATIVE_TEAM}:{task.id}" for e in events_of(events)), "called"
        )
        await pilot.pause(1.0)  # were it listed or called twice, it would be by now
        at = [i for i, n in enumerate(strip.needs) if n.key == held]
        assert len(at) == 1
        assert f"{NATIVE_TEAM} on box1 · #{task.id} flaky migration" in strip.get_option_at_index(at[0]).prompt.plain
        called = [e for e in events_of(events) if e.get("id") == f"held:{NATIVE_TEAM}:{task.id}"]
        assert [(e["team"], e["host"], e["answers"]) for e in called] == [(NATIVE_TEAM, "box1", ["retry", "block"])]
