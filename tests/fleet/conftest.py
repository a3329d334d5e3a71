"""A machine with a fleet on it: a private HOME with Claude Code's folder holding two session
teams (the real 2.1.328 files), a native team under the current directory, another under a root
of config.toml, and teamtui's state folder; real processes stand in for the leads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from teamtui.protocol import processes
from tests.conftest import copy_fixture as copy_tree, set_lead

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
CLAUDE_EXAMPLES = EXAMPLES / "claude-2.1.328"
# The two session teams: one whose lead runs (a real process), one whose lead has ended.
LIVE_TEAM = "session-421dba11"  # tmux-running: alice and bob in panes
DEAD_TEAM = "session-8dd2dc96"  # inprocess-running: two in-process teammates, two tasks
NATIVE_TEAM = "refactor-auth"
OTHER_TEAM = "api-team"  # under config.toml's root ~/src/api


@dataclass
class Machine:
    home: Path
    claude: Path  # $CLAUDE_CONFIG_DIR
    project: Path  # the current directory: a native team
    other: Path  # a native root named in config.toml as ~/...
    state: Path  # $XDG_STATE_HOME/teamtui's parent: ~/.local/state
    lead: subprocess.Popen  # the live Claude Code team's "lead"

    @property
    def registry(self) -> Path:
        return self.state / "teamtui" / "running"

    @property
    def journal(self) -> Path:
        return self.state / "teamtui" / "journal"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "XDG_STATE_HOME": str(self.state),
        }

    def write_config(self, text: str) -> None:
        path = self.home / ".config" / "teamtui" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def date_tree(folder: Path, when: float) -> None:
    """Every file of a team last written at `when`: its last activity, for the order."""
    for p in [folder, *folder.rglob("*")]:
        os.utime(p, (when, when))


def sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])


def dead_pid() -> tuple[int, str]:
    """A pid whose process has ended, and its start token taken while it ran."""
    proc = sleeper()
    start = processes.start_of(proc.pid)
    proc.kill()
    proc.wait()
    return proc.pid, start


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Machine]:
    home = tmp_path / "home"
    claude = tmp_path / "claude"
    copy_tree(CLAUDE_EXAMPLES / "tmux-running", claude)
    copy_tree(CLAUDE_EXAMPLES / "inprocess-running", claude)
    project = tmp_path / "project"
    copy_tree(EXAMPLES / "native", project)
    other = home / "src" / "api"
    copy_tree(EXAMPLES / "native", other)
    shutil.move(other / ".teams" / NATIVE_TEAM, other / ".teams" / OTHER_TEAM)
    config = other / ".teams" / OTHER_TEAM / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "name": OTHER_TEAM}))
    state = home / ".local" / "state"
    lead = sleeper()
    set_lead(claude, LIVE_TEAM, lead.pid, processes.start_of(lead.pid))
    set_lead(claude, DEAD_TEAM, *dead_pid())
    m = Machine(home, claude, project, other, state, lead)
    m.write_config('roots = ["~/src/api"]\n')
    for key, value in m.env().items():
        if key in ("HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "XDG_STATE_HOME"):
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    try:
        yield m
    finally:
        lead.kill()
        lead.wait()
