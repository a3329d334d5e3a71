"""Claude Code transcripts: where they are, what they say (readable entries), and what they tell
about each teammate (activity, tokens, context, what needs a person). No Textual here."""

from teamtui.protocol.claude.transcripts.locate import TranscriptFinder, TranscriptSource, project_slug
from teamtui.protocol.claude.transcripts.needs import (
    NeedsYou,
    notices_from_inbox,
    open_requests,
    silent_teammates,
    stuck_teammates,
)
from teamtui.protocol.claude.transcripts.reader import DEFAULT_WINDOW, TranscriptReader, TranscriptUpdate
from teamtui.protocol.claude.transcripts.render import EntryKind, Notice, Renderer, TranscriptEntry, tool_label
from teamtui.protocol.claude.transcripts.stats import CONTEXT_WINDOWS, Activity, Tokens, TranscriptStats, context_window
from teamtui.protocol.claude.transcripts.team import TeamTranscripts

__all__ = [
    "Activity",
    "CONTEXT_WINDOWS",
    "DEFAULT_WINDOW",
    "EntryKind",
    "NeedsYou",
    "Notice",
    "Renderer",
    "TeamTranscripts",
    "Tokens",
    "TranscriptEntry",
    "TranscriptFinder",
    "TranscriptReader",
    "TranscriptSource",
    "TranscriptStats",
    "TranscriptUpdate",
    "context_window",
    "notices_from_inbox",
    "open_requests",
    "project_slug",
    "silent_teammates",
    "stuck_teammates",
    "tool_label",
]
