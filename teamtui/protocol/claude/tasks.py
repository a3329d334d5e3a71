"""A Claude Code task list: `tasks/<list>/<id>.json`, written by Claude Code's lead and teammates."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.claude.layout import ClaudeLayout
from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.fsio import load_json_file
from teamtui.protocol.models import Task
from teamtui.protocol.names import claude_sanitize
from teamtui.protocol.native.tasks import decode_task_dict


class ClaudeTasks(ClaudeLayout):
    def highwatermark(self) -> int | None:
        """The largest task id ever used in this list (Claude Code writes it, without a newline)."""
        try:
            text = (self.tasks_dir / ".highwatermark").read_text(encoding="ascii")[:32].strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isdigit() else None

    def task_paths(self) -> list[Path]:
        try:
            return [p for p in self.tasks_dir.iterdir() if p.name.endswith(".json") and not p.name.startswith(".")]
        except OSError:
            return []

    def read_task(self, path: Path) -> Task | ReadError:
        data = load_json_file(path)
        if isinstance(data, ReadError):
            return data
        try:
            task = decode_task_dict(data, path)
        except ParseError as exc:
            return exc.error
        if claude_sanitize(task.id) != path.stem:
            # Claude Code writes <id>.json: another id here would shadow that task.
            return ReadError(path, f"id {task.id[:40]!r} does not match the file name")
        return task
