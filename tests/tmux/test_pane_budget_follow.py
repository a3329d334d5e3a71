"""What a follow pane runs starts light: `teamtui follow` prints its first screen before it loads
the event loop or the watcher (they come after, for the live part), and never loads the
dashboard or tmux. Its command runs at a lower CPU priority than the dashboard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tmux_support import TmuxServer, pane_of, wait_for

from teamtui.protocol import NativeTeam
from teamtui.tmux.api import PaneSpec
from teamtui.tmux.commands import FOLLOW_NICENESS, follow_command
from teamtui.tmux.panes import TmuxPanes

TEAM = "refactor-auth"

# Runs `teamtui follow NAME` in this interpreter, then writes the modules it loaded.
DRIVER = """
import json, os, sys
from teamtui.cli import main
code = main(sys.argv[1:])
with open(os.environ["IMPORTS_OUT"], "w") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules)}, fh)
"""

NOT_FOR_THE_FIRST_SCREEN = ("asyncio", "anyio", "watchfiles", "ssl", "teamtui.protocol.watch")
NEVER = ("textual", "rich", "libtmux", "teamtui.tui", "teamtui.runtime", "teamtui.tmux.panes", "teamtui.tmux.server")


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


def test_follow_shows_its_first_screen_without_the_event_loop_or_the_watcher(native_root: Path, tmp_path: Path) -> None:
    # A teammate that already shut down: follow prints its first screen, says so, and ends
    # there, so what it loaded is exactly what the first screen needed.
    NativeTeam(native_root, TEAM).update_member("hunter", status="shutdown")
    out = tmp_path / "imports.json"
    env = {**os.environ, "TEAMTUI_ROOT": str(native_root), "TEAMTUI_TEAM": TEAM, "IMPORTS_OUT": str(out)}
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, "follow", "hunter"], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("following hunter in team refactor-auth")
    assert lines[-1] == "hunter shut down; following ends."
    result = json.loads(out.read_text())
    assert result["code"] == 0
    assert _loaded(result["modules"], NOT_FOR_THE_FIRST_SCREEN + NEVER) == []


@pytest.mark.tmux
def test_a_follow_pane_runs_below_the_dashboards_cpu_priority(tmux_server: TmuxServer, native_root: Path) -> None:
    # A pane is a session of its own: with autogroup scheduling the session's nice is what counts
    # against the dashboard's session, so both the process and (where there is one) its autogroup are niced.
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, TEAM)
    panes.sync([PaneSpec("hunter", "blue", follow_command("hunter", native_root, TEAM))])
    assert panes.wait_idle()
    pane = pane_of(panes, "hunter")
    assert pane is not None
    shown = lambda: "\n".join(tmux_server.run("capture-pane", "-p", "-t", pane))  # noqa: E731
    wait_for(lambda: "following hunter" in shown(), "follow to start in its pane", timeout=30)
    pid = int(tmux_server.tmux.pane_info(pane, "#{pane_pid}") or 0)
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        assert b"\0follow\0hunter\0" in f.read()  # the pane's process is follow itself (exec'd)
    with open(f"/proc/{pid}/stat") as f:
        nice = int(f.read().rpartition(")")[2].split()[16])
    assert nice == min(19, os.nice(0) + FOLLOW_NICENESS)
    if os.path.exists("/proc/self/autogroup"):
        with open(f"/proc/{pid}/autogroup") as f:
            assert f.read().split()[-1] == str(FOLLOW_NICENESS)
    panes.close_all()


def test_deciding_the_teammate_mode_loads_no_libtmux() -> None:
    # Every dashboard decides its mode before its first screen; only tmux mode needs libtmux.
    code = (
        "import sys\n"
        "from teamtui.tmux.mode import resolve_teammate_mode\n"
        "assert resolve_teammate_mode('in-process').mode == 'in-process'\n"
        "assert resolve_teammate_mode('auto', env={}).mode == 'in-process'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'libtmux'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
