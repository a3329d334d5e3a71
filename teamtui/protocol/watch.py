"""One watchfiles watcher over a team's directories, tuned for ~100 ms change-to-screen.

It waits on inotify (no polling of the files); directories that do not exist yet are
awaited by a second, non-recursive watch on their nearest existing parent.

watchfiles' Rust loop still wakes every `step` to look at what inotify gathered (and takes
the GIL to check its stop event): at 10 ms that alone is ~0.7 % of a core. So the loop steps
every 10 ms only while the team is busy (a change in the last BUSY_SECONDS), and every 25 ms
once it is quiet: the first change after a quiet spell shows ~25 ms later (~55 ms instead of
~30), and an idle dashboard costs half (docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import AsyncGenerator, AsyncIterator, Collection
from dataclasses import dataclass, field
from pathlib import Path

import anyio.to_thread
from watchfiles import Change, DefaultFilter

# What awatch runs; driven here so that each wait can choose its own step (pinned watchfiles 1.3).
from watchfiles._rust_notify import RustNotify

# watchfiles' defaults (1600 ms debounce) are far too slow for a live view.
DEBOUNCE_MS = 40
# The step while busy: 5 ms cost ~0.45 % of a core more for ~8 ms less latency (docs/benchmarks.md).
STEP_MS = 10
# The step once quiet, and how long after a change the watcher counts as busy.
QUIET_STEP_MS = 25
BUSY_SECONDS = 5.0
# A quiet wait returns this often (cheap), as awatch's does.
QUIET_TIMEOUT_MS = 5_000


@dataclass(slots=True)
class WatchBatch:
    paths: set[Path] = field(default_factory=set)
    # A watched directory appeared or vanished: the consumer should re-read everything once.
    rescan: bool = False
    # The watches are in place: whatever changed before now may have been missed, so resync once.
    ready: bool = False


def _open_dir(path: Path) -> bool:
    """A folder this process can list and enter (never raises: an unreadable one is just not open)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode) and os.access(path, os.R_OK | os.X_OK)
    except (OSError, ValueError):
        return False


def _nearest_open(path: Path) -> Path:
    """The nearest folder at or above `path` that can be watched: a folder that appears below it,
    or one whose mode changes (chmod), shows there as an event."""
    p = path
    while not _open_dir(p) and p != p.parent:
        p = p.parent
    return p


@dataclass(frozen=True, slots=True)
class _Plan:
    """One round's watches: what is watched with its subfolders, what without, and which paths,
    should they change, mean a folder waited for may be there (or readable) now."""

    deep: tuple[Path, ...]  # present folders watched with every subfolder
    shallow: tuple[Path, ...]  # present flat folders, and the anchors: watched without subfolders
    present: tuple[Path, ...]
    waited: frozenset[Path]  # each missing folder and the folders on its way up to its anchor, the anchors too

    @classmethod
    def make(cls, dirs: list[Path], flat: Collection[Path]) -> _Plan:
        present = sorted({d for d in dirs if _open_dir(d)})
        missing = {d for d in dirs} - set(present)
        anchors = {_nearest_open(d.parent) for d in missing}
        waited = set(anchors)
        for d in missing:
            p = d
            while p not in anchors and p != p.parent:
                waited.add(p)
                p = p.parent
        return cls(
            tuple(d for d in present if d not in flat),
            tuple(sorted({*(d for d in present if d in flat), *anchors})),
            tuple(present),
            frozenset(waited),
        )


