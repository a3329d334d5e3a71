"""Where a native team's files live (`.teams/<team>/`, `.tasks/`) and what each changed path is."""

from __future__ import annotations

import re
from pathlib import Path

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.names import check_name
from teamtui.protocol.store import FileRef, TeamStore

# [0-9], not \d: \d matches non-ASCII digits, which int() folds into another task's id.
TASK_FILE = re.compile(r"task_([0-9]{1,18})\.json")
SIDECAR_FILE = re.compile(r"([0-9]{1,18})\.json")
INBOX_FILE = re.compile(r"(.+)_inbox\.jsonl")


def is_task_id(task_id: str) -> bool:
    """ASCII digits and short: int() refuses '²' and folds '03' into another task's id."""
    return task_id.isascii() and task_id.isdigit() and len(task_id) <= 18


class NativeLayout(TeamStore):
    """The paths of one native team, and which of them a changed path is."""

    layout = "native"
    default_lead = "lead"

    def __init__(self, root: Path, name: str):
        super().__init__(root, check_name(name, "team name"))

    @property
    def team_dir(self) -> Path:
        return self.root / ".teams" / self.name

    @property
    def tasks_dir(self) -> Path:
        return self.root / ".tasks"

    @property
    def sidecar_dir(self) -> Path:
        return self.tasks_dir / ".teamtui"

    @property
    def logs_dir(self) -> Path:
        return self.team_dir / "logs"

    @property
    def shutdown_dir(self) -> Path:
        return self.team_dir / "shutdown"

    def inbox_path(self, member: str) -> Path:
        return self.team_dir / f"{check_name(member, 'teammate name')}_inbox.jsonl"

    def inbox_lock_path(self, member: str) -> Path:
        return self.team_dir / f"{check_name(member, 'teammate name')}_inbox.lock"

    def log_paths(self, member: str) -> list[Path]:
        check_name(member, "teammate name")
        return [self.logs_dir / f"{member}.jsonl", self.logs_dir / f"{member}.log"]

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / f"task_{self._task_id(task_id)}.json"

    def sidecar_path(self, task_id: str) -> Path:
        return self.sidecar_dir / f"{self._task_id(task_id)}.json"

    def file_dirs(self) -> list[Path]:
        return [self.team_dir, self.tasks_dir, self.logs_dir, self.sidecar_dir]

    @staticmethod
    def _task_id(task_id: object) -> str:
        tid = str(task_id)
        if not is_task_id(tid):
            raise ProtocolError(f"task id {tid!r} is not a number")
        return str(int(tid))

    def classify(self, path: Path) -> FileRef | None:
        path = path if isinstance(path, Path) else Path(path)  # Path(a Path) parses every part again
        parent = path.parent
        name = path.name
        if parent == self.tasks_dir:
            m = TASK_FILE.fullmatch(name)
            return FileRef("task", str(int(m.group(1)))) if m else None
        if parent == self.sidecar_dir:
            m = SIDECAR_FILE.fullmatch(name)
            return FileRef("task_sidecar", str(int(m.group(1)))) if m else None
        if parent == self.team_dir:
            if name == "config.json":
                return FileRef("config")
            if name == "touching.json":
                return FileRef("touching")
            m = INBOX_FILE.fullmatch(name)
            return FileRef("inbox", m.group(1)) if m else None
        if parent == self.logs_dir and (name.endswith(".jsonl") or name.endswith(".log")):
            return FileRef("log", name.rsplit(".", 1)[0])
        if parent == self.shutdown_dir and name.endswith(".json"):
            return FileRef("shutdown", name[:-5])
        return None
