"""What is kept beside a team's files: its members' transcripts, a run's own status, and the
journal of what a watcher saw."""

from __future__ import annotations

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

    def transcript_feed(self, lookups: TeamLookups) -> TranscriptFiles | None:
        """The members' transcripts, kept in step with what `lookups` say of the team (None: the layout has none)."""
        return None

    def run_status(self) -> str | None:
        """For a team that is one run of a script (a workflow run): "running", "completed", "failed",
        "killed" or "cut off" (its lead ended before the run did), "gone" when its files are; None
        for every other team."""
        return None

    def open_journal(self) -> Any:
        """Where a watcher records what it saw, for a layout whose files are pruned or deleted
        behind it (None: the files themselves are the record)."""
        return None
