"""End to end: `teamtui watch --teammate-mode tmux` inside a private tmux server opens one
pane per live teammate, and `q`, SIGTERM, SIGHUP and a closed terminal all close them."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.processes import group_alive, running

pytestmark = pytest.mark.tmux


def _add_member(root: Path, name: str) -> None:
    path = root / ".teams" / "refactor-auth" / "config.json"
    config = json.loads(path.read_text())
    config["members"].append({"name": name, "agent_id": f"{name}@refactor-auth", "status": "active", "color": "purple"})
    path.write_text(json.dumps(config, indent=2))


@pytest.mark.parametrize("how", ["q", "SIGTERM", "SIGHUP"])
def test_watch_in_tmux_opens_a_pane_per_teammate_and_closes_them_on_exit(
    tmux_server: TmuxServer, native_root: Path, how: str
) -> None:
    _add_member(native_root, "sentry")  # hunter, scout, sentry are live; tracer has shut down
    dashboard, pid = tmux_server.start_teamtui("watch", str(native_root), "--teammate-mode", "tmux")
    rows = wait_for(lambda: m if len(m := tmux_server.marked()) == 3 else None, "three teammate panes", timeout=30)
    assert sorted(r["@teamtui-teammate"] for r in rows.values()) == ["hunter", "scout", "sentry"]  # type: ignore[union-attr]
    window = tmux_server.tmux.pane_info(dashboard, "#{window_id}")
    assert all(r["window_id"] == window for r in rows.values())  # type: ignore[union-attr]
    # No --team given: the marks name the team the dashboard picked, so cleanup --team finds them.
    assert {r["@teamtui-team"] for r in rows.values()} == {"refactor-auth"}  # type: ignore[union-attr]
    pane_pids = [int(r["pane_pid"]) for r in rows.values()]  # type: ignore[union-attr]
    if how == "q":
        tmux_server.run("send-keys", "-t", dashboard, "q")
    else:
        os.kill(pid, getattr(signal, how))
    wait_for(lambda: not tmux_server.marked(), f"every pane to close after {how}", timeout=20)
    wait_for(lambda: not running(pid), "the dashboard to exit", timeout=20)
    wait_for(lambda: not any(group_alive(p) for p in pane_pids), "no follow process left", timeout=10)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def test_a_closed_terminal_ends_the_dashboard_and_its_panes_even_without_sighup(
    tmux_server: TmuxServer, native_root: Path
) -> None:
    # setsid: the dashboard runs outside its terminal's session, so closing the terminal sends
    # it no SIGHUP; all it sees is its next write failing. Textual's own output thread died of
    # that, and the dashboard ran on forever, wedged, with its panes open.
    dashboard, setsid_pid = tmux_server.start_teamtui(
        "watch", str(native_root), "--teammate-mode", "tmux", prefix=("setsid", "-w")
    )
    wait_for(lambda: len(tmux_server.marked()) == 2, "two teammate panes", timeout=30)
    pid = int(wait_for(lambda: (_children(setsid_pid) or [0])[0], "the dashboard process"))  # type: ignore[arg-type]
    tmux_server.run("kill-pane", "-t", dashboard)
    task = native_root / ".tasks" / "task_3.json"
    data = json.loads(task.read_text())
    data["subject"] = "Update API documentation (redrawn after the terminal closed)"
    task.write_text(json.dumps(data))  # something to draw: the write that fails
    wait_for(lambda: not tmux_server.marked(), "every pane to close after the terminal closed", timeout=20)
    wait_for(lambda: not running(pid), "the dashboard to exit", timeout=20)
