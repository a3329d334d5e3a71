"""`teamtui demo` without --dir makes a folder of its own under $TMPDIR and removes it when it ends,
however it ends: q, Ctrl-C, SIGTERM, SIGHUP, its pane closed, the tmux server killed (the terminal closed),
also while the team is still shutting down after q. Nothing the demo's lead writes late may make the
folder again (a "sending SIGTERM" line once re-created .teams/demo/logs/lead.jsonl)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.processes import running
from tests.runtime.helpers import processes_of

pytestmark = pytest.mark.tmux

ENDINGS = [
    "q",
    "ctrl-c",
    "SIGTERM",
    "SIGHUP",
    "pane closed",
    "kill-server",
    "q, then kill-server while it shuts down",
    "q, then SIGCONT while it shuts down",
]


def _demo(server: TmuxServer, tmp: Path) -> tuple[str, int, Path]:
    pane, pid = server.start_teamtui("demo", "--teammate-mode", "in-process", prefix=("env", f"TMPDIR={tmp}"))
    server.run("set-option", "-w", "-t", pane, "remain-on-exit", "on")  # what it printed last stays readable
    root = wait_for(lambda: next(tmp.glob("teamtui-demo-*"), None), "the demo's folder")
    assert isinstance(root, Path)
    wait_for(lambda: "Tasks" in server.screen(pane), "the demo's dashboard", 60)
    wait_for(lambda: len(processes_of(root)) >= 3, "the demo's teammates at work", 30)
    return pane, pid, root


def _shutting_down(root: Path) -> bool:
    try:
        return "shutting down" in (root / ".teams" / "demo" / "logs" / "lead.jsonl").read_text()
    except OSError:
        return False


@pytest.mark.parametrize("how", ENDINGS)
def test_the_demos_own_folder_is_gone_however_it_ends(tmux_server: TmuxServer, tmp_path: Path, how: str) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    pane, pid, root = _demo(tmux_server, tmp)
    if how.startswith("q"):
        tmux_server.run("send-keys", "-t", pane, "q")
    if how == "ctrl-c":
        tmux_server.run("send-keys", "-t", pane, "C-c")
    elif how == "SIGTERM":
        os.kill(pid, signal.SIGTERM)
    elif how == "SIGHUP":
        os.kill(pid, signal.SIGHUP)
    elif how == "pane closed":
        tmux_server.run("kill-pane", "-t", pane)
    elif how == "kill-server":
        tmux_server.tmux.try_run("kill-server")
    elif how == "q, then kill-server while it shuts down":
        # The terminal closes while the lead still waits for its teammates' replies: the kernel
        # sends the hangup and a SIGCONT; the lead climbs the ladder and keeps writing.
        wait_for(lambda: _shutting_down(root), "the lead to start the team's shutdown", 30)
        tmux_server.tmux.try_run("kill-server")
    elif how == "q, then SIGCONT while it shuts down":
        # As a hangup brings, or `fg` after a stop: the dashboard has ended, the lead works on.
        wait_for(lambda: _shutting_down(root), "the lead to start the team's shutdown", 30)
        os.kill(pid, signal.SIGCONT)
    wait_for(lambda: not running(pid), f"teamtui demo to exit after {how}", 60)
    # Once the process is gone nothing of it writes; its teammates were its children.
    wait_for(lambda: not processes_of(root), f"no teammate left after {how}", 10)
    assert list(tmp.iterdir()) == [], f"left behind after {how}: {sorted(str(p) for p in tmp.rglob('*'))}"
    if how in ("q", "q, then SIGCONT while it shuts down"):  # its last words, in the pane left open
        last = "\n".join(tmux_server.run("capture-pane", "-p", "-J", "-t", pane, "-S", "-100"))
        assert "Traceback" not in last and f"teamtui demo: removed {root}" in last, last
