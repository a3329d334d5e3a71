"""WorkflowRun: one run of Claude Code's `Workflow` tool shown as a team, and what it can do.

Read-only: teamtui writes nothing to a run (no inbox, no task, no shutdown: the script decides).
Its agents are its members, with their transcripts in the log panels; its `agent()` calls are the
board. Its status (running, completed, failed, killed, cut off) is `run_status`.
"""

from __future__ import annotations

import time

from teamtui.protocol.errors import ReadError, UnsupportedError
from teamtui.protocol.store import InboxRead, KeepsTranscripts, ScriptRun
from teamtui.protocol.workflow.layout import NO_MESSAGES
from teamtui.protocol.workflow.run import RunFiles
from teamtui.protocol.workflow.tasks import WorkflowTasks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from teamtui.protocol.changes import TeamLookups
    from teamtui.protocol.claude.leadproc import LeadState
    from teamtui.protocol.models import Message
    from teamtui.protocol.workflow.transcripts import RunFeed

# The lead's state is read from the session files and /proc: asked on every redraw, read at most this often.
_LEAD_TTL = 2.0


class WorkflowRun(WorkflowTasks, KeepsTranscripts, ScriptRun):
    """One workflow run of a Claude Code session."""

    writes_tasks = False
    has_teammate_logs = False
    appends_to_inboxes = False
    writes_shutdown_results = False
    shutdown_via_lead = False
    has_transcripts = True
    writes_members = False
    creates_teams = False
    camel_case_fields = True
    read_only_reason = NO_MESSAGES

    def __init__(self, root: Path, name: str, *, run_dir: Path | None = None):
        super().__init__(root, name, run_dir=run_dir)
        self._lead: tuple[float, LeadState] | None = None

    @classmethod
    def create_team(cls, root: Path, name: str, description: str = "") -> WorkflowRun:
        raise UnsupportedError(
            "creating a team is not supported for workflow runs (Claude Code's Workflow tool starts them)"
        )

    # ------------------------------------------------------------------ no messages
    def inbox_owners(self) -> list[str]:
        return []

    def peek(self, member: str) -> InboxRead:
        return InboxRead([], [])

    def send(
        self, to: str, content: str, sender: str, *, type: str = "message", extra: dict[str, Any] | None = None
    ) -> Message:
        raise UnsupportedError(NO_MESSAGES)

    def broadcast(self, content: str, sender: str) -> list[Message]:
        raise UnsupportedError(NO_MESSAGES)

    def members_for_broadcast(self, sender: str) -> list[str]:
        raise UnsupportedError(NO_MESSAGES)

    def send_shutdown_request(self, to: str, sender: str, reason: str, deadline_seconds: float) -> str:
        raise UnsupportedError(f"{NO_MESSAGES} (nor a shutdown request: its script ends its agents)")

    def send_shutdown_response(
        self,
        sender: str,
        request_id: str,
        *,
        approve: bool,
        status: str = "clean",
        pending_work: list[str] | None = None,
        artifacts_committed: bool = False,
        reason: str = "",
    ) -> None:
        raise UnsupportedError(NO_MESSAGES)

    # ------------------------------------------------------------------ the run and its lead
    def lead_state(self) -> str | None:
        """ "ended" once the run record is written (the run's script ran to its end, whatever the
        session does next); while it goes, the session's process as `sessions/<pid>.json` says,
        "unknown" without one (a `claude -p` lead writes none)."""
        files = self.read_run()
        if isinstance(files, RunFiles) and files.ended:
            return "ended"
        now = time.monotonic()
        if self._lead is None or now - self._lead[0] > _LEAD_TTL:
            from teamtui.protocol.workflow.lead import session_lead_state

            self._lead = (now, session_lead_state(self.root, self.session_id))
        return self._lead[1]

    def lead_pid(self) -> int | None:
        from teamtui.protocol.workflow.lead import session_lead

        lead = session_lead(self.root, self.session_id)
        return lead.pid if lead is not None else None

    def run_status(self) -> str:
        files = self.read_run()
        if isinstance(files, ReadError):
            return "gone"  # neither journal nor record (a journal that does not read is a problem of its config)
        return self.run_status_of(files) or "running"

    def transcript_feed(self, lookups: TeamLookups) -> RunFeed:
        from teamtui.protocol.workflow.transcripts import RunFeed

        return RunFeed(self.run_dir, lookups)
