"""One source of teams failing stops none of the others: its failure is said in words (a notice,
the fleet's problems, and each of its rows), it is started again after a backoff, and once it
works again it says so. A feed worker that dies is said on screen and the feed starts again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from teamtui.protocol.native import NativeTeam
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.session.source import FleetBatch
from tests.conftest import apoll, local_source


def native(root: Path, name: str) -> NativeTeam:
    root.mkdir()
    team = NativeTeam(root, name)
    team.create(description="")
    team.add_member("ana")
    return team


def source(tmp_path: Path, root: Path, name: str) -> LocalSource:
    empty = tmp_path / f"nothing-{name}"
    empty.mkdir()
    src = local_source([root], empty)
    src.name = name
    return src


class BreaksOnce(LocalSource):
    """This machine's source whose feed fails once, after its first batch (a disk gone away)."""

    broke = False

    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
        async for batch in super().follow(stop):
            yield batch
            if not BreaksOnce.broke:
                BreaksOnce.broke = True
                raise OSError(5, "Input/output error")


async def test_a_failing_source_is_said_restarted_and_stops_no_other(tmp_path: Path) -> None:
    api, web = native(tmp_path / "api", "api-team"), native(tmp_path / "web", "web-team")
    failing = source(tmp_path, tmp_path / "api", "disk A")
    failing.__class__ = BreaksOnce
    other = source(tmp_path, tmp_path / "web", "disk B")
    fleet = Fleet([failing, other], restart_first=0.5)
    stop = asyncio.Event()
    seen: list[FleetBatch] = []

    async def gather() -> None:
        async for batch in fleet.follow(stop):
            seen.append(batch)

    async def until(what, why: str) -> None:
        await apoll(what, 20, lambda: asyncio.sleep(0.02), lambda: AssertionError(f"never happened: {why}"))

    def notices() -> list[str]:
        return [text for b in seen for text, _ in b.notices]

    task = asyncio.create_task(gather())
    try:
        api.send("ana", "wakes the failing source", "lead")  # its batch (read once watched), then it fails
        await until(lambda: any("disk A: stopped updating" in n for n in notices()), "the failure said")
        said = next(n for n in notices() if "disk A: stopped updating" in n)
        assert "OSError" in said and "Input/output error" in said and "trying again in 0.5 s" in said
        assert any(p.startswith("disk A: stopped updating") for p in fleet.problems)
        rows = {r.name: r for r in fleet.rows()}
        assert "stopped updating" in (rows["api-team"].problem or "")
        assert rows["web-team"].problem is None
        # Meanwhile the other source goes on.
        web.send("ana", "while the other is down", "lead")
        await until(
            lambda: any(
                m.content == "while the other is down" for s in other.sessions.values() for m in s.state.messages
            ),
            "the other source's news",
        )
        # Written while it is down: read when, after the backoff, it is started again; then it says so.
        api.send("ana", "after the restart", "lead")
        await until(lambda: any("disk A: following its teams again" in n for n in notices()), "back")
        assert fleet.restarts >= 1 and not fleet.failed
        assert {r.name: r.problem for r in fleet.rows()}["api-team"] is None
        await until(
            lambda: any(m.content == "after the restart" for s in failing.sessions.values() for m in s.state.messages),
            "the restarted source's news",
        )
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
