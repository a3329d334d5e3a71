"""Everything teamtui knows of processes, read through psutil, for every layer: whether a process
still runs and is the one we think (a reused pid is another process), when it started, its
parent, the children of every process, its command line, its environment, and whether any
member of a process group is left.

A process is "alive", "ended" or "unknown": a zombie has ended; one psutil may not read (another
user's) is unknown, never ended. No other module of teamtui opens /proc/<pid>/...
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType
    from typing import Literal

    from psutil import Process

    State = Literal["alive", "ended", "unknown"]

# Clock ticks since boot (field 22 of /proc/<pid>/stat) and pid namespaces exist only on Linux.
LINUX = sys.platform.startswith("linux")
# A process that started this long after the moment it was known to run is another one (clocks, rounding).
CLOCK_SLACK = 1.0


def _psutil() -> ModuleType:
    # Imported on first use: `import psutil` costs a CLI call ~11 ms, and the hot commands never ask.
    import psutil

    return psutil


def _ticks(p: Process) -> int:
    """Clock ticks from boot to `p`'s start: psutil's create time is boot time + ticks / CLK_TCK."""
    psutil = _psutil()
    # Exact: both terms are the same boot time, and the float error is far below half a tick.
    return round((p.create_time() - psutil.boot_time()) * os.sysconf("SC_CLK_TCK"))


def _start(p: Process) -> str:
    return str(_ticks(p)) if LINUX else repr(p.create_time())


def _same_start(p: Process, start: str) -> bool:
    if LINUX:
        return start.strip() == str(_ticks(p))
    try:
        recorded = float(start)
    except ValueError:
        return False
    return abs(p.create_time() - recorded) < 0.01


def _state(p: Process, start: str, started_by: float | None) -> State:
    """`p`'s state; raises psutil's NoSuchProcess (gone, or a zombie) and AccessDenied."""
    psutil = _psutil()
    if p.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
        return "ended"
    if start:
        return "alive" if _same_start(p, start) else "ended"
    # Only without a start token: a clock step moves psutil's create time on Linux, never the ticks.
    if started_by is not None and p.create_time() > started_by + CLOCK_SLACK:
        return "ended"  # started after it was known to run: the pid now belongs to another process
    return "alive"


def start_of(pid: int) -> str:
    """When `pid` started, as a token for `state(pid, start=...)`: on Linux clock ticks since boot
    (field 22 of /proc/<pid>/stat, what Claude Code records as procStart), elsewhere the create
    time in seconds since the epoch; "" when it cannot be read."""
    psutil = _psutil()
    try:
        return _start(psutil.Process(pid)) if pid > 0 else ""
    except psutil.Error:
        return ""


def state(pid: int, start: str = "", started_by: float | None = None) -> State:
    """Whether `pid` runs and is the process meant: `start` is its `start_of` token as recorded
    (another start: the pid was reused); `started_by` a wall-clock time it was known to run by."""
    psutil = _psutil()
    if pid <= 0:
        return "ended"
    try:
        p = psutil.Process(pid)
        with p.oneshot():
            return _state(p, start, started_by)
    except psutil.NoSuchProcess:  # ZombieProcess is one too
        return "ended"
    except psutil.AccessDenied:
        return "unknown"


def running(pid: int) -> bool:
    """True unless `pid` has ended: a process that cannot be read is there all the same."""
    return state(pid) != "ended"


def environment(pid: int, start: str = "", started_by: float | None = None) -> tuple[State, dict[str, str]]:
    """`pid`'s state (as `state`) and, while alive and readable, its environment."""
    psutil = _psutil()
    if pid <= 0:
        return "ended", {}
    try:
        p = psutil.Process(pid)
        with p.oneshot():
            now = _state(p, start, started_by)
        return (now, p.environ()) if now == "alive" else (now, {})
    except psutil.NoSuchProcess:
        return "ended", {}
    except psutil.AccessDenied:
        return "unknown", {}


def parent(pid: int) -> int | None:
    """`pid`'s parent; None when it is gone, unreadable or has none."""
    psutil = _psutil()
    try:
        ppid = psutil.Process(pid).ppid() if pid > 0 else 0
    except psutil.Error:
        return None
    return ppid or None


def ancestors(pid: int, depth: int) -> list[int]:
    """`pid`'s parent, its parent, … (at most `depth`), up to but not including init."""
    out: list[int] = []
    for _ in range(depth):
        up = parent(pid)
        if up is None or up <= 1:
            break
        out.append(up)
        pid = up
    return out


def children() -> dict[int, list[int]]:
    """Parent pid -> child pids, for every process that can be seen: one pass serves a whole tree walk."""
    psutil = _psutil()
    tree: dict[int, list[int]] = {}
    for p in psutil.process_iter(["ppid"]):
        ppid = p.info.get("ppid")
        if ppid:
            tree.setdefault(ppid, []).append(p.pid)
    return tree


def family(pid: int, depth: int, tree: dict[int, list[int]] | None = None, limit: int = 64) -> Iterator[int]:
    """`pid`, then the processes under it: at most `depth` generations down and `limit` in all.
    `tree` is a `children()` already taken, when several walks share one pass."""
    tree = children() if tree is None else tree
    todo: list[tuple[int, int]] = [(pid, 0)]
    seen: set[int] = set()
    while todo and len(seen) < limit:  # a bound, not a limit that bites: a pane's tree is small
        at, down = todo.pop()
        if at in seen:
            continue
        seen.add(at)
        yield at
        if down < depth:
            todo.extend((child, down + 1) for child in tree.get(at, []))


def command_line(pid: int) -> list[str] | None:
    """`pid`'s arguments; None when it is gone or unreadable."""
    psutil = _psutil()
    try:
        return psutil.Process(pid).cmdline() if pid > 0 else None
    except psutil.Error:
        return None


def group_alive(pgid: int) -> bool:
    """True while any process of group `pgid` runs (zombies do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's group: it is there, and not ours to look into
    # psutil has no process group: getpgid is the one way everywhere.
    for pid in _psutil().pids():
        try:
            in_group = os.getpgid(pid) == pgid
        except OSError:
            continue
        if in_group and state(pid) != "ended":
            return True
    return False


def pid_space() -> str:
    """This process's pid namespace ("pid:[4026531836]"); "" where there is none to compare."""
    if not LINUX:
        return ""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""