async def watch_dirs(
    dirs: list[Path],
    stop: asyncio.Event,
    *,
    flat: Collection[Path] = (),
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
    busy_seconds: float = BUSY_SECONDS,
) -> AsyncGenerator[WatchBatch, None]:
    """Yield batches of changed paths under `dirs` until `stop` is set. A folder of `flat` is
    watched without its subfolders (a chain of folders made inside it, however deep, costs
    nothing); the others with them. A folder that is missing or cannot be read is awaited on the
    nearest folder above it that can; one that appears, vanishes, or changes mode starts the watch
    over, with a rescan."""
    while not stop.is_set():
        plan = _Plan.make(dirs, flat)
        queue: asyncio.Queue[WatchBatch | None] = asyncio.Queue()
        restart = asyncio.Event()
        local_stop = asyncio.Event()

        async def pump(
            paths: tuple[Path, ...],
            recursive: bool,
            started: asyncio.Event,
            # This round's own, bound here: a pump never outlives its round (cancelled and gathered below).
            plan: _Plan = plan,
            restart: asyncio.Event = restart,
            queue: asyncio.Queue[WatchBatch | None] = queue,
            local_stop: asyncio.Event = local_stop,
        ) -> None:
            try:
                async for changed, folder_changed in _changes(
                    paths, recursive, local_stop, started, debounce_ms, step_ms, busy_seconds
                ):
                    batch = WatchBatch(changed)
                    # A folder waited for may be there now; one whose mode changed may have become
                    # readable (or not); a watched one may be gone: the watch starts over.
                    if (
                        not plan.waited.isdisjoint(changed)
                        or folder_changed
                        or any(not _open_dir(d) for d in plan.present if d in changed)
                    ):
                        batch.rescan = True
                        restart.set()
                    await queue.put(batch)
            except (FileNotFoundError, RuntimeError, OSError):
                # A watched directory vanished under the watcher: start over.
                restart.set()
                await queue.put(WatchBatch(rescan=True))
            finally:
                started.set()

        tasks, started = [], []
        for paths, recursive in ((plan.deep, True), (plan.shallow, False)):
            if paths:
                started.append(asyncio.Event())
                tasks.append(asyncio.create_task(pump(paths, recursive, started[-1])))
        stopper = asyncio.create_task(_first_of(stop, restart))
        getter: asyncio.Task | None = None
        try:
            for event in started:  # each pump's inotify watches are in place (or it failed)
                await event.wait()
            # A folder made (or opened up) between the plan and the watches being in place showed no
            # event: plan again, and start over if anything differs (the next round's ready re-reads).
            if _Plan.make(dirs, flat) != plan:
                continue
            yield WatchBatch(ready=True)
            while True:
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    batch = getter.result()
                    if batch is not None:
                        yield batch
                    if restart.is_set():
                        break
                else:
                    getter.cancel()
                    break
        finally:
            local_stop.set()
            if getter is not None and not getter.done():
                getter.cancel()
            stopper.cancel()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, stopper, return_exceptions=True)


async def _changes(
    paths: tuple[Path, ...],
    recursive: bool,
    stop: asyncio.Event,
    started: asyncio.Event,
    debounce_ms: int,
    step_ms: int,
    busy_seconds: float,
) -> AsyncIterator[tuple[set[Path], bool]]:
    """awatch's loop (same filter, same thread hand-off), stepping every `step_ms` while busy and
    every QUIET_STEP_MS after `busy_seconds` without a change. Nothing is missed in between:
    the Rust side gathers inotify events all along, between waits too. Each yield: the changed
    paths, and whether a folder's own metadata (its mode) changed."""
    keep = DefaultFilter()
    with RustNotify([str(p) for p in paths], False, False, 0, recursive, True) as notify:
        started.set()  # the watches are in place
        busy_until = time.monotonic() + busy_seconds
        while True:
            busy_ms = int((busy_until - time.monotonic()) * 1000)
            step, timeout = (step_ms, busy_ms) if busy_ms > 0 else (QUIET_STEP_MS, QUIET_TIMEOUT_MS)
            # Not cancellable, as in awatch: the caller sets `stop` and the thread returns within a step.
            got = await anyio.to_thread.run_sync(_wait, notify, keep, debounce_ms, step, timeout, stop)
            if got == "stop":
                return
            if isinstance(got, str):  # "timeout" (or "signal", which a worker thread never gets)
                continue
            busy_until = time.monotonic() + busy_seconds
            if got[0]:
                yield got


def _wait(
    notify: RustNotify, keep: DefaultFilter, debounce_ms: int, step: int, timeout: int, stop: asyncio.Event
) -> str | tuple[set[Path], bool]:
    """In the worker thread: one wait, and what it gathered sorted out there (a stat per path is
    not the event loop's to pay)."""
    raw = notify.watch(debounce_ms, step, timeout, stop)
    if isinstance(raw, str):
        return raw
    changed = {Path(path) for change, path in raw if keep(Change(change), path)}
    # inotify says "modified" of a folder itself only for its metadata (chmod, chown, touch).
    return changed, any(change == Change.modified and os.path.isdir(path) for change, path in raw)


async def _first_of(*events: asyncio.Event) -> None:
    waiters = [asyncio.create_task(e.wait()) for e in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()
