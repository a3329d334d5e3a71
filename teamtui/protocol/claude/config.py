"""A Claude Code team's config.json: its members (camelCase keys), its lead and the lead's process."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.claude.layout import ClaudeLayout, parse_time
from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.models import Member, MemberStatus, TeamConfig
from teamtui.protocol.store import validation_reason
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Claude Code's camelCase member keys and our field names.
_MEMBER_KEYS = {
    "agentId": "agent_id",
    "agentType": "agent_type",
    "tmuxPaneId": "tmux_pane_id",
    "backendType": "backend_type",
}


def member_backend(member: Member) -> str:
    """`tmux`, `in-process`, `iterm2` or "" : from backendType, else from tmuxPaneId."""
    if member.backend_type:
        return member.backend_type
    pane = member.tmux_pane_id
    if pane.startswith("%"):
        return "tmux"
    if pane in ("in-process", "leader"):
        return "in-process"
    return ""


def member_pane(member: Member) -> str | None:
    """The tmux pane a teammate runs in (`%N`), or None (in-process, the lead, unknown)."""
    pane = member.tmux_pane_id
    return pane if pane.startswith("%") and pane[1:].isdigit() else None


class ClaudeConfig(ClaudeLayout):
    def decode_config(self, data: Any, path: Path) -> TeamConfig:
        if not isinstance(data, dict):
            raise ParseError(ReadError(path, f"expected a JSON object, got {type(data).__name__}"))
        self._learn_lead(data.get("leadProcess"))
        raw_members = data.get("members") or []
        if not isinstance(raw_members, list):
            raise ParseError(ReadError(path, "'members' must be a list"))
        lead_id = data.get("leadAgentId") if isinstance(data.get("leadAgentId"), str) else ""
        lead = ""
        members = []
        for i, rm in enumerate(raw_members):
            if not isinstance(rm, dict):
                raise ParseError(ReadError(path, f"members[{i}] must be an object"))
            md = {_MEMBER_KEYS.get(k, k): v for k, v in rm.items()}
            md["joined_at"] = parse_time(rm.get("joinedAt")) or None
            active = rm.get("isActive")
            md["status"] = (
                MemberStatus.WORKING
                if active is True
                else MemberStatus.IDLE
                if active is False
                else MemberStatus.UNKNOWN
            )
            try:
                m = Member.model_validate(md)
            except ValidationError as exc:
                raise ParseError(ReadError(path, f"members[{i}].{validation_reason(exc)}")) from None
            m._raw = rm
            if lead_id and m.agent_id == lead_id:
                lead = m.name
                continue
            members.append(m)
        if not lead:
            lead = lead_id.split("@", 1)[0] if lead_id else self.default_lead
        try:
            cfg = TeamConfig(
                name=data.get("name") if isinstance(data.get("name"), str) else self.name,
                description=data.get("description") if isinstance(data.get("description"), str) else "",
                created_at=parse_time(data.get("createdAt")) or None,
                lead=lead,
            )
        except ValidationError as exc:
            raise ParseError(ReadError(path, validation_reason(exc))) from None
        cfg.members = members
        cfg._raw = data
        return cfg
