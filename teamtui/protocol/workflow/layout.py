"""Where a workflow run's files live (docs/formats.md, "Workflow runs"), and what a changed path is.

The root is the config dir (`~/.claude`); the run lives in its lead's session folder
`projects/<slug>/<sessionId>/`:

- `subagents/workflows/<runId>/`: the journal, and each agent's `.meta.json` and transcript;
- `workflows/<runId>.json`: the run record, written once when the run ends;
- `workflows/scripts/<meta.name>-<runId>.js`: the script.

A run's name is `<meta.name>-<runId>` (names.py): the run is found again from its id. The
journal stands for the team's config (members and steps are read from it, the record and the
metas), so a change to it or to the record re-reads them all (`tasks.py ConfigTasks`); a meta
file is its agent's step.
"""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.errors import NotFoundError, UnsupportedError
from teamtui.protocol.names import check_name
from teamtui.protocol.store import FileRef, TeamStore
from teamtui.protocol.workflow.names import AGENT_ID, run_id_of
from teamtui.protocol.workflow.run import RunFiles, RunReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.errors import ReadError

NO_MESSAGES = "a workflow run takes no messages"


class WorkflowLayout(TeamStore):
    """The paths of one workflow run, and which of them a changed path is."""

    layout = "workflow"
    default_lead = "lead"

    def __init__(self, root: Path, name: str, *, run_dir: Path | None = None):
        super().__init__(root, check_name(name, "workflow run name"))
        run_id = run_id_of(name)
        if run_id is None:
            raise NotFoundError(f"{name!r} names no workflow run (a run's name ends with -wf_<id>)")
        self.run_id = run_id
        if run_dir is None:
            from teamtui.protocol.workflow.discover import locate_run

            run_dir = locate_run(self.root, run_id)
        # A run not found: its files are looked for where none can be (the team reads as gone).
        self.run_dir = (
            Path(run_dir)
            if run_dir is not None
            else self.root / "projects" / "-" / "-" / "subagents" / "workflows" / run_id
        )
        self._reader: RunReader | None = None
        self._names: tuple[RunFiles, dict[str, str]] | None = None  # the member names of the last read (config.py)

    # ------------------------------------------------------------------ paths
    @property
    def session_dir(self) -> Path:
        """The lead's session folder, `projects/<slug>/<sessionId>/`."""
        return self.run_dir.parent.parent.parent

    @property
    def session_id(self) -> str:
        return self.session_dir.name

    @property
    def workflows_dir(self) -> Path:
        return self.session_dir / "workflows"

    @property
    def record_path(self) -> Path:
        return self.workflows_dir / f"{self.run_id}.json"

    @property
    def journal_path(self) -> Path:
        return self.run_dir / "journal.jsonl"

    @property
    def team_dir(self) -> Path:
        return self.run_dir

    @property
    def tasks_dir(self) -> Path:
        return self.run_dir

    @property
    def config_path(self) -> Path:
        return self.journal_path

    def meta_path(self, agent_id: str) -> Path:
        return self.run_dir / f"agent-{agent_id}.meta.json"

    def inbox_path(self, member: str) -> Path:
        raise UnsupportedError(NO_MESSAGES)

    def log_paths(self, member: str) -> list[Path]:
        return []  # an agent's log is its transcript (has_transcripts)

    def file_dirs(self) -> list[Path]:
        return [self.run_dir, self.workflows_dir]

    def watch_dirs(self) -> list[Path]:
        # The run's folder (journal, metas, transcripts) and the session's workflows/ (the record appears at the end).
        return [self.run_dir, self.workflows_dir]

    def classify(self, path: Path) -> FileRef | None:
        path = path if isinstance(path, Path) else Path(path)  # Path(a Path) parses every part again
        name = path.name
        if path.parent == self.run_dir:
            if name == "journal.jsonl":
                return FileRef("config")
            if name.startswith("agent-") and name.endswith(".meta.json"):
                agent_id = name[len("agent-") : -len(".meta.json")]
                return FileRef("task", agent_id) if AGENT_ID.fullmatch(agent_id) else None
            return None
        if path.parent == self.workflows_dir and name == f"{self.run_id}.json":
            return FileRef("config")
        return None

    # ------------------------------------------------------------------ the files, read
    def read_run(self) -> RunFiles | ReadError:
        """What the run's files say now (read again only when one changed)."""
        if self._reader is None:
            self._reader = RunReader(self.run_id, self.run_dir, self.record_path, self.workflows_dir / "scripts")
        return self._reader.read()
