"""End to end: `teamtui watch --teammate-mode tmux` inside a private tmux server opens one
pane per live teammate, and `q`, SIGTERM and SIGHUP all close them."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.tmux.cleanup import group_alive, process_running

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
    wait_for(lambda: not process_running(pid), "the dashboard to exit", timeout=20)
    wait_for(lambda: not any(group_alive(p) for p in pane_pids), "no follow process left", timeout=10)
