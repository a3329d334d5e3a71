"""Child-process code for the racing-writer stress runs (spawned: imports only this and teamtui)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from teamtui.protocol.locks import FileLock
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.state import TeamState
from tests.protocol.proto_workers import claimer, native_drainer as drainer  # noqa: F401 - the protocol tests' own


def writer(root: str, team: str, sinks: list[str], w: int, count: int, start) -> None:
    store = NativeTeam(Path(root), team)
    start.wait()
    for i in range(count):
        store.send(sinks[i % len(sinks)], f"w{w}-{i}", f"w{w}")


def monitor(root: str, team: str, sinks: list[str], out_path: str, stop) -> None:
    """A dashboard's view: TeamState tailing every inbox (never draining) while the race runs."""
    store = NativeTeam(Path(root), team)
    state = TeamState(store, message_limit=10**6)
    state.load_all()
    seen = 0
    errors: list[str] = []
    polls = 0
    while not stop.is_set():
        polls += 1
        for s in sinks:
            for change in state.apply(store.inbox_path(s)):
                seen += len(change.messages)
        errors += [str(e) for e in state.all_errors()]
        time.sleep(0.005)
    Path(out_path).write_text(json.dumps({"seen": seen, "errors": errors, "polls": polls}))


def _hold(lock, marker: str) -> None:
    """Take `lock`, say so in `marker`, and keep it until killed (a dead lock holder, once SIGKILLed)."""
    lock.acquire()
    Path(marker).write_text(str(os.getpid()))
    while True:
        time.sleep(1)


def hold_inbox_lock(root: str, team: str, member: str, marker: str) -> None:
    _hold(FileLock(NativeTeam(Path(root), team).inbox_lock_path(member)), marker)


def writer_with_keeper(
    root: str, team: str, sinks: list[str], keeper: str, w: int, count: int, every: int, start
) -> None:
    """As `writer`, and every `every`-th message also goes to `keeper`, an inbox nobody drains."""
    store = NativeTeam(Path(root), team)
    start.wait()
    for i in range(count):
        store.send(sinks[i % len(sinks)], f"w{w}-{i}", f"w{w}")
        if i % every == 0:
            store.send(keeper, f"k-w{w}-{i}", f"w{w}")


def hold_tasks_lock(root: str, team: str, marker: str) -> None:
    _hold(NativeTeam(Path(root), team)._tasks_lock(), marker)


def claim_and_complete(root: str, team: str, owner: str, out_path: str, start) -> None:
    """Claim the next ready task and complete it, until none is left."""
    store = NativeTeam(Path(root), team)
    start.wait()
    done = []
    while (task := store.claim_task(None, owner)) is not None:
        store.complete_task(task.id)
        done.append(task.id)
    Path(out_path).write_text(json.dumps(done))
