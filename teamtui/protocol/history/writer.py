"""The one writer thread of a process: ops in, transactions out, problems said.

`put(op)` never waits (a full queue drops the op and counts it: a dashboard's loop never waits
on the disk); the thread takes what is queued, up to BATCH ops or what came within LINGER of
the first, and commits them in one transaction (`flush` commits at once). What it cannot write is one of `db.py`'s troubles:

- the file is damaged, or another process held the write lock for `lock_patience` seconds: it is
  moved aside and rebuilt from the journals and the team folders (rebuild.py), the person is told,
  and recording goes on (`generation` moves, so every recorder sends its team's snapshot again);
- the disk is full, the file cannot be written, or a newer teamtui made it: recording stops, and
  `stopped` says why in one line (the UI shows it as a problem; nothing else stops).

Listeners (`listen`) hear each problem line on the writer's thread.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from teamtui.protocol.history import db_path
from teamtui.protocol.history.db import (
    BUSY_TIMEOUT,
    DAMAGED,
    FULL,
    LOCKED,
    NEWER,
    UNWRITABLE,
    Trouble,
    connect,
    file_id,
    trouble_kind,
)
from teamtui.protocol.history.ops import Op, Txn

# Ops waiting for the writer; beyond this new ones are dropped (and counted), never waited for.
QUEUE_LIMIT = 50_000
# Ops in one transaction at most.
BATCH = 2000
# A batch's first op waits this long for more before they are committed together: recording a
# busy team costs a commit a second, not one per change. What is committed survives a kill; what
# waits is the last second's.
LINGER = 1.0
# A database whose write lock another process holds this long is treated as locked out.
LOCK_PATIENCE = 30.0
# How often records older than history_keep_days are removed (checked after a commit; no timer).
PRUNE_EVERY = 6 * 3600.0
DEFAULT_KEEP_DAYS = 90.0
# A writer with nothing to write this long closes the database and ends its thread.
IDLE_CLOSE = 60.0
# Problems kept for whoever asks later.
MAX_PROBLEMS = 20


class _Stop:
    """What `close` puts on the queue: the thread commits what it holds and ends."""


_STOP = _Stop()
# What recording stopped on, as a person reads it.
_STOPPED = {
    FULL: "the disk holding {path} is full: history recording stopped (what was recorded is kept; free some space and restart teamtui)",
    UNWRITABLE: "{path} cannot be written ({exc}): history recording stopped",
    NEWER: "{path} was made by a newer teamtui: this one records no history in it",
}


class HistoryWriter:
    """Writes the ops of every recorder of this process to one database."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        keep_days: float | None = None,
        lock_patience: float = LOCK_PATIENCE,
        busy_timeout: float = BUSY_TIMEOUT,
        import_journals: bool = True,
        rebuild: Callable[[sqlite3.Connection], str] | None = None,
        linger: float = LINGER,
    ):
        self.path = Path(path) if path is not None else db_path()
        self.keep_days = keep_days  # None: config.toml's history_keep_days, read on the writer's thread
        self.lock_patience = lock_patience
        self.busy_timeout = busy_timeout
        self.import_journals = import_journals
        self.linger = linger  # how long the first op of a batch waits for others (flush() does not wait)
        self.rebuild = rebuild  # None: rebuild.rebuild_into (the journals and the team folders)
        self.queue: queue.Queue[Op | threading.Event | _Stop] = queue.Queue(QUEUE_LIMIT)
        self.generation = 0  # moves when the database was replaced: recorders send their snapshot again
        self.dropped = 0
        self.written = 0
        self.cpu_s = 0.0  # the thread's CPU writing (for the benchmarks)
        self.stopped = ""  # why recording stopped ("": it goes on)
        self.problems: list[str] = []
        self._told_dropped = False
        self._listeners: list[Callable[[str], None]] = []
        self._unheard: set[str] = set()  # problems told while no listener listened
        self._told = threading.Lock()  # a problem told and a listener added: one before the other
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None
        self._pruned_at = 0.0

    # ------------------------------------------------------------------ the callers' side
    def put(self, op: Op) -> None:
        if self.stopped:
            self.dropped += 1
            return
        try:
            self.queue.put_nowait(op)
        except queue.Full:
            self.dropped += 1
            return
        if self._thread is None:
            self._start()

    def listen(self, callback: Callable[[str], None]) -> list[tuple[str, bool]]:
        """`callback(line)` for every problem from now on (called on the writer's thread). Returns
        the problems so far, each with whether a listener was told of it then: a room that opens
        shows them all, and toasts those nobody was told of (found before any room listened)."""
        with self._told:
            self._listeners.append(callback)
            so_far = [(line, line not in self._unheard) for line in self.problems]
            self._unheard.clear()
        return so_far

    def unlisten(self, callback: Callable[[str], None]) -> None:
        """No more problems to `callback` (a room that closed)."""
        with self._told:
            if callback in self._listeners:
                self._listeners.remove(callback)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait (bounded) until everything queued so far is committed (or dropped); True when it was."""
        if self._thread is None and self.queue.empty():
            return True
        done = threading.Event()
        try:
            self.queue.put(done, timeout=timeout)
        except queue.Full:
            return False
        self._start()
        return done.wait(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then end the thread (a new put starts it again)."""
        thread = self._thread
        if thread is None:
            return
        with contextlib.suppress(queue.Full):
            self.queue.put(_STOP, timeout=timeout)
        thread.join(timeout)

    def _start(self) -> None:
        # Under the lock the idle thread ends under: an op queued as it ends is never left behind.
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="teamtui-history", daemon=True)
                self._thread.start()

    def _tell(self, line: str) -> None:
        line = f"history: {line}" if not line.startswith("history:") else line
        with self._told:
            if len(self.problems) < MAX_PROBLEMS:
                self.problems.append(line)
                if not self._listeners:
                    self._unheard.add(line)
            listeners = list(self._listeners)
        for callback in listeners:
            try:
                callback(line)
            except Exception:  # noqa: BLE001 - a listener's failure is not the writer's
                continue

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        while True:
            try:
                item = self.queue.get(timeout=IDLE_CLOSE)
            except queue.Empty:
                with self._lock:
                    if self.queue.empty():  # idle: the file closed, the thread ended (a put starts it again)
                        self._close()
                        self._thread = None
                        return
                continue
            batch: list[Op] = []
            marks: list[threading.Event] = []
            stop = False
            until = time.monotonic() + self.linger
            while True:
                if isinstance(item, _Stop):
                    stop = True
                    break
                if isinstance(item, threading.Event):
                    marks.append(item)  # a flush: commit now
                else:
                    batch.append(item)
                if len(batch) >= BATCH:
                    break
                try:
                    item = self.queue.get_nowait()
                    continue
                except queue.Empty:
                    pass
                # Nothing more yet: wait a little for more, so a busy team costs one commit (and one
                # small FTS5 segment) a `linger`, not one per change. A flush or a stop ends the wait.
                left = until - time.monotonic()
                if marks or left <= 0:
                    break
                try:
                    item = self.queue.get(timeout=left)
                except queue.Empty:
                    break
            if batch:
                cpu = time.thread_time()
                self._write(batch)
                self.cpu_s += time.thread_time() - cpu
            for mark in marks:
                mark.set()
            if stop:
                self._close()
                with self._lock:
                    self._thread = None
                return

    def _close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
        self._con = None

    def _write(self, batch: list[Op]) -> None:
        if self.stopped:
            self.dropped += len(batch)
            return
        locked_since: float | None = None
        recovered = False
        while True:
            failure = self._try(batch)
            if failure is None:
                return
            kind, exc, bad = failure
            if kind == LOCKED:
                locked_since = locked_since or time.monotonic()
                if time.monotonic() - locked_since < self.lock_patience:
                    time.sleep(0.2)
                    continue
            if kind in (LOCKED, DAMAGED) and not recovered:
                recovered = True
                locked_since = None
                if self._recover(kind, exc, bad):
                    continue
            if kind in _STOPPED:
                self._stop(kind, exc)
            else:
                self._tell(f"{len(batch)} records could not be written to {self.path}: {exc}")
            self.dropped += len(batch)
            return

    def _try(self, batch: list[Op]) -> tuple[str, BaseException, tuple[int, int] | None] | None:
        """One attempt at the batch: None when it is committed, else what went wrong (and the file it was)."""
        try:
            con = self._connection()
            self._commit(con, batch)
            self.written += len(batch)
            self._after_commit(con)
            return None
        except Exception as exc:  # noqa: BLE001 - every failure is one of db.py's kinds, handled by the caller
            bad = file_id(self.path)
            self._close()
            return trouble_kind(exc), exc, bad

    def _connection(self) -> sqlite3.Connection:
        if self._con is not None and file_id(self.path) == self._file:
            return self._con
        self._close()
        first = self._file is None
        self._con = connect(self.path, timeout=self.busy_timeout)
        now = file_id(self.path)
        if not first and now != self._file:
            # Another process moved it aside (and rebuilt it): every recorder sends its snapshot again.
            self.generation += 1
        self._file = now
        if first:
            self._opened(self._con)
        return self._con

    def _opened(self, con: sqlite3.Connection) -> None:
        """Once per process: the journals' new records read in."""
        if not self.import_journals:
            return
        from teamtui.protocol.history.importer import import_journals

        try:
            import_journals(con)
        except sqlite3.Error as exc:
            if trouble_kind(exc) in (DAMAGED, LOCKED, FULL):
                raise
            self._tell(f"the journals could not be read in: {exc}")

    def _commit(self, con: sqlite3.Connection, batch: list[Op]) -> None:
        con.execute("BEGIN IMMEDIATE")
        try:
            txn = Txn(con)
            bad = 0
            for op in batch:
                try:
                    txn.apply(op)
                except (TypeError, ValueError, KeyError, IndexError, sqlite3.IntegrityError, sqlite3.InterfaceError):
                    bad += 1  # an op this writer cannot read: skipped, the rest kept
            txn.finish()
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    con.execute("ROLLBACK")
            raise
        if bad:
            self._tell(f"{bad} malformed records skipped")
        if self.dropped and not self._told_dropped:
            self._told_dropped = True
            self._tell(f"{self.dropped} records dropped: the writer fell behind")

    def _after_commit(self, con: sqlite3.Connection) -> None:
        now = time.time()
        if now - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = now
        from teamtui.protocol.history.prune import prune

        keep = self.keep_days if self.keep_days is not None else _configured_keep_days()
        try:
            prune(con, now - keep * 86400.0)
        except sqlite3.Error as exc:
            if trouble_kind(exc) in (DAMAGED, FULL):
                raise
            self._tell(f"old records could not be removed: {exc}")

    def _recover(self, kind: str, exc: BaseException, bad: tuple[int, int] | None) -> bool:
        """The damaged (or locked-out) file moved aside and a new one rebuilt; False when that failed too."""
        from teamtui.protocol.history.rebuild import recover

        try:
            done = recover(self.path, kind, str(exc), bad=bad, rebuild=self.rebuild, busy_timeout=self.busy_timeout)
        except Exception as again:  # noqa: BLE001 - nothing more to try: recording stops, said once
            self._stop(UNWRITABLE if trouble_kind(again) != FULL else FULL, again)
            return False
        self.generation += 1
        self._file = None  # the new file: opened afresh (and the journals read into it by the rebuild)
        self._tell(done)
        return True

    def _stop(self, kind: str, exc: BaseException) -> None:
        self.stopped = _STOPPED.get(kind, "{path}: {exc}: history recording stopped").format(path=self.path, exc=exc)
        self._tell(self.stopped)


def _configured_keep_days() -> float:
    try:
        from teamtui.protocol.settings import load_settings

        return float(load_settings().history_keep_days)
    except Exception:  # noqa: BLE001 - a bad config file: the default, the settings' own problems say why
        return DEFAULT_KEEP_DAYS


# ------------------------------------------------------------------ one writer per database and process

_WRITERS: dict[str, HistoryWriter] = {}
_WRITERS_LOCK = threading.Lock()


def shared_writer(path: Path | None = None) -> HistoryWriter:
    """This process's writer of the database at `path` (default: the user's)."""
    key = os.fspath(path or db_path())
    with _WRITERS_LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            writer = _WRITERS[key] = HistoryWriter(Path(key))
        return writer


def flush_all(timeout: float = 2.0) -> None:
    for writer in list(_WRITERS.values()):
        writer.flush(timeout)


atexit.register(flush_all)

__all__ = ["HistoryWriter", "Trouble", "shared_writer", "flush_all"]
