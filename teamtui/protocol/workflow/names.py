"""A workflow run's ids and the name teamtui gives the run. Cheap to import: `open_team` asks
`run_id_of` of every name it opens, and the CLI's start-up must not pay for the rest."""

from __future__ import annotations

import re

# Workflow's own pattern for `resumeFromRunId` is `^wf_[a-z0-9-]{6,}$`; bounded here so that a
# run's name stays a safe file name (64 characters).
RUN_ID = re.compile(r"wf_[a-z0-9-]{6,40}")
# `a` and 16 hex digits as Claude Code writes them; any plain id is accepted, never a path.
AGENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 64


def safe_part(text: str, limit: int = MAX_NAME) -> str:
    """`text` as a safe name part: runs of other characters become `-`, and it starts and ends
    with a letter or digit ("" when nothing of it is left)."""
    return _UNSAFE.sub("-", text)[: limit * 2].strip("-._")[:limit].rstrip("-._")


def run_name(workflow: str, run_id: str) -> str:
    """`probe-flow-wf_4e0e88a0-7e7`: the workflow's name (`meta.name`) and the run's id, as Claude
    Code names the run's script (`workflows/scripts/<meta.name>-<runId>.js`)."""
    return f"{safe_part(workflow, MAX_NAME - len(run_id) - 1) or 'workflow'}-{run_id}"


def run_id_of(name: str) -> str | None:
    """The run id a run's name ends with; None when `name` names no run. The id's own characters
    hold no `_`, so the last `-wf_` starts it whatever the workflow's name holds."""
    at = name.rfind("-wf_")
    if at <= 0:
        return None
    run_id = name[at + 1 :]
    return run_id if RUN_ID.fullmatch(run_id) else None
