"""Leftovers of a SIGKILLed teamtui, and choosing the teammate display mode."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.errors import ProtocolError
from teamtui.tmux.api import NullPanes, PaneSpec
from teamtui.protocol.processes import group_alive, running
from teamtui.tmux.mode import ModeDecision, add_teammate_mode_option, make_panes, resolve_teammate_mode
from teamtui.tmux.panes import TmuxPanes
from teamtui.tmux.server import TmuxUnavailable

pytestmark = pytest.mark.tmux
REPO = Path(__file__).resolve().parents[2]

OWNER_SCRIPT = """
import sys, time
from teamtui.tmux.api import PaneSpec
from teamtui.tmux.panes import TmuxPanes
panes, _ = TmuxPanes.from_env("doomed")
panes.sync([PaneSpec(n, "red", "sleep 600") for n in ("a", "b", "c")])
panes.wait_idle()
print("ready", flush=True)
time.sleep(600)
"""


def _killed_owner(server: TmuxServer, names: tuple[str, ...] = ("a", "b", "c")) -> list[int]:
    """Run a teamtui-like process that opens a pane per name, SIGKILL it; return its panes' pids."""
    env = {**os.environ, **server.env(), "PYTHONPATH": str(REPO)}
    script = OWNER_SCRIPT.replace('("a", "b", "c")', repr(names))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    pids = [int(r["pane_pid"]) for r in server.marked("doomed").values()]
    assert len(pids) == 3
    return pids


def test_teamtui_cleanup_closes_the_panes_and_processes_of_a_killed_teamtui(tmux_server: TmuxServer) -> None:
    mine = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "alive")
    mine.sync([PaneSpec("keeper", "blue", "sleep 600")])
    pids = _killed_owner(tmux_server)
    env = {**os.environ, **tmux_server.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "teamtui", "cleanup"], capture_output=True, text=True, env=env, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "3 leftover pane(s) closed"
    assert tmux_server.marked("doomed") == {}
    wait_for(lambda: not any(group_alive(p) for p in pids), "the leftovers' processes to end")
    assert set(r["@teamtui-teammate"] for r in tmux_server.marked().values()) == {"keeper"}  # owner alive: kept
    mine.close_all()


# A teamtui SIGKILLed after tmux opened a pane and before it marked it (two tmux calls).
KILLED_WHILE_MARKING = """
import os, signal
from teamtui.tmux.api import PaneSpec
from teamtui.tmux.panes import TmuxPanes
class Dies(TmuxPanes):
    def _mark(self, pane, color):
        print(pane.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
panes, _ = Dies.from_env("doomed")
panes.open("half", command="sleep 600")
"""


def test_a_pane_its_teamtui_died_before_marking_is_still_cleaned_up(tmux_server: TmuxServer) -> None:
    env = {**os.environ, **tmux_server.env(), "PYTHONPATH": str(REPO)}
    died = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_MARKING], capture_output=True, text=True, env=env, timeout=30
    )
    assert died.returncode == -signal.SIGKILL, died.stderr
    pid = int(died.stdout.split()[0])
    assert tmux_server.marked() == {} and group_alive(pid)  # no pane option names it: only its environment does
    done = subprocess.run(
        [sys.executable, "-m", "teamtui", "cleanup"], capture_output=True, text=True, env=env, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert "(team doomed, teammate half;" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "1 leftover pane(s) closed"
    wait_for(lambda: not group_alive(pid), "the unmarked pane's process to end")
    assert tmux_server.tmux.pane_exists(tmux_server.dashboard)


def test_the_next_start_cleans_leftovers_and_says_so(tmux_server: TmuxServer) -> None:
    pids = _killed_owner(tmux_server)
    panes, notice = make_panes(ModeDecision("tmux"), "next", tmux_server.env())
    assert isinstance(panes, TmuxPanes)
    assert notice == "Closed 3 pane(s) left by a teamtui that was killed."
    assert tmux_server.marked() == {}
    wait_for(lambda: not any(group_alive(p) for p in pids), "the leftovers' processes to end")
    panes.close_all()


def test_auto_is_tmux_inside_a_live_tmux(tmux_server: TmuxServer) -> None:
    assert resolve_teammate_mode(None, env=tmux_server.env()) == ModeDecision("tmux")
    assert resolve_teammate_mode("in-process", "tmux", env=tmux_server.env()).mode == "in-process"
    assert resolve_teammate_mode(None, "in-process", env=tmux_server.env()).mode == "in-process"
    assert resolve_teammate_mode("tmux", "in-process", env=tmux_server.env()).mode == "tmux"


def test_tmux_pointing_at_nothing_falls_back_to_in_process_with_a_notice(tmp_path: Path) -> None:
    env = {"TMUX": f"{tmp_path}/no-such-socket,4242,0", "TMUX_PANE": "%0"}
    decision = resolve_teammate_mode(None, env=env)
    assert decision.mode == "in-process"
    assert (
        decision.notice
        == f"Teammates shown in-process: the tmux server at {tmp_path}/no-such-socket does not answer ($TMUX is stale)."
    )
    panes, notice = make_panes(decision, "t", env)
    assert isinstance(panes, NullPanes) and notice == decision.notice
    with pytest.raises(TmuxUnavailable, match="does not answer"):
        resolve_teammate_mode("tmux", env=env)


def test_missing_tmux_binary_falls_back_with_a_notice(
    tmux_server: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmux_server.env()
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no tmux on it
    decision = resolve_teammate_mode("auto", env=env)
    assert decision == ModeDecision("in-process", "Teammates shown in-process: tmux is not installed.")


def test_tmux_mode_outside_tmux_is_a_clear_error() -> None:
    assert resolve_teammate_mode(None, env={}) == ModeDecision("in-process")
    with pytest.raises(TmuxUnavailable) as err:
        resolve_teammate_mode("tmux", env={})
    assert isinstance(err.value, ProtocolError)  # the CLI prints it as one line, no traceback
    assert str(err.value) == "--teammate-mode tmux needs teamtui to run inside tmux ($TMUX is not set)"


def test_a_bad_config_value_is_reported_and_auto_used() -> None:
    decision = resolve_teammate_mode(None, "panes", env={})
    assert decision == ModeDecision(
        "in-process", "teammate_mode 'panes' in the config file is not one of auto, in-process, tmux: using auto."
    )


def test_the_option_accepts_the_three_modes_only(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_teammate_mode_option(parser)
    assert parser.parse_args([]).teammate_mode is None
    assert parser.parse_args(["--teammate-mode", "in-process"]).teammate_mode == "in-process"
    with pytest.raises(SystemExit):
        parser.parse_args(["--teammate-mode", "split"])


def test_a_teammate_name_cannot_forge_a_leftover_for_cleanup_to_kill(tmux_server: TmuxServer) -> None:
    # A name with a newline and tabs shaped like a listing row naming the dashboard's pane and pid.
    victim_pid = tmux_server.run("display-message", "-p", "-t", tmux_server.dashboard, "#{pane_pid}")[0]
    forged = f"x\n{tmux_server.dashboard}\t{victim_pid}\t999999:0\tt\tforged"
    _killed_owner(tmux_server, (forged, "b", "c"))
    env = {**os.environ, **tmux_server.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "teamtui", "cleanup"], capture_output=True, text=True, env=env, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "3 leftover pane(s) closed"  # the three real ones, nothing forged
    assert tmux_server.tmux.pane_exists(tmux_server.dashboard)
    assert running(int(victim_pid))
