"""A teammate's pane closed from outside teamtui (kill-pane by hand, the tmux server killed, the
terminal closed): the teammate ends with it. The pane runs `teamtui.tmux.runner`, the session
leader of the pane's terminal, and the kernel sends the hangup to the session leader only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from teamtui.protocol.processes import running
from tests.tmux.tmux_support import NEW_PANE, TmuxServer, wait_for

pytestmark = pytest.mark.tmux


def _child_of(pid: int) -> int | None:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            return int(stat.parent.name)
    return None


@pytest.mark.parametrize("closed_by", ["kill-pane", "kill-server"])
def test_a_pane_closed_from_outside_ends_its_teammate(tmux_server: TmuxServer, tmp_path: Path, closed_by: str) -> None:
    out = tmux_server.run(
        "split-window",
        *NEW_PANE,
        sys.executable,
        "-m",
        "teamtui.tmux.runner",
        "--log",
        str(tmp_path / "mate.log"),
        "--",
        "exec sleep 600",
    )
    pane, runner = out[0].split("\t")
    teammate = wait_for(lambda: _child_of(int(runner)), "the runner to start its teammate")
    assert isinstance(teammate, int)
    if closed_by == "kill-pane":
        tmux_server.run("kill-pane", "-t", pane)
    else:
        tmux_server.tmux.try_run("kill-server")
    wait_for(lambda: not running(teammate), "the teammate to end with its pane", 10)
    wait_for(lambda: not running(int(runner)), "the runner to end after it", 10)
