"""Where a Claude Code team's files live (`teams/<team>/`, `tasks/<list>/` under ~/.claude or
$CLAUDE_CONFIG_DIR), what each changed path is, and how Claude Code writes times."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from teamtui.protocol.claude.leadproc import LeadProcess, parse_lead_process, task_list_id
from teamtui.protocol.names import check_name, claude_sanitize
from teamtui.protocol.store import FileRef, TeamStore

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any


def default_claude_root() -> Path:
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else Path.home() / ".claude"


def iso_now() -> str:
    """ISO-8601 UTC with milliseconds and 'Z', as Claude Code writes timestamps."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(value: Any) -> float:
    """Claude Code times: epoch milliseconds (numbers) or ISO-8601 strings; returns epoch seconds."""
    if isinstance(value, bool) or value is None:
        return 0.0
    if isinstance(value, (int, float)):
        try:
            return value / 1000.0 if value > 1e11 else float(value)
        except OverflowError:  # an int too large for a float (e.g. 10**400)
            return 0.0
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return 0.0
    return 0.0


class ClaudeLayout(TeamStore):
    """The paths of one Claude Code team, and which of them a changed path is."""

    layout = "claude"
    default_lead = "team-lead"

    def __init__(self, root: Path, name: str, *, task_list: str | None = None):
        super().__init__(root, check_name(name, "team name"))
        self.dir_name = claude_sanitize(name)
        # The lead's process as config.json last said (2.1.178+), and the task list it routes to.
        self.lead_process: LeadProcess | None = None
        self._task_list = claude_sanitize(check_name(task_list, "task list id")) if task_list else None
        self._task_list_fixed = task_list is not None
        self._task_list_pid: int | None = None

    @property
    def task_list(self) -> str:
        """The task list's folder name: $CLAUDE_CODE_TASK_LIST_ID of the live lead when it set one, else the team."""
        return self._task_list or self.dir_name

    def _learn_lead(self, raw: Any) -> None:
        lead = parse_lead_process(raw)
        self.lead_process = lead
        if self._task_list_fixed or lead is None or lead.pid == self._task_list_pid:
            return
        # Read once per lead process: its environment does not change.
        self._task_list_pid = lead.pid
        found = task_list_id(lead)
        if found:
            self._task_list = claude_sanitize(found[:64]) or None

    @property
    def team_dir(self) -> Path:
        base = self.root / "teams"
        d = base / self.dir_name
        # Some versions lower-case the folder: look both up.
        if not d.exists() and (base / self.dir_name.lower()).exists():
            return base / self.dir_name.lower()
        return d

    @property
    def tasks_dir(self) -> Path:
        base = self.root / "tasks"
        name = self.task_list
        d = base / name
        if not d.exists() and (base / name.lower()).exists():
            return base / name.lower()
        return d

    @property
    def inbox_dir(self) -> Path:
        return self.team_dir / "inboxes"

    def inbox_path(self, member: str) -> Path:
        return self.inbox_dir / f"{claude_sanitize(check_name(member, 'teammate name'))}.json"

    def log_paths(self, member: str) -> list[Path]:
        # Claude Code keeps no per-teammate log in the team folder.
        return []

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / f"{claude_sanitize(check_name(str(task_id), 'task id'))}.json"

    def watch_dirs(self) -> list[Path]:
        return [self.team_dir, self.tasks_dir]

    def classify(self, path: Path) -> FileRef | None:
        path = path if isinstance(path, Path) else Path(path)  # Path(a Path) parses every part again
        if path.parent == self.team_dir and path.name == "config.json":
            return FileRef("config")
        if path.parent == self.inbox_dir and path.name.endswith(".json"):
            return FileRef("inbox", path.name[:-5])
        if path.parent == self.tasks_dir and path.name.endswith(".json") and not path.name.startswith("."):
            return FileRef("task", path.name[:-5])
        return None
