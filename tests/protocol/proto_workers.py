"""Code that runs in child processes (multiprocessing, spawn) for the cross-process tests.

Kept out of the test modules so a spawned child imports only this and teamtui, not pytest.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from teamtui.protocol.claude import ClaudeTeam
from teamtui.protocol.locks import DirLock, FileLock
from teamtui.protocol.native import NativeTeam


def _send_all(store: NativeTeam | ClaudeTeam, to: str, prefix: str, writer: int, count: int, start) -> None:
    start.wait()
    for i in range(count):
        store.send(to, f"{prefix}{writer}-{i}", f"w{writer}")


def native_writer(root: str, team: str, to: str, writer: int, count: int, start) -> None:
    _send_all(NativeTeam(Path(root), team), to, "w", writer, count, start)


def native_drainer(root: str, team: str, member: str, out_path: str, stop) -> None:
    store = NativeTeam(Path(root), team)
    contents: list[str] = []
    errors: list[str] = []
    drains = 0
    while True:
        # Check before draining, so the drain after the stop signal sees every write.
        last = stop.is_set()
        read = store.drain(member)
        drains += 1
        contents += [m.content for m in read.messages]
        errors += [str(e) for e in read.errors]
        if last:
            break
        time.sleep(0.002)
    Path(out_path).write_text(json.dumps({"contents": contents, "errors": errors, "drains": drains}))


def claude_writer(root: str, team: str, to: str, writer: int, count: int, start) -> None:
    _send_all(ClaudeTeam(Path(root), team), to, "c", writer, count, start)


def claimer(root: str, team: str, owner: str, out_path: str, start) -> None:
    store = NativeTeam(Path(root), team)
    start.wait()
    claimed = []
    while True:
        task = store.claim_task(None, owner)
        if task is None:
            break
        claimed.append(task.id)
    Path(out_path).write_text(json.dumps(claimed))


def hold_lock_forever(kind: str, lock_path: str, held_marker: str) -> None:
    """Take a lock, say so, and never release it (the parent SIGKILLs us)."""
    lock = FileLock(Path(lock_path)) if kind == "file" else DirLock(Path(lock_path))
    lock.acquire()
    Path(held_marker).write_text(str(os.getpid()))
    while True:
        time.sleep(1)
