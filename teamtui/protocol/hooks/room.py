"""Whether a room that answers is running: every such room (the control room, a browser session of
`teamtui serve`, `teamtui requests --follow`, or `teamtui stream` on behalf of a room on another
machine) holds a shared flock on `rooms.lock` for as long as it runs.

The kernel drops a process's locks when it ends, however it ends, so a room that crashed cannot
be taken for a running one, and nothing has to be cleaned up. The hook tests with a
non-blocking exclusive lock (it fails while any room holds its shared one), and while it waits
for an answer a thread blocks on that exclusive lock: it is granted the moment the last room
goes. The lock file sits in the 0700 folder, so another user can neither hold it nor test it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from teamtui.protocol.hooks.place import ROOMS_LOCK, ensure_spool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def _open(spool: Path) -> int:
    return os.open(spool / ROOMS_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)


class RoomPresence:
    """Held by a room that answers requests, for as long as it runs (`with RoomPresence(): ...`,
    or `hold()` / `release()`). The descriptor is not inherited by programs the room starts."""

    def __init__(self, spool: Path | None = None):
        self.spool = spool
        self._fd: int | None = None

    def hold(self) -> RoomPresence:
        if self._fd is None:
            spool = self.spool or ensure_spool()
            fd = _open(spool)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a hook briefly holds it alone
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the lock
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RoomPresence:
        return self.hold()

    def __exit__(self, *exc: object) -> None:
        self.release()


def room_running(spool: Path) -> bool:
    """Whether any room holds the lock now."""
    fd = _open(spool)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def when_no_room(spool: Path, then: Callable[[], None]) -> None:
    """Start a daemon thread that calls `then` once no room holds the lock any more."""
    import threading

    fd = _open(spool)

    def wait() -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            fcntl.flock(fd, fcntl.LOCK_UN)  # at once: a room starting now must not wait on us
        except OSError:
            return
        finally:
            os.close(fd)
        then()

    threading.Thread(target=wait, name="teamtui-no-room", daemon=True).start()
