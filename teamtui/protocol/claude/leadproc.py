"""The lead of a Claude Code session team (2.1.178+): `leadProcess` in config.json, alive or ended.

Claude Code records `{pid, pidSpace, claimedAt, procStart}`; on Linux `procStart` is field 22
of /proc/<pid>/stat (the start time in clock ticks), so a pid reused by another process is told
apart from the lead; elsewhere the process must have started by `claimedAt`. Its environment
(readable while it lives, by its user) says which task list the team uses
(`CLAUDE_CODE_TASK_LIST_ID`). The processes themselves are read by teamtui.protocol.processes.
"""

from __future__ import annotations

from teamtui.protocol import processes
from teamtui.protocol.record import FrozenRecord, init_field

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any, Literal

    LeadState = Literal["alive", "ended", "unknown"]

TASK_LIST_ENV = "CLAUDE_CODE_TASK_LIST_ID"


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


def parse_lead_process(raw: object) -> LeadProcess | None:
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


def _identity(lead: LeadProcess) -> dict[str, Any]:
    """What tells the lead from a later process with its pid, where the platform defines it."""
    # procStart is clock ticks since boot: Linux's field 22, meaningless elsewhere.
    return {"start": lead.proc_start if processes.LINUX else "", "started_by": lead.claimed_at}


def _other_pid_space(lead: LeadProcess) -> bool:
    """The lead's pids belong to another pid namespace (a container, another machine)."""
    mine = processes.pid_space()
    return bool(lead.pid_space and mine and not lead.pid_space.endswith(mine))


def lead_state(lead: LeadProcess | None) -> LeadState:
    """Whether the lead still runs: its pid exists and started when Claude Code said it did;
    "unknown" when that cannot be told (another pid namespace, another user's process)."""
    if lead is None or _other_pid_space(lead):
        return "unknown"
    return processes.state(lead.pid, **_identity(lead))


def lead_environ(lead: LeadProcess) -> dict[str, str] | None:
    """The live lead's environment, or None when it cannot be read (ended, another user)."""
    if _other_pid_space(lead):
        return None
    now, env = processes.environment(lead.pid, **_identity(lead))
    return env if now == "alive" else None


def task_list_id(lead: LeadProcess | None) -> str | None:
    """`CLAUDE_CODE_TASK_LIST_ID` of the live lead, when it set one."""
    if lead is None:
        return None
    env = lead_environ(lead)
    value = env.get(TASK_LIST_ENV) if env else None
    return value or None
