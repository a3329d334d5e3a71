"""What is kept beside a team's files: its members' transcripts, a run's own status, and the
journal of what a watcher saw; each a capability a layout has or not (checked where used:
`isinstance(store, KeepsTranscripts)`; ABCs, as lead.py's)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from teamtui.protocol.store.common import StoreBase

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from teamtui.protocol.changes import TeamLookups, TranscriptFiles


class TeamRecords(StoreBase):
    """The records a layout keeps about its team beyond the files TeamFiles reads."""

    # Each member's transcript lies under the root (Claude Code's `projects/<slug>/`): protocol/claude/transcripts.
    has_transcripts: ClassVar[bool] = False
    # Its lead's and in-process teammates' permission requests reach Claude Code's PermissionRequest
    # hook (protocol/hooks): `teamtui hooks install` lets a room answer them.
    asks_through_hooks: ClassVar[bool] = False


class KeepsTranscripts(ABC):
    """A layout whose members' transcripts lie beside its files (Claude Code's, a workflow run's)."""

    @abstractmethod
    def transcript_feed(self, lookups: TeamLookups) -> TranscriptFiles:
        """The members' transcripts, kept in step with what `lookups` say of the team."""


class ScriptRun(ABC):
    """A team that is one run of a script (a workflow run), with a status of its own."""

    @abstractmethod
    def run_status(self) -> str:
        """ "running", "completed", "failed", "killed" or "cut off" (its lead ended before the run
        did), "gone" when its files are."""


class KeepsJournal(ABC):
    """A layout whose files are pruned or deleted behind a watcher (Claude Code's): a journal keeps what it saw."""

    @abstractmethod
    def open_journal(self) -> Any:
        """Where a watcher records what it saw."""
