"""Workflow runs (Claude Code's `Workflow` tool) as teams: `projects/<slug>/<sessionId>/` under the
config dir (docs/formats.md, "Workflow runs").

names: a run's id and name (cheap: `open_team` asks it of every name); layout: where a run's files
are and what a changed path is; run: the journal, the record and the metas read into one RunFiles;
config: the members (one per agent); tasks: the steps (one per `agent()` call); lead: the session
that runs the script; transcripts: each agent's transcript, with Claude Code's readers; team:
WorkflowRun, the parts joined; discover: the recent runs under a config dir.

The names below are imported on first use: `names` alone costs nothing more.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False

_EXPORTS = {
    "WorkflowRun": "team",
    "FoundRun": "discover",
    "locate_run": "discover",
    "recent_runs": "discover",
    "run_id_of": "names",
    "run_name": "names",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from teamtui.protocol.workflow.discover import (
        FoundRun as FoundRun,
        locate_run as locate_run,
        recent_runs as recent_runs,
    )
    from teamtui.protocol.workflow.names import run_id_of as run_id_of, run_name as run_name
    from teamtui.protocol.workflow.team import WorkflowRun as WorkflowRun
