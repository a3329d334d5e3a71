"""The room's feed worker dying is said on screen, never silent, and the feed starts again: the
rows go on updating."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.session.source import FleetBatch
from teamtui.tui.app import TeamTUI
from tests.conftest import local_source

from .conftest import until


class Doom(BaseException):
    """Not an Exception: beyond what the fleet's per-source guard catches, so the worker dies."""


class DiesOnce(LocalSource):
    died = False

    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
        if not DiesOnce.died:
            DiesOnce.died = True
            raise Doom("the feed's task was torn down")
        async for batch in super().follow(stop):
            yield batch


async def test_a_dead_feed_worker_is_said_and_the_feed_starts_again(tmp_path: Path) -> None:
    root, empty = tmp_path / "api", tmp_path / "empty"
    root.mkdir()
    empty.mkdir()
    team = NativeTeam(root, "api-team")
    team.create(description="")
    team.add_member("ana")
    source = local_source([root], empty, DiesOnce)
    app = TeamTUI(Fleet([source]), config_path=tmp_path / "none.toml", cursor_blink=False, sync_panes=False)
    async with app.run_test(size=(140, 36)) as pilot:
        await until(pilot, lambda: any("failed" in str(n.message) for n in app._notifications), "the death said")
        said = next(str(n.message) for n in app._notifications if "failed" in str(n.message))
        assert "The fleet's feed failed" in said and "torn down" in said
        team.send("ana", "after the feed came back", "lead")
        session = next(iter(source.sessions.values()))
        await until(
            pilot,
            lambda: any(m.content == "after the feed came back" for m in session.state.messages),
            "the feed started again",
            limit=20,
        )
