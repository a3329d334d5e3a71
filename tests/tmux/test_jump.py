"""Going to a Claude Code teammate's pane from the "Needs you" strip, on a real tmux server:
the pane by id, and the lead's pane found from its process (or a parent of it)."""

from __future__ import annotations

import os
import time

from tmux_support import TmuxServer

from teamtui.tmux.jump import pane_of_process, select_pane


def active_pane(server: TmuxServer) -> str:
    return server.run("display-message", "-p", "#{pane_id}")[0]


def test_select_pane_makes_the_teammates_pane_current(tmux_server: TmuxServer) -> None:
    other = tmux_server.run("new-window", "-d", "-P", "-F", "#{pane_id}", "sleep 3600")[0]
    assert active_pane(tmux_server) == tmux_server.dashboard
    assert select_pane(other, env=tmux_server.env()) is True
    assert active_pane(tmux_server) == other


def test_select_pane_refuses_what_is_not_a_pane_here(tmux_server: TmuxServer) -> None:
    env = tmux_server.env()
    assert select_pane("%999", env=env) is False  # not on this server
    assert select_pane("in-process", env=env) is False
    assert select_pane("%1;kill-server", env=env) is False  # never handed to tmux
    assert select_pane(tmux_server.dashboard, env={}) is False  # teamtui not inside tmux
    assert active_pane(tmux_server) == tmux_server.dashboard


def test_the_leads_pane_is_found_from_its_process_or_a_parent(tmux_server: TmuxServer) -> None:
    # The lead runs under a shell in its pane, as `claude` does when typed at a prompt.
    pane, pid = tmux_server.run("new-window", "-d", "-P", "-F", "#{pane_id}\t#{pane_pid}", "sh -c 'sleep 3600 & wait'")[
        0
    ].split("\t")
    env = tmux_server.env()
    assert pane_of_process(int(pid), env=env) == pane
    child = _child_of(int(pid))
    assert child is not None and pane_of_process(child, env=env) == pane
    assert pane_of_process(1, env=env) is None


def _child_of(pid: int) -> int | None:
    for _ in range(100):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as fh:
                        stat = fh.read()
                except OSError:
                    continue
                if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
                    return int(entry)
        time.sleep(0.02)
    return None
