"""ClaudeTeam: the Claude Code layout's store, its parts joined, and what it can do."""

from __future__ import annotations

from teamtui.protocol.claude.config import ClaudeConfig
from teamtui.protocol.claude.inbox import ClaudeInbox
from teamtui.protocol.claude.tasks import ClaudeTasks

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.claude.journal import TeamJournal
    from teamtui.protocol.claude.transcripts.feed import TranscriptFeed


class ClaudeTeam(ClaudeConfig, ClaudeInbox, ClaudeTasks):
    """One team of Claude Code's agent teams."""

    writes_tasks = False
    has_task_sidecars = False
    has_teammate_logs = False
    appends_to_inboxes = False
    writes_shutdown_results = False
    shutdown_via_lead = True
    has_transcripts = True

    def transcript_feed(self, state: Any) -> TranscriptFeed:
        from teamtui.protocol.claude.transcripts.feed import TranscriptFeed

        return TranscriptFeed(state)

    def open_journal(self) -> TeamJournal:
        # Claude Code prunes delivered messages and deletes an ended team: the journal keeps them.
        from teamtui.protocol.claude.journal import TeamJournal

        return TeamJournal.open(self)
