"""NativeTeam: the native layout's store, its four parts joined, and what it can do."""

from __future__ import annotations

import json
import time
from pathlib import Path

from teamtui.protocol.fsio import append_bytes, ensure_dir, ensure_inside
from teamtui.protocol.native.config import NativeConfig
from teamtui.protocol.native.inbox import NativeInbox
from teamtui.protocol.native.tasks import NativeTasks
from teamtui.protocol.store import RunsLead


class NativeTeam(NativeConfig, NativeInbox, NativeTasks, RunsLead):
    """One team in the native layout (learn-claude-code's protocol)."""

    writes_tasks = True
    has_teammate_logs = True
    appends_to_inboxes = True
    writes_shutdown_results = True
    writes_members = True
    creates_teams = True
    camel_case_fields = False

    @classmethod
    def create_team(cls, root: Path, name: str, description: str = "") -> NativeTeam:
        store = cls(root, name)
        store.create(description=description)
        return store

    def may_write_as_lead(self) -> bool:
        """The person at the terminal is the lead unless a teamtui lead runs the team (see leadpid)."""
        from teamtui.protocol.native.leadpid import speaks_for_lead

        return speaks_for_lead(self)

    def running_lead(self) -> int | None:
        from teamtui.protocol.native.leadpid import running_lead

        return running_lead(self)

    def ask_running_lead(self, sender: str, reason: str, deadline: float, teammates: list[str]) -> str:
        from teamtui.protocol.native.leadpid import ask_lead_to_shut_down

        return ask_lead_to_shut_down(self, sender, reason, deadline, teammates)

    def log_files(self) -> list[Path]:
        try:
            return sorted(p for p in self.logs_dir.iterdir() if p.suffix in (".jsonl", ".log"))
        except OSError:
            return []

    def log(self, member: str, text: str, level: str = "info") -> None:
        path = ensure_inside(self.log_paths(member)[0], self.root)
        ensure_dir(self.logs_dir, self.root, self.team_dir)
        line = json.dumps({"ts": time.time(), "level": level, "text": text}, ensure_ascii=False) + "\n"
        append_bytes(path, line.encode("utf-8"))
