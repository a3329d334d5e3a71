"""What Claude Code's hook events say of a teammate: idle or working, exactly, and when.

`TeammateIdle` names the teammate and its team (fired for pane and in-process teammates); an
in-process teammate's turn starts and ends with `SubagentStart` / `SubagentStop` (its name is the
event's `agent_type`, its team the session's); the lead's session starts and ends with
`SessionStart` / `SessionEnd` (said of `LEAD`). The room keeps these live (session/hook_feed.py);
`teamtui status` reads them from the spool (`said_in_spool`), so both show the same status.
"""

from __future__ import annotations

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


def session_team(session_id: str) -> str:
    """The team Claude Code 2.1.178+ makes for a session: `session-<first 8 hex>` ('' for an odd id)."""
    head = session_id[:8]
    ok = len(head) == 8 and all(c in "0123456789abcdef" for c in head)
    return f"session-{head}" if ok else ""


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
    from teamtui.protocol.hooks.spool import SpoolReader

    out: Said = {}
    for rec in SpoolReader(spool, from_start=True).read():
        found = said_by(rec)
        if found is not None and found[0] == team:
            out[found[1]] = (found[2], found[3])
    return out
