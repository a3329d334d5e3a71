"""A workflow run's transcripts: each agent's `subagents/workflows/<runId>/agent-<agentId>.jsonl`,
read with Claude Code's transcript readers (protocol/claude/transcripts) and fed to the log panels
as a session team's are.

Only the place differs: the agent id of each member (in the config's raw members) names its
transcript in the run's folder, so `RunFinder` replaces the session team's finder, and `RunFeed`
builds the team's transcripts with it. The lead's own transcript (the session's) is not read:
it is the session's, not the run's.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from teamtui.protocol.claude.transcripts.feed import TranscriptFeed
from teamtui.protocol.claude.transcripts.locate import TranscriptFinder, TranscriptSource
from teamtui.protocol.claude.transcripts.reader import DEFAULT_WINDOW
from teamtui.protocol.claude.transcripts.team import TeamTranscripts
from teamtui.protocol.workflow.names import AGENT_ID


class RunFinder(TranscriptFinder):
    """Each member's transcript in the run's folder, by the agent id its config entry holds."""

    def __init__(self, run_dir: Path, config: Mapping[str, object]):
        self.run_dir = Path(run_dir)
        self.agents: dict[str, tuple[str, str]] = {}
        super().__init__(self.run_dir, config)

    def update_config(self, config: Mapping[str, Any]) -> None:
        """member name -> (agent id, model), from the config's raw members."""
        self.agents = {}
        for m in config.get("members") or []:
            if not isinstance(m, dict):
                continue
            name, agent_id, model = m.get("name"), m.get("agentId"), m.get("model")
            if isinstance(name, str) and isinstance(agent_id, str) and AGENT_ID.fullmatch(agent_id):
                self.agents[name] = (agent_id, model if isinstance(model, str) else "")

    @property
    def watch_dirs(self) -> list[Path]:
        return [self.run_dir]

    def concerns(self, path: Path) -> bool:
        path = Path(path)
        return path.parent == self.run_dir and path.name.startswith("agent-") and path.name.endswith(".jsonl")

    def resolve(self) -> dict[str, TranscriptSource]:
        found: dict[str, TranscriptSource] = {}
        for name, (agent_id, model) in self.agents.items():
            path = self.run_dir / f"agent-{agent_id}.jsonl"
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)  # follows a link: a transcript must be a file
            except OSError:
                continue
            if regular:
                found[name] = TranscriptSource(name, path, "in-process", model or None)
        return found


class RunTranscripts(TeamTranscripts):
    """The run's transcripts, one reader per agent, kept current from watch events."""

    def __init__(self, run_dir: Path, config: Mapping[str, object], *, window: int = DEFAULT_WINDOW):
        super().__init__(run_dir, config, window=window)
        self.finder = RunFinder(run_dir, config)


class RunFeed(TranscriptFeed):
    """TranscriptFeed over a run's folder (its `root`: the store's `run_dir`) instead of the project folders."""

    def watch_dirs(self) -> list[Path]:
        return [self.root]

    def _transcripts(self) -> TeamTranscripts:
        return RunTranscripts(self.root, self._config(), window=min(self.lookups.log_limit, DEFAULT_WINDOW))
