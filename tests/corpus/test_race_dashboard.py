"""Racing writers with the real dashboard watching. Writers, drainers and claimers are real processes
(spawn); TeamTUI runs under Pilot in this process on the same team, fed by its file watcher. A lock
holder is SIGKILLed mid-run. Afterwards the files hold every message and task exactly once, and the
dashboard, which never crashed, shows that final state: every message of the undrained inbox, the
drained inboxes read, every task completed by the claimer that claimed it, no unreadable file.

The small variants run in `make test`; the full 16 x 1,000 ones are stress-only. The small ones age
the dead holder's lock instead of waiting out the 10 s stale period; the stress ones wait it out."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from teamtui.protocol.locks import STALE_AFTER
from teamtui.protocol.native import NativeTeam
from teamtui.tui.widgets.header import TeamHeader
from teamtui.tui.widgets.tasks import TaskBoard
from teamtui.tui.widgets.team import TeamPanel
from tests.corpus import race_workers
from tests.corpus.dashboard import SIZE, make_app, problems, until

CTX = mp.get_context("spawn")
GUARD = 900.0  # seconds; only a hang reaches it
TEAM = "race"


async def _wait_all(pilot, procs, what: str) -> None:
    await until(pilot, lambda: all(p.exitcode is not None for p in procs), what, GUARD)
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0] * len(procs), what


async def _kill_holder(pilot, holder, lock: Path, *, wait_stale: bool) -> None:
    """SIGKILL the holder, which took the lock before anyone else started: nobody got past it yet."""
    await pilot.pause(0.3)  # let the others pile up behind the held lock
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    assert lock.exists(), "the killed holder's lock is left behind"
    if not wait_stale:
        # As old as a lock whose holder died STALE_AFTER seconds ago: the next writer breaks it.
        old = time.time() - STALE_AFTER - 1
        os.utime(lock, (old, old))


def _unread_cell(app, name: str) -> str:
    return app.dashboard.query_one(TeamPanel).get_cell(name, "unread").plain


@pytest.mark.parametrize(
    ("n_writers", "per_writer", "n_sinks", "every"),
    [(4, 100, 2, 5), pytest.param(16, 1000, 4, 10, marks=pytest.mark.stress)],
    ids=["4x100", "16x1000"],
)
async def test_racing_writers_and_drains_under_a_watching_dashboard(
    tmp_path: Path, n_writers: int, per_writer: int, n_sinks: int, every: int
) -> None:
    stress = n_writers * per_writer >= 16_000
    store = NativeTeam(tmp_path, TEAM)
    store.create()
    sinks = [f"sink{i}" for i in range(n_sinks)]
    keeper = "keeper"  # never drained: the dashboard must end up showing every message sent to it
    for s in [*sinks, keeper]:
        store.add_member(s)
    start, stop = CTX.Event(), CTX.Event()
    marker = tmp_path / "held"
    t0 = time.monotonic()
    app = make_app(tmp_path, TEAM, "native")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None, "the dashboard opens the team")
        holder = CTX.Process(target=race_workers.hold_inbox_lock, args=(str(tmp_path), TEAM, "sink0", str(marker)))
        holder.start()
        await until(pilot, marker.exists, "the lock holder holds sink0's lock")
        drainers = [
            CTX.Process(target=race_workers.drainer, args=(str(tmp_path), TEAM, s, str(tmp_path / f"{s}.json"), stop))
            for s in sinks
        ]
        writers = [
            CTX.Process(
                target=race_workers.writer_with_keeper,
                args=(str(tmp_path), TEAM, sinks, keeper, w, per_writer, every, start),
            )
            for w in range(n_writers)
        ]
        for p in [*drainers, *writers]:
            p.start()
        start.set()
        await _kill_holder(pilot, holder, store.inbox_lock_path("sink0"), wait_stale=stress)
        await _wait_all(pilot, writers, "every writer finishes")
        stop.set()
        await _wait_all(pilot, drainers, "every drainer finishes")
        race_s = time.monotonic() - t0

        kept = {f"k-w{w}-{i}" for w in range(n_writers) for i in range(0, per_writer, every)}
        # The dashboard catches up: every kept message shown unread, every drained inbox read.
        await until(pilot, lambda: _unread_cell(app, keeper) == str(len(kept)), "the keeper's unread count", GUARD)
        await until(pilot, lambda: all(_unread_cell(app, s) == "" for s in sinks), "the drained inboxes read", GUARD)
        state = app.state
        shown_kept = [m.content for m in state.inbox_messages(keeper)]
        shown_sinks = [m for s in sinks for m in state.inbox_messages(s)]
        assert problems(app) == [] and state.all_errors() == []
        await pilot.press("q")
    catch_up_s = time.monotonic() - t0 - race_s

    # The files: nothing lost, nothing twice.
    received: list[str] = []
    drains = 0
    for s in sinks:
        r = json.loads((tmp_path / f"{s}.json").read_text())
        assert r["errors"] == []
        received += r["contents"]
        drains += r["drains"]
    counts = Counter(received)
    expected = {f"w{w}-{i}" for w in range(n_writers) for i in range(per_writer)}
    lost = len(expected - set(counts))
    dup = sum(n - 1 for n in counts.values() if n > 1)
    keeper_file = [m.content for m in store.peek(keeper).messages]
    # The dashboard: every kept message exactly once; of the drained ones, only real ones, none twice, all read.
    shown_counts = Counter(m.content for m in shown_sinks)
    print(
        f"\nrace+dashboard: sent={len(expected)} received={len(received)} lost={lost} duplicated={dup} "
        f"drains={drains} keeper sent={len(kept)} in file={len(keeper_file)} on dashboard={len(shown_kept)} "
        f"drained-inbox messages the dashboard saw={len(shown_sinks)} (duplicated "
        f"{sum(n - 1 for n in shown_counts.values() if n > 1)}) race={race_s:.1f}s catch-up={catch_up_s:.1f}s"
    )
    assert lost == 0 and dup == 0 and len(received) == len(expected)
    assert sorted(keeper_file) == sorted(kept)
    assert sorted(shown_kept) == sorted(kept)
    assert set(shown_counts) <= expected and all(n == 1 for n in shown_counts.values())
    assert all(m.read for m in shown_sinks)
    for s in sinks:
        assert store.inbox_path(s).read_bytes() == b""
        assert not store.inbox_lock_path(s).exists()


@pytest.mark.parametrize(
    ("n_tasks", "n_claimers"),
    [(100, 4), pytest.param(1000, 16, marks=pytest.mark.stress)],
    ids=["4x100", "16x1000"],
)
async def test_racing_claimers_under_a_watching_dashboard(tmp_path: Path, n_tasks: int, n_claimers: int) -> None:
    stress = n_tasks >= 1000
    store = NativeTeam(tmp_path, TEAM)
    store.create()
    for i in range(n_tasks):
        store.create_task(f"t{i}")
    start = CTX.Event()
    marker = tmp_path / "held"
    t0 = time.monotonic()
    app = make_app(tmp_path, TEAM, "native")
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: app.state is not None and len(app.state.tasks) == n_tasks, "the dashboard loads the board"
        )
        holder = CTX.Process(target=race_workers.hold_tasks_lock, args=(str(tmp_path), TEAM, str(marker)))
        holder.start()
        await until(pilot, marker.exists, "the lock holder holds the tasks lock")
        procs = [
            CTX.Process(
                target=race_workers.claim_and_complete,
                args=(str(tmp_path), TEAM, f"c{c}", str(tmp_path / f"c{c}.json"), start),
            )
            for c in range(n_claimers)
        ]
        for p in procs:
            p.start()
        start.set()
        await _kill_holder(pilot, holder, tmp_path / ".tasks" / ".lock", wait_stale=stress)
        await _wait_all(pilot, procs, "every claimer finishes")
        race_s = time.monotonic() - t0
        header = app.dashboard.query_one(TeamHeader)
        await until(
            pilot, lambda: f"Tasks {n_tasks}/{n_tasks} done" in str(header.content), "the header's progress", GUARD
        )
        board = app.dashboard.query_one(TaskBoard)
        await until(pilot, lambda: board.row_count == n_tasks, "the board's rows")
        states = Counter(board.get_row(r.key)[4].plain for r in board.ordered_rows)
        shown_owner = {tid: t.owner for tid, t in app.state.tasks.items()}
        assert problems(app) == [] and app.state.all_errors() == []
        await pilot.press("q")
    claims = {f"c{c}": json.loads((tmp_path / f"c{c}.json").read_text()) for c in range(n_claimers)}
    all_ids = [tid for ids in claims.values() for tid in ids]
    counts = Counter(all_ids)
    dup = sum(n - 1 for n in counts.values() if n > 1)
    per = sorted(len(v) for v in claims.values())
    print(
        f"\nclaims+dashboard: tasks={n_tasks} claimers={n_claimers} completed={len(all_ids)} distinct={len(counts)} "
        f"duplicated={dup} per_claimer={per[0]}..{per[-1]} dashboard rows={sum(states.values())} {dict(states)} "
        f"race={race_s:.1f}s"
    )
    assert dup == 0 and set(counts) == {str(i) for i in range(1, n_tasks + 1)}
    assert states == {"completed": n_tasks}
    tasks, errors = store.list_tasks()
    assert errors == [] and all(t.status.value == "completed" for t in tasks)
    for owner, ids in claims.items():
        for tid in ids:
            assert shown_owner[tid] == owner  # the dashboard shows who completed it, as the files say
    assert not (tmp_path / ".tasks" / ".lock").exists()
