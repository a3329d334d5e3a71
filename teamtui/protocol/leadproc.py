"""The lead of a Claude Code session team (2.1.178+): `leadProcess` in config.json, alive or ended.

Claude Code records `{pid, pidSpace, claimedAt, procStart}`; `procStart` is field 22 of
/proc/<pid>/stat (the start time in clock ticks), so a pid reused by another process is told
apart from the lead. Its environment (readable while it lives, by its user) says which task
list the team uses (`CLAUDE_CODE_TASK_LIST_ID`).
"""

from __future__ import annotations

import os
from pathlib import Path

from teamtui.protocol.procstat import PROC, stat_fields
from teamtui.protocol.record import FrozenRecord, init_field

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any, Literal

    LeadState = Literal["alive", "ended", "unknown"]

TASK_LIST_ENV = "CLAUDE_CODE_TASK_LIST_ID"
# An environment block is a few KB; a bound keeps a hostile /proc file from costing anything.
_ENVIRON_LIMIT = 1 << 20


class LeadProcess(FrozenRecord):
    __slots__ = ("pid", "pid_space", "claimed_at", "proc_start")
    pid: int
    pid_space: str
    claimed_at: float | None
    proc_start: str

    def __init__(self, pid: int, pid_space: str = "", claimed_at: float | None = None, proc_start: str = ""):
        init_field(self, "pid", pid)
        init_field(self, "pid_space", pid_space)
        init_field(self, "claimed_at", claimed_at)
        init_field(self, "proc_start", proc_start)


def parse_lead_process(raw: Any) -> LeadProcess | None:
    """`leadProcess` from config.json; None when absent or not an object with a positive pid."""
    if not isinstance(raw, dict):
        return None
    pid = raw.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0 or pid > 2**31:
        return None
    claimed = raw.get("claimedAt")
    space = raw.get("pidSpace")
    start = raw.get("procStart")
    return LeadProcess(
        pid=pid,
        pid_space=space if isinstance(space, str) else "",
        claimed_at=claimed / 1000.0 if isinstance(claimed, (int, float)) and not isinstance(claimed, bool) else None,
        proc_start=str(start) if isinstance(start, (str, int)) and not isinstance(start, bool) else "",
    )


def _my_pid_space(proc: Path) -> str:
    try:
        return os.readlink(proc / "self" / "ns" / "pid")
    except OSError:
        return ""


def lead_state(lead: LeadProcess | None, proc: Path = PROC) -> LeadState:
    """Whether the lead still runs: its pid exists and started when Claude Code said it did."""
    if lead is None or not proc.is_dir():
        return "unknown"
    mine = _my_pid_space(proc)
    if lead.pid_space and mine and not lead.pid_space.endswith(mine):
        return "unknown"  # another pid namespace (a container, another machine): its pids mean nothing here
    fields = stat_fields(lead.pid, proc)
    if fields is None:
        return "ended"
    # fields[0] is the state (field 3), fields[19] the start time (field 22).
    if fields and fields[0] in ("Z", "X"):
        return "ended"
    if lead.proc_start and len(fields) > 19 and fields[19] != lead.proc_start:
        return "ended"  # the pid now belongs to another process
    return "alive"


def lead_environ(lead: LeadProcess, proc: Path = PROC) -> dict[str, str] | None:
    """The live lead's environment, or None when it cannot be read (ended, another user)."""
    if lead_state(lead, proc) != "alive":
        return None
    try:
        with open(proc / str(lead.pid) / "environ", "rb") as fh:
            data = fh.read(_ENVIRON_LIMIT)
    except OSError:
        return None
    env: dict[str, str] = {}
    for item in data.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            env[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return env


def task_list_id(lead: LeadProcess | None, proc: Path = PROC) -> str | None:
    """`CLAUDE_CODE_TASK_LIST_ID` of the live lead, when it set one."""
    if lead is None:
        return None
    env = lead_environ(lead, proc)
    value = env.get(TASK_LIST_ENV) if env else None
    return value or None
