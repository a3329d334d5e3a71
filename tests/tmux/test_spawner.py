"""TmuxSpawner: a teammate runs in its pane, its output in the pane and in its log."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.processes import group_alive
from teamtui.tmux.panes import TmuxPanes
from teamtui.tmux.spawner import TmuxSpawner

pytestmark = pytest.mark.tmux


def _first_line(path: Path) -> str:
    text = path.read_text() if path.exists() else ""
    return text.partition("\n")[0] if "\n" in text else ""


def _cmdline(pid: str) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode().split("\0")[:-1]
    except OSError:
        return []


def test_output_lands_in_the_pane_and_the_log_and_the_exit_status_is_kept(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    log = tmp_path / "logs" / "hunter.log"
    proc = TmuxSpawner(panes, lambda name: "blue").spawn(
        "hunter",
        # It waits for `go` so the test reads the pane before the pane closes.
        "echo name=$TEAMTUI_NAME in $(pwd); echo oops >&2; while [ ! -e go ]; do sleep 0.05; done; exit 5",
        cwd=tmp_path,
        env={"TEAMTUI_NAME": "hunter"},
        log_path=log,
    )
    assert proc.pid and tmux_server.marked()[proc.pane_id]["@teamtui-teammate"] == "hunter"
    wait_for(lambda: f"name=hunter in {tmp_path}" in tmux_server.screen(proc.pane_id), "output in the pane")
    assert proc.poll() is None
    (tmp_path / "go").touch()
    assert wait_for(lambda: proc.poll() is not None, "the teammate to exit") and proc.poll() == 5
    assert log.read_text() == f"name=hunter in {tmp_path}\noops\n"
    assert not tmux_server.tmux.pane_exists(proc.pane_id)  # its pane closed when it ended
    panes.close_all()


def test_terminate_reaches_the_whole_group_and_the_last_words_are_logged(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    log = tmp_path / "scout.log"
    proc = TmuxSpawner(panes).spawn(
        "scout",
        "trap 'echo got-term; exit 3' TERM; sleep 600 & echo started $!; while :; do sleep 0.1; done",
        cwd=tmp_path,
        env={},
        log_path=log,
    )
    sleeper = str(wait_for(lambda: _first_line(log), "the teammate to start")).split()[1]
    # Signal only once the background sleep runs: a TERM between its fork and its exec is
    # caught by the forked shell and lost, and the sleep would outlive the test (CI saw it).
    wait_for(lambda: _cmdline(sleeper) == ["sleep", "600"], "the background sleep to run")
    assert proc.poll() is None
    proc.terminate()
    wait_for(lambda: proc.poll() is not None, "the teammate to exit on SIGTERM")
    assert proc.poll() == 3
    lines = log.read_text().splitlines()
    assert lines[0] == f"started {sleeper}" and lines[-1] == "got-term"  # sh may report the killed sleep between
    assert proc.pid is not None
    wait_for(lambda: not group_alive(proc.pid), "the background sleep to end with its group")  # type: ignore[arg-type]
    panes.close_all()


def test_kill_leaves_no_process_behind(tmux_server: TmuxServer, tmp_path: Path) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    proc = TmuxSpawner(panes).spawn(
        "tracer", "trap '' TERM; sleep 600 & echo up; wait", cwd=tmp_path, env={}, log_path=tmp_path / "tracer.log"
    )
    wait_for(lambda: "up" in tmux_server.screen(proc.pane_id), "the teammate to start")
    proc.kill()
    wait_for(lambda: proc.poll() is not None, "the teammate to die")
    assert proc.poll() == -signal.SIGKILL
    wait_for(lambda: not group_alive(proc.pid), "every process of the group to be gone")  # type: ignore[arg-type]
    assert tmux_server.marked() == {}
    panes.close_all()


def test_sync_never_closes_a_pane_the_spawner_opened(tmux_server: TmuxServer, tmp_path: Path) -> None:
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    proc = TmuxSpawner(panes).spawn("hunter", "sleep 600", cwd=tmp_path, env={}, log_path=tmp_path / "h.log")
    panes.sync([])  # the config does not list hunter yet
    assert panes.wait_idle()
    assert proc.poll() is None and tmux_server.tmux.pane_exists(proc.pane_id)
    panes.close_all()
    wait_for(lambda: not group_alive(proc.pid), "the teammate to end with close_all")  # type: ignore[arg-type]
