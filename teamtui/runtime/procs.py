"""Processes and process groups, from /proc and signals: is it running, did it start when we
think, is any of its group left, and signalling a whole group. The lead and the tmux panes
both end teammates by process group, and both need zombies counted as ended."""

from __future__ import annotations

import os


def _stat_fields(pid: int | str) -> list[str] | None:
    """/proc/<pid>/stat from field 3 (state) on, or None when the process is gone.
    The command name (field 2) may hold spaces and parentheses: split after the last ')'."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()


def process_start(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" where /proc is missing)."""
    fields = _stat_fields(pid)
    return fields[19] if fields is not None and len(fields) > 19 else ""


def process_running(pid: int) -> bool:
    """True while `pid` runs; a zombie (ended, not yet reaped by its parent) counts as ended."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def group_alive(pgid: int) -> bool:
    """True while any process of group `pgid` runs (zombies do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc/self"):
        return True
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(entry)
            if fields is not None and len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
                return True
    return False


def signal_group(pgid: int | None, sig: int) -> bool:
    """Send `sig` to a whole process group; False when the group is gone (or not ours to signal)."""
    # pgid 0/1 would mean our own group or init: never signal those.
    if not pgid or pgid <= 1 or pgid == os.getpgrp():
        return False
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True
