"""The command lines panes run, and the pane specs the dashboard builds from a TeamState."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import teamtui
from teamtui.protocol.colors import color_name
from teamtui.protocol.model import TeamModel
from teamtui.protocol.models import MemberStatus
from teamtui.tmux.api import PaneSpec

# The directory holding the teamtui package: a pane's cwd may be anywhere, and teamtui
# may be run from a checkout rather than installed.
_PACKAGE_PARENT = str(Path(teamtui.__file__).resolve().parent.parent)


def python_module_command(module: str, *args: str) -> str:
    """A shell command line running `python -m module args` with this interpreter and package."""
    path = os.pathsep.join(p for p in (_PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")) if p)
    return shlex.join(["env", f"PYTHONPATH={path}", sys.executable, "-m", module, *args])


# A follow pane is a convenience: it yields the CPU to the dashboard and the teammates.
FOLLOW_NICENESS = 10


def follow_command(name: str, root: Path, team: str, layout: str | None = None) -> str:
    """`teamtui follow NAME` for one team, as a pane's command, at a lower CPU priority.

    Each tmux pane is a session of its own, and with Linux's autogroup scheduling a session
    competes as a whole whatever its processes' nice: so the pane's session is niced too
    (/proc/self/autogroup, where it exists; a failed write is silent), then the process."""
    args = ["follow", name, "--root", str(Path(root).resolve()), "--team", team]
    if layout:
        args += ["--layout", layout]
    nice = str(FOLLOW_NICENESS)
    return (
        f"echo {nice} 2>/dev/null >/proc/self/autogroup; exec "
        + shlex.join(["nice", "-n", nice])
        + " "
        + python_module_command("teamtui", *args)
    )


def pane_specs(state: TeamModel, command_for: Callable[[str], str], now: float | None = None) -> list[PaneSpec]:
    """One spec per live teammate (not the lead, not departed, not shut down), in config order."""
    return [
        PaneSpec(
            view.name,
            color_name(view.color, view.name),
            command_for(view.name),
            view.member.tmux_pane_id if view.member is not None else "",
        )
        for view in state.member_views(now)
        if view.name != state.lead and not view.departed and view.status != MemberStatus.SHUTDOWN
    ]
