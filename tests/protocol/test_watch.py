"""watch_dirs on real directories: changes arrive as batches, a directory made later is awaited,
and a change after a quiet spell (when the watcher steps less often) still arrives."""

from __future__ import annotations

import asyncio
from pathlib import Path

from teamtui.protocol.watch import WatchBatch, watch_dirs


async def collect(dirs: list[Path], act, *, busy_seconds: float = 5.0, until) -> list[WatchBatch]:
    """Run watch_dirs, call `act()` once it is ready, and stop when `until(batches)` holds."""
    stop = asyncio.Event()
    batches: list[WatchBatch] = []

    async def consume() -> None:
        async for batch in watch_dirs(dirs, stop, busy_seconds=busy_seconds):
            batches.append(batch)
            if batch.ready:
                await act()
            if until(batches):
                stop.set()

    await asyncio.wait_for(consume(), timeout=10)
    return batches


def changed(batches: list[WatchBatch]) -> set[str]:
    return {p.name for b in batches for p in b.paths}


async def test_a_written_file_arrives_once_ready(tmp_path: Path) -> None:
    async def act() -> None:
        (tmp_path / "task_1.json").write_text("{}")

    batches = await collect([tmp_path], act, until=lambda bs: "task_1.json" in changed(bs))
    assert batches[0].ready and "task_1.json" in changed(batches)


async def test_a_directory_made_later_is_awaited_and_asks_for_a_rescan(tmp_path: Path) -> None:
    later = tmp_path / ".teams" / "demo"

    async def act() -> None:
        later.mkdir(parents=True)

    batches = await collect([later], act, until=lambda bs: any(b.rescan for b in bs))
    assert any(b.rescan for b in batches)


async def test_changes_after_a_quiet_spell_still_arrive_grouped(tmp_path: Path) -> None:
    # busy_seconds=0.1: after a tenth of a second without a change the watcher steps every 25 ms.
    async def act() -> None:
        await asyncio.sleep(0.5)  # quiet
        for i in range(5):
            (tmp_path / f"log_{i}.jsonl").write_text("line\n")
        await asyncio.sleep(0.5)  # quiet again
        (tmp_path / "inbox.jsonl").write_text("{}\n")

    want = {f"log_{i}.jsonl" for i in range(5)} | {"inbox.jsonl"}
    batches = await collect([tmp_path], act, busy_seconds=0.1, until=lambda bs: want <= changed(bs))
    assert want <= changed(batches)
    burst = [b for b in batches if b.paths & {tmp_path / f"log_{i}.jsonl" for i in range(5)}]
    assert len(burst) <= 2  # five writes at once are one batch (or two, split by a step), not five


async def test_a_folder_made_while_the_watch_is_being_set_up_is_not_missed(tmp_path: Path, monkeypatch) -> None:
    """The issue's race: a root recreated, and its `.tasks/` made just after the watcher decided
    it was missing but before the watch on its parent was in place. No event comes for it; the
    watcher must look again once its watches are up, and then see what is written inside."""
    import os

    root = tmp_path / "r"
    root.mkdir()
    tasks = root / ".tasks"
    real_stat = os.stat
    made: list[Path] = []

    def stat(path, *args, **kw):  # the real stat; right after it finds `.tasks` missing, the folder is made
        try:
            return real_stat(path, *args, **kw)
        except FileNotFoundError:
            if os.fspath(path) == str(tasks) and not made:
                tasks.mkdir()
                made.append(tasks)
            raise

    monkeypatch.setattr(os, "stat", stat)

    async def act() -> None:
        await asyncio.sleep(0.2)
        (tasks / "task_1.json").write_text("{}")

    batches = await collect([tasks], act, until=lambda bs: "task_1.json" in changed(bs))
    assert made and "task_1.json" in changed(batches)


async def test_a_flat_folder_brings_no_event_from_a_chain_made_inside_it(tmp_path: Path) -> None:
    """A team's folders are watched without their subfolders: a deep chain of folders made in one
    (each with a file) is one event, its first folder; the team's own files still arrive, and a
    folder of the team made later (logs/) is taken in."""
    team = tmp_path / "team"
    team.mkdir()
    logs = team / "logs"
    stop = asyncio.Event()
    batches: list[WatchBatch] = []

    async def until(cond) -> None:
        while not cond():
            await asyncio.sleep(0.01)

    async def act() -> None:
        await until(lambda: any(b.ready for b in batches))
        folder = team
        for _ in range(50):
            folder = folder / "d"
            folder.mkdir()
            (folder / "level.txt").write_text("x")
        (team / "hunter_inbox.jsonl").write_text("{}\n")
        await until(lambda: "hunter_inbox.jsonl" in changed(batches))
        logs.mkdir()
        await until(lambda: any(b.rescan for b in batches) and sum(b.ready for b in batches) == 2)
        (logs / "hunter.jsonl").write_text("{}\n")
        await until(lambda: "hunter.jsonl" in changed(batches))
        stop.set()

    async def consume() -> None:
        async for batch in watch_dirs([team, logs], stop, flat=[team, logs]):
            batches.append(batch)

    await asyncio.wait_for(asyncio.gather(consume(), act()), timeout=10)
    seen = {p for b in batches for p in b.paths}
    assert not any(p.name == "level.txt" or p.parent.name == "d" for p in seen), sorted(seen)
