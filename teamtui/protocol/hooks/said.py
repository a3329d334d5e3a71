"""What Claude Code's hook events say of a teammate: idle or working, exactly, and when.

`TeammateIdle` names the teammate and its team (fired for pane and in-process teammates); an
in-process teammate's turn starts and ends with `SubagentStart` / `SubagentStop` (its name is the
event's `agent_type`, its team the session's); the lead's session starts and ends with
`SessionStart` / `SessionEnd` (said of `LEAD`). The room keeps these live (session/hook_feed.py);
`teamtui status` reads them from the spool (`said_in_spool`), so both show the same status.
"""

from __future__ import annotations

from teamtui.protocol.hooks.event import session_team
from teamtui.protocol.models import MemberStatus

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SAYS = {"TeammateIdle": MemberStatus.IDLE, "SubagentStart": MemberStatus.WORKING, "SubagentStop": MemberStatus.IDLE}
# The lead's own session starting (at its prompt) and ending; said of LEAD, the team's lead whatever its name.
SAYS_OF_LEAD = {"SessionStart": MemberStatus.IDLE, "SessionEnd": MemberStatus.SHUTDOWN}
LEAD = ""
Said = dict[str, tuple[MemberStatus, float]]  # teammate -> its status, when the hook said it


def said_by(rec: dict[str, Any]) -> tuple[str, str, MemberStatus, float] | None:
    """(team, teammate, status, when) a spool record says; None when it says nothing of one."""
    event, sid, at = rec.get("event"), rec.get("session_id"), rec.get("at")
    if (
        not isinstance(event, str)
        or not isinstance(sid, str)
        or not isinstance(at, (int, float))
        or isinstance(at, bool)
    ):
        return None
    team = rec.get("team_name") if isinstance(rec.get("team_name"), str) else session_team(sid)
    if event in SAYS_OF_LEAD and "agent_type" not in rec:
        return (team, LEAD, SAYS_OF_LEAD[event], float(at)) if team else None
    status = SAYS.get(event)
    who = rec.get("teammate_name") or rec.get("agent_type")
    if status is None or not team or not isinstance(who, str) or not who:
        return None
    return team, who, status, float(at)


def said_in_spool(spool: Path, team: str) -> Said:
    """What the spool (both generations) last said of each teammate of `team`."""
    return _spool_said(spool).get(team, {})


_read: tuple[tuple, dict[str, Said]] | None = None  # the spool as last read: `status --all` asks once per team


def _spool_said(spool: Path) -> dict[str, Said]:
    """team -> what the spool last said of its teammates; read again only when the spool changed."""
    import os

    from teamtui.protocol.hooks.place import EVENTS, EVENTS_OLD
    from teamtui.protocol.hooks.spool import SpoolReader

    global _read
    mark: list[object] = [spool]
    for name in (EVENTS, EVENTS_OLD):
        try:
            st = os.stat(spool / name)
            mark.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            mark.append(None)
    key = tuple(mark)
    if _read is not None and _read[0] == key:
        return _read[1]
    out: dict[str, Said] = {}
    for rec in SpoolReader(spool, from_start=True).read():
        found = said_by(rec)
        if found is not None:
            out.setdefault(found[0], {})[found[1]] = (found[2], found[3])
    _read = (key, out)
    return out
