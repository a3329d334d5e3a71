"""Finding workflow runs under a Claude Code config dir (`~/.claude`, or $CLAUDE_CONFIG_DIR).

A run lives in its lead's session folder: `projects/<slug>/<sessionId>/subagents/workflows/<runId>/`
holds its journal, and `projects/<slug>/<sessionId>/workflows/<runId>.json` its record once it
ended. The scan is bounded and never recursive: one `scandir` of `projects/`, one of each project
folder, and one of each session folder's `subagents/workflows/` (most sessions have none).
Symbolic links are not followed, and only plain ids are taken as folder names.

Recent runs only: one that ended (its record written) within the window, one still going whose
journal or folder changed within it, or whose lead is known to be alive.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.workflow.names import RUN_ID, SESSION_ID, run_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# How far back a run is "recent" when nobody says (config.toml's fleet_keep_hours does for the fleet).
RECENT_HOURS = 24.0
# A run opened by name is looked for at most this once per config dir and id (then remembered).
_located: dict[tuple[str, str], Path] = {}


@dataclass(frozen=True, slots=True)
class FoundRun:
    """One workflow run found under a config dir."""

    root: Path  # the config dir
    run_id: str
    run_dir: Path  # projects/<slug>/<sessionId>/subagents/workflows/<runId>
    name: str  # the team name teamtui gives it: `<meta.name>-<runId>`
    ended: bool  # its record is written (completed, failed or killed)
    changed_at: float  # when its journal, folder or record last changed

    @property
    def session_dir(self) -> Path:
        return self.run_dir.parent.parent.parent


def _scan(path: Path | str) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _mtime(path: Path | str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except (OSError, ValueError):
        return None


def run_dirs(root: Path) -> Iterator[tuple[str, Path]]:
    """(run id, run folder) of every run under the config dir `root`, in no order."""
    for project in _scan(Path(root) / "projects"):
        if not _is_dir(project):
            continue
        for session in _scan(project.path):
            if not SESSION_ID.fullmatch(session.name) or not _is_dir(session):
                continue
            for run in _scan(os.path.join(session.path, "subagents", "workflows")):
                if RUN_ID.fullmatch(run.name) and _is_dir(run):
                    path = Path(run.path)
                    _located[(str(root), run.name)] = path
                    yield run.name, path


def locate_run(root: Path, run_id: str) -> Path | None:
    """The folder of run `run_id` under the config dir `root`, or None."""
    known = _located.get((str(root), run_id))
    if known is not None and known.is_dir():
        return known
    return next((path for rid, path in run_dirs(root) if rid == run_id), None)


def workflow_name(session_dir: Path, run_id: str) -> str:
    """The workflow's `meta.name`, from its script's file name (`<meta.name>-<runId>.js`), else
    from the run record; "" when neither says."""
    suffix = f"-{run_id}.js"
    for entry in _scan(session_dir / "workflows" / "scripts"):
        if entry.name.endswith(suffix) and len(entry.name) > len(suffix):
            return entry.name[: -len(suffix)]
    from teamtui.protocol.fsio import load_json_file

    rec = load_json_file(session_dir / "workflows" / f"{run_id}.json")
    name = rec.get("workflowName") if isinstance(rec, dict) else None
    return name if isinstance(name, str) else ""


def recent_runs(root: Path, *, since: float | None = None, now: float | None = None) -> list[FoundRun]:
    """The runs under the config dir `root` that ended at or after `since` (default: RECENT_HOURS
    before now) or are still going, newest first."""
    root = Path(root)
    now = time.time() if now is None else now
    since = now - RECENT_HOURS * 3600.0 if since is None else since
    out: list[FoundRun] = []
    for run_id, run_dir in run_dirs(root):
        session_dir = run_dir.parent.parent.parent
        ended_at = _mtime(session_dir / "workflows" / f"{run_id}.json")
        if ended_at is not None:
            if ended_at < since:
                continue
            ended, changed = True, ended_at
        else:
            journal = _mtime(run_dir / "journal.jsonl")
            if journal is None:
                continue  # not a run (yet): no journal, no record
            ended, changed = False, max(journal, _mtime(run_dir) or 0.0)
            if changed < since and not _lead_alive(root, session_dir.name):
                continue  # silent for the whole window, and no live lead says it goes on
        out.append(
            FoundRun(root, run_id, run_dir, run_name(workflow_name(session_dir, run_id), run_id), ended, changed)
        )
    return sorted(out, key=lambda r: r.changed_at, reverse=True)


def _lead_alive(root: Path, session_id: str) -> bool:
    from teamtui.protocol.workflow.lead import session_lead_state

    return session_lead_state(root, session_id) == "alive"
