"""TeamStore, one team's files in one layout, split by role as the callers use it: what is read
(files.py TeamFiles), what is written (writing.py TeamWriter), the lead's process and its panes
(lead.py LeadProcess), and the transcripts and journal kept beside the files (records.py
TeamRecords). A layout's store (native, claude, workflow) is all four: TeamStore.

The dashboard, the CLI and the runtime only talk to a TeamStore, never to paths.
"""

from __future__ import annotations

from teamtui.protocol.store.files import FileRef, InboxRead, TeamFiles
from teamtui.protocol.store.lead import LeadProcess, LeadsInTmux, RecordsLead, RunsLead
from teamtui.protocol.store.records import KeepsJournal, KeepsTranscripts, ScriptRun, TeamRecords
from teamtui.protocol.store.writing import TeamWriter, broadcast_recipients, refuse_stranger, validation_reason
from teamtui.protocol.traits import TeamTraits


class TeamStore(TeamWriter, LeadProcess, TeamRecords):
    """One team's files in one layout: every role. A layout declares what it can do in the class
    flags of each role; callers ask a flag, never the store's class."""

    def traits(self) -> TeamTraits:
        """What the screens need to know of this team's kind (the model keeps them; a stream sends them)."""
        return TeamTraits(
            layout=self.layout,
            appends_to_inboxes=self.appends_to_inboxes,
            shutdown_via_lead=self.shutdown_via_lead,
            has_transcripts=self.has_transcripts,
            default_lead=self.default_lead,
            where=str(self.root),
        )


__all__ = [
    "FileRef",
    "InboxRead",
    "KeepsJournal",
    "KeepsTranscripts",
    "LeadProcess",
    "LeadsInTmux",
    "RecordsLead",
    "RunsLead",
    "ScriptRun",
    "TeamFiles",
    "TeamRecords",
    "TeamStore",
    "TeamWriter",
    "broadcast_recipients",
    "refuse_stranger",
    "validation_reason",
]
