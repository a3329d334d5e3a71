"""The Claude Code layout: `teams/<team>/` and `tasks/<list>/` under ~/.claude (or $CLAUDE_CONFIG_DIR).

layout: where the files are, and Claude Code's times; config: config.json, members and the lead's
process (leadproc); inbox: the pending-queue inboxes and the *delivered* rule; tasks: the task list;
team: ClaudeTeam, the four joined. transcripts/: each member's session transcript; journal: what
teamtui keeps of a team Claude Code prunes or deletes; shutdown: a shutdown asked of the lead.
"""

from teamtui.protocol.claude.config import member_backend, member_pane
from teamtui.protocol.claude.inbox import RESERVED_SENDERS, entry_key, stringify_protocol
from teamtui.protocol.claude.layout import default_claude_root, iso_now, parse_time
from teamtui.protocol.claude.team import ClaudeTeam

__all__ = [
    "RESERVED_SENDERS",
    "ClaudeTeam",
    "default_claude_root",
    "entry_key",
    "iso_now",
    "member_backend",
    "member_pane",
    "parse_time",
    "stringify_protocol",
]
