"""Signalling a whole process group: the lead and the tmux panes both end teammates by process
group. Whether a process or a group still runs is read by teamtui.protocol.processes."""

from __future__ import annotations

import os


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
