"""Helpers for the tmux tests (the fixture itself is in conftest.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from teamtui.tmux.panes import TmuxPanes
from teamtui.tmux.server import Tmux
from tests.conftest import poll

REPO = Path(__file__).resolve().parents[2]
# New-window/split-window flags: detached, printing "pane id<TAB>pane pid", this checkout importable.
NEW_PANE = ("-d", "-P", "-F", "#{pane_id}\t#{pane_pid}", "-e", f"PYTHONPATH={REPO}")


@dataclass
class TmuxServer:
    socket: str
    tmux: Tmux
    dashboard: str  # the first pane: it plays the dashboard's pane

    def run(self, *args: str) -> list[str]:
        return self.tmux.run(*args)

    def screen(self, pane: str) -> str:
        """What `pane` shows now ("" once it is gone)."""
        return "\n".join(self.tmux.try_run("capture-pane", "-p", "-t", pane) or [])

    def env(self, pane: str | None = None) -> dict[str, str]:
        """The $TMUX / $TMUX_PANE a process inside `pane` would see."""
        pid = self.run("display-message", "-p", "#{pid}")[0]
        return {"TMUX": f"{self.socket},{pid},0", "TMUX_PANE": pane or self.dashboard}

    def start_teamtui(self, *args: str, prefix: tuple[str, ...] = ()) -> tuple[str, int]:
        """Run `[PREFIX] python -m teamtui ARGS` in a new window beside the dashboard's; its pane
        id and the pane's pid."""
        window = self.tmux.pane_info(self.dashboard, "#{window_id}") or ""
        out = self.run(
            "new-window",
            *NEW_PANE,
            "-e",
            f"HOME={os.environ['HOME']}",
            "-e",
            f"XDG_CONFIG_HOME={os.environ['XDG_CONFIG_HOME']}",
            "-a",
            "-t",
            window,
            *prefix,
            sys.executable,
            "-m",
            "teamtui",
            *args,
        )
        pane, pid = out[0].split("\t")
        return pane, int(pid)

    def marked(self, team: str | None = None) -> dict[str, dict[str, str]]:
        """Panes carrying a teamtui owner mark, by pane id."""
        rows = self.tmux.list_panes(
            ["pane_id", "pane_pid", "pane_title", "window_id", "@teamtui-owner", "@teamtui-team", "@teamtui-teammate"]
        )
        return {r["pane_id"]: r for r in rows if r["@teamtui-owner"] and (team is None or r["@teamtui-team"] == team)}


def pane_of(panes: TmuxPanes, name: str) -> str | None:
    """The pane `panes` shows teammate `name` in (one it opened, or one it adopted), or None."""
    with panes._lock:
        pane = panes._panes.get(name)
        return pane.pane_id if pane else panes._adopted.get(name)


def wait_for(check: Callable[[], object], what: str, timeout: float = 10.0) -> object:
    """Wait until `check()` is truthy; fail saying `what` did not happen."""
    return poll(check, timeout, 0.05, lambda: pytest.fail.Exception(f"timed out waiting for: {what}"))
