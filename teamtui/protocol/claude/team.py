"""ClaudeTeam: the Claude Code layout's store, its parts joined, and what it can do."""

from __future__ import annotations

from teamtui.protocol.claude.config import ClaudeConfig, member_pane
from teamtui.protocol.claude.inbox import ClaudeInbox
from teamtui.protocol.claude.leadproc import lead_environ, lead_state
from teamtui.protocol.claude.tasks import ClaudeTasks
from teamtui.protocol.errors import UnsupportedError
from teamtui.protocol.models import Member
from teamtui.protocol.store import KeepsJournal, KeepsTranscripts, LeadsInTmux, RecordsLead

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from pathlib import Path

    from teamtui.protocol.changes import TeamLookups
    from teamtui.protocol.claude.journal import TeamJournal
    from teamtui.protocol.claude.transcripts.feed import TranscriptFeed


class ClaudeTeam(ClaudeConfig, ClaudeInbox, ClaudeTasks, RecordsLead, LeadsInTmux, KeepsTranscripts, KeepsJournal):
    """One team of Claude Code's agent teams."""

    writes_tasks = False
    has_teammate_logs = False
    appends_to_inboxes = False
    writes_shutdown_results = False
    shutdown_via_lead = True
    has_transcripts = True
    asks_through_hooks = True
    writes_members = False
    creates_teams = False
    camel_case_fields = True

    @classmethod
    def create_team(cls, root: Path, name: str, description: str = "") -> ClaudeTeam:
        raise UnsupportedError("creating a team is not supported for claude teams (Claude Code creates them)")

    def lead_state(self) -> str | None:
        return lead_state(self.lead_process) if self.lead_process is not None else None

    def lead_pid(self) -> int | None:
        return self.lead_process.pid if self.lead_process is not None else None

    def lead_environment(self) -> dict[str, str] | None:
        return lead_environ(self.lead_process) if self.lead_process is not None else None

    def teammate_pane(self, member: Member) -> str | None:
        return member_pane(member)

    def transcript_feed(self, lookups: TeamLookups) -> TranscriptFeed:
        from teamtui.protocol.claude.transcripts.feed import TranscriptFeed

        return TranscriptFeed(self.root, lookups)

    def open_journal(self) -> TeamJournal:
        # Claude Code prunes delivered messages and deletes an ended team: the journal keeps them.
        from teamtui.protocol.claude.journal import TeamJournal

        return TeamJournal.open(self)
