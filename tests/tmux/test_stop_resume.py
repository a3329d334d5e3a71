"""The dashboard can be stopped and resumed like any terminal program (SIGTSTP, then SIGCONT as
`fg` sends it): it leaves the terminal while stopped and draws itself again, live, on resume. A
SIGCONT that follows no stop of ours (a hangup brings one) changes nothing; a terminal closed while
the dashboard is stopped still ends it, team and all."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import psutil
import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.processes import running
from tests.runtime.helpers import processes_of

# The demo runs under a shell, as a person starts it: a pane's own process cannot stay stopped
# (tmux sends it SIGCONT at once).
STOPS = 20
UNDER_A_SHELL = ("sh", "-c", '"$@"; exit $?', "sh")

pytestmark = pytest.mark.tmux


def _status(pid: int) -> str:
    try:
        return psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        return "gone"


def _demo(server: TmuxServer, tmp: Path) -> tuple[str, int, Path]:
    """A demo at work in a new pane: the pane, the dashboard's pid, the demo's folder."""
    pane, shell = server.start_teamtui(
        "demo", "--teammate-mode", "in-process", prefix=(*UNDER_A_SHELL, "env", f"TMPDIR={tmp}")
    )
    server.run("set-option", "-w", "-t", pane, "remain-on-exit", "on")  # its last words stay readable
    children = wait_for(lambda: psutil.Process(shell).children(), "the shell to start the demo")
    assert isinstance(children, list)
    root = wait_for(lambda: next(tmp.glob("teamtui-demo-*"), None), "the demo's folder")
    assert isinstance(root, Path)
    wait_for(lambda: "Teammate" in server.screen(pane), "the demo's dashboard", 60)
    wait_for(lambda: len(processes_of(root)) >= 3, "the demo's teammates at work", 30)
    return pane, children[0].pid, root


def _tasks_line(screen: str) -> str:
    return next((line for line in screen.splitlines() if "Tasks" in line), "")


def test_stopped_then_resumed_the_dashboard_draws_again_and_stays_live(tmux_server: TmuxServer, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    pane, pid, root = _demo(tmux_server, tmp)
    # Many times over, whatever the dashboard is doing when the signal comes (drawing, writing a
    # frame): a stop handled in the middle of a write once froze it for good.
    for n in range(STOPS):
        os.kill(pid, signal.SIGTSTP)
        wait_for(lambda: _status(pid) == psutil.STATUS_STOPPED, f"the dashboard to stop (stop {n + 1})")
        # Off the alternate screen: the pane shows what the demo printed before the dashboard.
        wait_for(lambda: "Teammate" not in tmux_server.screen(pane), "the dashboard to leave the terminal")
        os.kill(pid, signal.SIGCONT)
        wait_for(lambda: "Teammate" in tmux_server.screen(pane), f"the dashboard to draw itself again (stop {n + 1})")
    # Live again: the team's progress keeps reaching the screen.
    before = _tasks_line(tmux_server.screen(pane))
    wait_for(lambda: _tasks_line(tmux_server.screen(pane)) != before, "a change to reach the resumed dashboard", 30)
    # A SIGCONT after no stop of ours is ignored: no second start of the app's terminal mode.
    os.kill(pid, signal.SIGCONT)
    tmux_server.run("send-keys", "-t", pane, "q")
    wait_for(lambda: not running(pid), "teamtui demo to exit on q after a resume", 60)
    last = "\n".join(tmux_server.run("capture-pane", "-p", "-J", "-t", pane, "-S", "-100"))
    assert "Traceback" not in last and f"teamtui demo: removed {root}" in last, last


def test_a_terminal_closed_while_the_dashboard_is_stopped_ends_it(tmux_server: TmuxServer, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    _pane, pid, root = _demo(tmux_server, tmp)
    os.kill(pid, signal.SIGTSTP)
    wait_for(lambda: _status(pid) == psutil.STATUS_STOPPED, "the dashboard to stop")
    tmux_server.tmux.try_run("kill-server")
    wait_for(lambda: not running(pid), "teamtui demo to exit when its terminal closed while stopped", 60)
    wait_for(lambda: not processes_of(root), "no teammate left", 10)
    assert list(tmp.iterdir()) == []
