"""A workflow run's steps as the board's tasks: one per `agent()` call.

- id: the step's number (the order the journal started the agents in), subject: its label,
  owner: its member, description: its prompt, result: what it returned (or its error);
- an agent running is in progress, one done is completed;
- an agent that failed, or that was still running when the run ended (killed, failed, cut off),
  is failed with the reason (`metadata.failed`): the board shows it failed, saying why;
- `metadata.workflow`: the agent's id, phase, state, model, tokens and tool calls.

A step's file is its agent's `.meta.json` (there or not yet): the path the board keys it by.
"""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.names import check_name
from teamtui.protocol.store import validation_reason
from teamtui.protocol.store.files import TaskReader
from teamtui.protocol.taskmeta import FAILED
from teamtui.protocol.wire import ValidationError
from teamtui.protocol.workflow.config import WorkflowConfig
from teamtui.protocol.workflow.run import RunFiles, Step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def step_failed(step: Step, run_status: str | None) -> str:
    """Why a step will never complete ('' for one done or still going)."""
    if step.state == "error":
        if step.skipped:
            return "skipped by the user"
        return step.error or "the agent failed"
    if step.state != "done" and run_status is not None:
        return f"the run {'failed' if run_status == 'failed' else 'was ' + run_status} before it ended"
    return ""


def step_task(step: Step, owner: str, run_status: str | None, path: Path) -> Task:
    """One step as a Task; `run_status` is the run's when it ended (else None)."""
    failed = step_failed(step, run_status)
    status = TaskStatus.COMPLETED if step.state == "done" else TaskStatus.PENDING if failed else TaskStatus.IN_PROGRESS
    meta: dict[str, Any] = {
        "workflow": {
            "agentId": step.agent_id,
            "phase": step.phase,
            "state": step.state,
            "index": step.index,
            "model": step.model,
            "tokens": step.tokens,
            "toolCalls": step.tool_calls,
        }
    }
    if failed:
        meta[FAILED] = failed
    data = {
        "id": str(step.number),
        "subject": step.label or f"agent {step.number}",
        "description": step.prompt,
        "status": status.value,
        "active_form": f"phase {step.phase}" if step.phase else "",
        "owner": owner,
        "metadata": meta,
        "created_at": step.queued_at or step.started_at,
        "claimed_at": step.started_at,
        "completed_at": step.ended_at if step.state == "done" else None,
        "result": step.error if step.state == "error" and step.error else step.result,
    }
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        raise ParseError(ReadError(path, validation_reason(exc))) from None
    task._raw = data
    return task


class ConfigTasks(TaskReader):
    """The steps, read from the files the config is (the journal and record): a change to the
    config re-reads them all."""

    def with_config(self, known: list[Path]) -> list[Path]:
        paths = self.store.task_paths()
        return [*paths, *sorted(set(known) - set(paths))]


class WorkflowTasks(WorkflowConfig):
    def task_reader(self) -> TaskReader:
        return ConfigTasks(self)

    def task_paths(self) -> list[Path]:
        files = self.read_run()
        return [self.meta_path(s.agent_id) for s in files.steps] if isinstance(files, RunFiles) else []

    def task_path(self, task_id: str) -> Path:
        files = self.read_run()
        steps = files.steps if isinstance(files, RunFiles) else []
        step = next((s for s in steps if str(s.number) == task_id), None)
        if step is not None:
            return self.meta_path(step.agent_id)
        # No such step: a path no step has (read_task says "file not found").
        return self.run_dir / f"step-{check_name(str(task_id), 'task id')}"

    def read_task(self, path: Path) -> Task | ReadError:
        files = self.read_run()
        if isinstance(files, ReadError):
            return ReadError(path, "file not found") if files.reason == "file not found" else files
        name = Path(path).name
        agent_id = (
            name[len("agent-") : -len(".meta.json")]
            if name.startswith("agent-") and name.endswith(".meta.json")
            else ""
        )
        step = files.step(agent_id) if agent_id and Path(path).parent == self.run_dir else None
        if step is None:
            return ReadError(path, "file not found")  # an agent no journal line names yet: its line will
        try:
            return step_task(step, self.member_names(files)[agent_id], self.run_status_of(files), path)
        except ParseError as exc:
            return exc.error

    def run_status_of(self, files: RunFiles) -> str | None:
        """The run's status once it ended (completed, failed, killed, cut off); None while it goes."""
        return files.status if files.status is not None else "cut off" if self.cut_off(files) else None
