"""A workflow run as a team: one member per agent (its label, made a safe name), led by the session
that runs the script.

A member works while its agent runs; it is idle once its agent is done, and stopped (shut down)
when its agent failed or the run ended under it (killed, failed, cut off). Each member's raw
dict (`Member.raw`, `TeamConfig.raw["members"]`) holds its agent id, which names its transcript.
"""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.models import Member, MemberStatus, TeamConfig
from teamtui.protocol.store import RecordsLead, validation_reason
from teamtui.protocol.wire import ValidationError
from teamtui.protocol.workflow.layout import WorkflowLayout
from teamtui.protocol.workflow.names import safe_part
from teamtui.protocol.workflow.run import RunFiles, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

AGENT_TYPE = "workflow-subagent"


def member_names(steps: list[Step]) -> dict[str, str]:
    """agent id -> member name: its label as a safe name (`agent-<n>` without one), told apart
    by `-2`, `-3` when two agents share a label. Steps keep their order, so names do too."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for step in steps:
        base = safe_part(step.label, 40) or f"agent-{step.number}"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        names[step.agent_id] = name
    return names


def member_status(step: Step, run_ended: bool) -> MemberStatus:
    if step.state == "done":
        return MemberStatus.IDLE
    if step.state == "error" or run_ended:
        return MemberStatus.SHUTDOWN  # failed, or stopped with its run
    return MemberStatus.WORKING


class WorkflowConfig(WorkflowLayout, RecordsLead):
    def load_config(self) -> TeamConfig | ReadError:
        files = self.read_run()
        if isinstance(files, ReadError):
            return files
        try:
            return self.decode_config(files, self.config_path)
        except ParseError as exc:
            return exc.error

    def decode_config(self, data: Any, path: Path) -> TeamConfig:
        """The team a RunFiles (`read_run`) describes."""
        if not isinstance(data, RunFiles):
            raise ParseError(ReadError(path, f"expected a workflow run, got {type(data).__name__}"))
        ended = data.ended or self.cut_off(data)
        names = self.member_names(data)
        members = []
        raw_members = []
        for step in data.steps:
            raw = {
                "name": names[step.agent_id],
                "agentId": step.agent_id,
                "agentType": AGENT_TYPE,
                "label": step.label,
                "phase": step.phase,
                "state": step.state,
                "model": step.model,
                "cwd": step.cwd,
            }
            try:
                m = Member.model_validate(
                    {
                        "name": names[step.agent_id],
                        "agent_id": step.agent_id,
                        "agent_type": AGENT_TYPE,
                        "status": member_status(step, ended),
                        "model": step.model,
                        "backend_type": "in-process",  # an agent of the lead's own process
                        "joined_at": step.started_at or step.queued_at,
                        "last_seen": step.ended_at or step.last_progress_at,
                    }
                )
            except ValidationError as exc:
                raise ParseError(ReadError(path, validation_reason(exc))) from None
            m._raw = raw
            members.append(m)
            raw_members.append(raw)
        cfg = TeamConfig(
            name=self.name, description=data.description, created_at=data.started_at, lead=self.default_lead
        )
        cfg.members = members
        cfg._raw = {
            "name": self.name,
            "runId": self.run_id,
            "workflowName": data.workflow,
            "description": data.description,
            "status": data.status,
            "members": raw_members,
        }
        return cfg

    def member_names(self, files: RunFiles) -> dict[str, str]:
        """`member_names` of the run's steps, worked out once per read of its files."""
        known = self._names
        if known is None or known[0] is not files:
            known = self._names = (files, member_names(files.steps))
        return known[1]

    def config_problems(self, cfg: TeamConfig) -> list[ReadError]:
        """What did not read in the journal and the record (names are made safe and unique here)."""
        files = self.read_run()
        return list(files.problems) if isinstance(files, RunFiles) else []

    def cut_off(self, files: RunFiles) -> bool:
        """No record, and the lead that runs the script has ended: the run will never end."""
        return not files.ended and self.lead_state() == "ended"
