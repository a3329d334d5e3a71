"""ClaudeTeam: the Claude Code layout's store, its parts joined, and what it can do."""

from __future__ import annotations

from teamtui.protocol.claude.config import ClaudeConfig
from teamtui.protocol.claude.inbox import ClaudeInbox
from teamtui.protocol.claude.tasks import ClaudeTasks


class ClaudeTeam(ClaudeConfig, ClaudeInbox, ClaudeTasks):
    """One team of Claude Code's agent teams."""

    writes_tasks = False
    has_task_sidecars = False
    has_teammate_logs = False
    appends_to_inboxes = False
    writes_shutdown_results = False
    shutdown_via_lead = True
    has_transcripts = True
