"""Cross-process locks compatible with the peers: an O_EXCL lock file (native) and a
proper-lockfile style lock directory (Claude Code). Both treat an old lock as stale."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import TracebackType

from teamtui.protocol.errors import LockTimeout

# Peers treat a lock older than this as left behind by a dead holder.
STALE_AFTER = 10.0
# Long enough to outlast a stale lock, so a dead holder never makes a write fail.
DEFAULT_TIMEOUT = 30.0


class _Lock:
    """Common acquire loop: try, and if the lock is stale, break it safely, else back off."""

    def __init__(self, path: Path, *, stale_after: float = STALE_AFTER, timeout: float = DEFAULT_TIMEOUT):
        self.path = Path(path)
        self.stale_after = stale_after
        self.timeout = timeout
        self.held = False

    def _try_create(self) -> bool:
        raise NotImplementedError

    def _remove(self, path: Path) -> None:
        raise NotImplementedError

    def acquire(self) -> None:
        deadline = time.monotonic() + self.timeout
        delay = 0.001
        while True:
            if self._try_create():
                self.held = True
                return
            self._break_if_stale()
            if time.monotonic() >= deadline:
                raise LockTimeout(f"could not take the lock {self.path} within {self.timeout:.0f}s")
            # Short randomized backoff: contention is brief, and jitter avoids lockstep retries.
            import random  # here: only a contended lock waits (~1 ms a CLI call)

            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.05)

    def _break_if_stale(self) -> None:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return
        if time.time() - st.st_mtime <= self.stale_after:
            return
        # Only one breaker at a time, so a breaker never removes a lock someone just took.
        breaker = self.path.with_name(self.path.name + ".break")
        try:
            fd = os.open(breaker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                if time.time() - os.lstat(breaker).st_mtime > self.stale_after:
                    os.unlink(breaker)
            except FileNotFoundError:
                pass
            return
        os.close(fd)
        try:
            again = os.lstat(self.path)
            if again.st_ino == st.st_ino and again.st_mtime == st.st_mtime:
                self._remove(self.path)
        except FileNotFoundError:
            pass
        finally:
            try:
                os.unlink(breaker)
            except FileNotFoundError:
                pass

    def release(self) -> None:
        if self.held:
            self.held = False
            try:
                self._remove(self.path)
            except FileNotFoundError:
                pass

    def __enter__(self) -> _Lock:
        self.acquire()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


class FileLock(_Lock):
    """`<name>.lock` created with O_CREAT|O_EXCL and unlinked on release (learn-claude-code's convention)."""

    def _try_create(self) -> bool:
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            os.unlink(self.path)  # a full disk: no lock is left behind for the peers to wait out
            raise
        finally:
            os.close(fd)
        return True

    def _remove(self, path: Path) -> None:
        os.unlink(path)


class DirLock(_Lock):
    """`<file>.lock` directory made with mkdir and removed with rmdir (proper-lockfile's convention)."""

    def _try_create(self) -> bool:
        try:
            os.mkdir(self.path)
        except FileExistsError:
            return False
        return True

    def _remove(self, path: Path) -> None:
        os.rmdir(path)
