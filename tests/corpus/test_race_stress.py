"""Racing writers at scale, real processes (spawn): 16 writers x 1,000 messages over 4 inboxes with
4 concurrent drainers, a monitor tailing every inbox, and a lock holder SIGKILLed mid-run; 16
claimers over 1,000 tasks. Stress only (`make stress`); the figures go into docs/reliability.md."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from teamtui.protocol.native import NativeTeam
from tests.conftest import join_all
from tests.corpus import race_workers

CTX = mp.get_context("spawn")
JOIN_GUARD = 600  # only reached if something hangs


def _join(procs) -> None:
    join_all(procs, JOIN_GUARD)


@pytest.mark.stress
@pytest.mark.parametrize(("n_writers", "per_writer", "n_sinks"), [(16, 1000, 4)])
def test_16_writers_x_1000_with_drains_a_monitor_and_a_killed_lock_holder(
    tmp_path: Path, n_writers: int, per_writer: int, n_sinks: int
) -> None:
    store = NativeTeam(tmp_path, "race")
    store.create()
    sinks = [f"sink{i}" for i in range(n_sinks)]
    for s in sinks:
        store.add_member(s)
    start, stop, stop_monitor = CTX.Event(), CTX.Event(), CTX.Event()
    t0 = time.monotonic()
    # A lock holder that dies holding sink0's lock: everyone must get past it, losing nothing.
    marker = tmp_path / "held"
    holder = CTX.Process(target=race_workers.hold_inbox_lock, args=(str(tmp_path), "race", "sink0", str(marker)))
    holder.start()
    while not marker.exists():
        time.sleep(0.01)
    drainers = [
        CTX.Process(target=race_workers.drainer, args=(str(tmp_path), "race", s, str(tmp_path / f"{s}.json"), stop))
        for s in sinks
    ]
    mon = CTX.Process(
        target=race_workers.monitor, args=(str(tmp_path), "race", sinks, str(tmp_path / "mon.json"), stop_monitor)
    )
    writers = [
        CTX.Process(target=race_workers.writer, args=(str(tmp_path), "race", sinks, w, per_writer, start))
        for w in range(n_writers)
    ]
    for p in [*drainers, mon, *writers]:
        p.start()
    start.set()
    time.sleep(0.5)
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    _join(writers)
    stop.set()
    _join(drainers)
    stop_monitor.set()
    _join([mon])
    elapsed = time.monotonic() - t0

    received: list[str] = []
    errors: list[str] = []
    drains = 0
    for s in sinks:
        r = json.loads((tmp_path / f"{s}.json").read_text())
        received += r["contents"]
        errors += r["errors"]
        drains += r["drains"]
    counts = Counter(received)
    sent = n_writers * per_writer
    expected = {f"w{w}-{i}" for w in range(n_writers) for i in range(per_writer)}
    lost = len(expected - set(counts))
    dup = sum(n - 1 for n in counts.values() if n > 1)
    mon_r = json.loads((tmp_path / "mon.json").read_text())
    print(
        f"\nrace: sent={sent} received={len(received)} lost={lost} duplicated={dup} drains={drains} "
        f"drain_errors={len(errors)} monitor_seen={mon_r['seen']} monitor_polls={mon_r['polls']} "
        f"monitor_errors={len(mon_r['errors'])} elapsed={elapsed:.1f}s (includes the 10 s stale-lock wait)"
    )
    assert errors == [] and mon_r["errors"] == []
    assert lost == 0 and dup == 0 and len(received) == sent
    assert mon_r["seen"] <= sent
    for s in sinks:
        assert store.inbox_path(s).read_bytes() == b""
        assert not store.inbox_lock_path(s).exists()


@pytest.mark.stress
def test_16_claimers_over_1000_tasks_each_exactly_once(tmp_path: Path) -> None:
    store = NativeTeam(tmp_path, "race")
    store.create()
    n_tasks, n_claimers = 1000, 16
    for i in range(n_tasks):
        store.create_task(f"t{i}")
    start = CTX.Event()
    t0 = time.monotonic()
    procs = [
        CTX.Process(
            target=race_workers.claimer, args=(str(tmp_path), "race", f"c{c}", str(tmp_path / f"c{c}.json"), start)
        )
        for c in range(n_claimers)
    ]
    for p in procs:
        p.start()
    start.set()
    _join(procs)
    elapsed = time.monotonic() - t0
    claims = {c: json.loads((tmp_path / f"c{c}.json").read_text()) for c in range(n_claimers)}
    all_ids = [tid for ids in claims.values() for tid in ids]
    counts = Counter(all_ids)
    dup = sum(n - 1 for n in counts.values() if n > 1)
    per = sorted(len(v) for v in claims.values())
    print(
        f"\nclaims: tasks={n_tasks} claimers={n_claimers} claimed={len(all_ids)} distinct={len(counts)} "
        f"duplicated={dup} per_claimer_min={per[0]} max={per[-1]} elapsed={elapsed:.1f}s"
    )
    assert dup == 0 and set(counts) == {str(i) for i in range(1, n_tasks + 1)}
    tasks, errors = store.list_tasks()
    assert errors == []
    owners = {t.id: t.owner for t in tasks}
    for c, ids in claims.items():
        assert all(owners[t] == f"c{c}" for t in ids)
