"""End to end: `teamtui run` / `teamtui demo` inside a private tmux server run each teammate in
its own pane (its output there and in its log), close a pane when its teammate shuts down, and
leave nothing behind however the run ends: q, Ctrl-C, SIGTERM, SIGHUP, or SIGKILL followed by
`teamtui cleanup` or the next start."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from tmux_support import TmuxServer, wait_for

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.processes import running
from tests.runtime.helpers import WORKER, processes_of, run_cmd

pytestmark = pytest.mark.tmux
NAMES = ["ada", "bob", "cy", "dee"]


def _teamfile(tmp: Path) -> Path:
    parts = [
        '[team]\nname = "pane-team"\npoll_interval = 0.1\nshutdown_deadline = 5\nshutdown_grace = 2\nmax_teammates = 4\n'
    ]
    for name in NAMES:
        # Plain stdout (shown in the pane and kept in the .log), then the teammate API's worker;
        # bob finishes his task at once and idles, so he can answer a shutdown request.
        work = 0.2 if name == "bob" else 600
        command = f'echo "stdout of $TEAMTUI_NAME"; WORK={work} exec "$TEAMTUI_PYTHON" {WORKER}'
        parts.append(f"[[teammates]]\nname = \"{name}\"\ncommand = '{command}'\n")
    for i in range(4):
        parts.append(f'[[tasks]]\nsubject = "long task {i}"\n')
    path = tmp / "team.toml"
    path.write_text("\n".join(parts))
    return path


def _screen(server: TmuxServer, pane: str) -> str:
    return "\n".join(server.run("capture-pane", "-p", "-J", "-t", pane, "-S", "-200"))


def test_run_opens_a_pane_per_teammate_running_it_and_closes_each_when_it_shuts_down(
    tmux_server: TmuxServer, tmp_path: Path
) -> None:
    root = tmp_path / "proj"
    dashboard, pid = tmux_server.start_teamtui(
        "run", str(_teamfile(tmp_path)), "--root", str(root), "--teammate-mode", "tmux"
    )
    rows = wait_for(lambda: m if len(m := tmux_server.marked("pane-team")) == 4 else None, "four teammate panes", 40)
    by_name = {r["@teamtui-teammate"]: r for r in rows.values()}  # type: ignore[union-attr]
    assert sorted(by_name) == NAMES
    window = tmux_server.tmux.pane_info(dashboard, "#{window_id}")
    assert all(r["window_id"] == window and r["pane_title"] == n for n, r in by_name.items())
    assert tmux_server.run("show-options", "-w", "-v", "-t", window or "", "pane-border-status") == ["top"]
    sizes = {
        r.split()[0]: int(r.split()[1]) * int(r.split()[2])
        for r in tmux_server.run("list-panes", "-t", window or "", "-F", "#{pane_id} #{pane_width} #{pane_height}")
    }
    assert max(sizes, key=sizes.__getitem__) == dashboard  # the dashboard keeps the largest pane

    logs = root / ".teams" / "pane-team" / "logs"
    for name, row in by_name.items():
        # The pane runs the teammate itself: its stdout and its API log lines show there ...
        wait_for(
            lambda: f"stdout of {name}" in (s := _screen(tmux_server, row["pane_id"])) and f"{name} up (pid" in s,
            f"{name}'s output in its pane",
            20,
        )
        # ... and its output is still written to its log.
        wait_for(
            lambda: f"stdout of {name}" in (logs / f"{name}.log").read_text(errors="replace"), f"{name}'s .log", 10
        )
    assert len(processes_of(root)) >= 4

    # bob, idle, asked to shut down (as any lead or peer would): he answers, exits, his pane closes.
    team = NativeTeam(root, "pane-team")
    wait_for(lambda: any(t.status.value == "completed" for t in team.list_tasks()[0]), "bob's task done", 20)
    team.send_shutdown_request("bob", "lead", "test", 10)
    wait_for(
        lambda: not tmux_server.tmux.pane_exists(by_name["bob"]["pane_id"]),
        "bob's pane to close after he shut down",
        30,
    )
    assert sorted(r["@teamtui-teammate"] for r in tmux_server.marked("pane-team").values()) == ["ada", "cy", "dee"]

    # q on the team this process leads asks first; s stops the team, as q did before the question.
    tmux_server.run("send-keys", "-t", dashboard, "q")
    wait_for(lambda: "Leave the dashboard" in tmux_server.screen(dashboard), "the question on q", 20)
    tmux_server.run("send-keys", "-t", dashboard, "s")
    wait_for(lambda: not tmux_server.marked(), "every pane to close after q, s", 40)
    wait_for(lambda: not running(pid), "teamtui to exit", 20)
    wait_for(lambda: not processes_of(root), "no teammate process left", 10)
    # The panes closed after the lead's two-phase shutdown of the team ran, not instead of it.
    results = [json.loads(p.read_text()) for p in (root / ".teams" / "pane-team" / "shutdown").glob("*.json")]
    assert {r["teammate"] for r in results} == {"ada", "cy", "dee"}
    assert {r["run"]["reason"] for r in results} == {"dashboard closed"}


def _demo_running(server: TmuxServer, root: Path) -> tuple[str, int, list[str]]:
    dashboard, pid = server.start_teamtui("demo", "--dir", str(root), "--speed", "5", "--teammate-mode", "tmux")
    rows = wait_for(
        lambda: m if len(m := server.marked("demo")) >= 4 else None, "four of the demo teammates in panes", 90
    )
    wait_for(lambda: len(processes_of(root)) >= 2, "teammate processes", 20)
    return dashboard, pid, list(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["q", "ctrl-c", "SIGTERM", "closed terminal (SIGHUP)"])
def test_demo_in_tmux_leaves_nothing_behind(tmux_server: TmuxServer, tmp_path: Path, how: str) -> None:
    root = tmp_path / "demo"
    dashboard, pid, panes = _demo_running(tmux_server, root)
    before = len(processes_of(root))
    if how == "q":
        tmux_server.run("send-keys", "-t", dashboard, "q")
    elif how == "ctrl-c":
        tmux_server.run("send-keys", "-t", dashboard, "C-c")
    elif how == "SIGTERM":
        os.kill(pid, signal.SIGTERM)
    else:  # the dashboard's pane closed under it: SIGHUP, and every later write to it fails
        tmux_server.run("kill-pane", "-t", dashboard)
    wait_for(lambda: not running(pid), f"teamtui demo to exit after {how}", 60)
    assert tmux_server.marked() == {}, f"panes left after {how}"
    assert not any(tmux_server.tmux.pane_exists(p) for p in panes)
    wait_for(lambda: not processes_of(root), f"no teammate process left after {how}", 10)
    # The team was shut down by the lead's two-phase shutdown (its results on disk), not just killed.
    assert list((root / ".teams" / "demo" / "shutdown").glob("*.json")), f"no graceful shutdown after {how}"
    print(f"no-orphans {how}: {len(panes)} panes, {before} teammate processes before; 0 left")  # docs/reliability.md


@pytest.mark.parametrize("then", ["teamtui cleanup", "the next start"])
def test_a_sigkilled_demo_is_cleaned_up(tmux_server: TmuxServer, tmp_path: Path, then: str) -> None:
    root = tmp_path / "demo"
    demo_pane, pid, marked = _demo_running(tmux_server, root)
    before = len(processes_of(root))
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not running(pid), "teamtui demo to die", 10)
    assert tmux_server.marked("demo"), "SIGKILL leaves the panes (nothing can run after it)"
    # Every pane but the fixture's and the demo's own: also one the kill caught before it was marked.
    panes = [
        p
        for p in tmux_server.run("list-panes", "-a", "-F", "#{pane_id}")
        if p not in (tmux_server.dashboard, demo_pane)
    ]
    assert set(marked) <= set(panes)
    if then == "teamtui cleanup":
        done = run_cmd(["cleanup"], **tmux_server.env())
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == f"{len(panes)} leftover pane(s) closed"
    else:
        dashboard, next_pid = tmux_server.start_teamtui(
            "demo", "--dir", str(tmp_path / "again"), "--speed", "3", "--teammate-mode", "tmux"
        )
        wait_for(
            lambda: (
                "Closed" in _screen(tmux_server, dashboard) or not any(tmux_server.tmux.pane_exists(p) for p in panes)
            ),
            "the next start to close the leftovers",
            60,
        )
    wait_for(lambda: not any(tmux_server.tmux.pane_exists(p) for p in panes), "the killed demo's panes to close", 20)
    wait_for(
        lambda: not processes_of(root), "the killed demo's teammates to end", 60
    )  # a hang, not a loaded machine, reaches it
    print(f"no-orphans SIGKILL + {then}: {len(panes)} panes, {before} teammate processes before; 0 left")
    if then == "the next start":
        os.kill(next_pid, signal.SIGTERM)
        wait_for(lambda: not running(next_pid), "the second demo to exit", 60)
        wait_for(lambda: not tmux_server.marked(), "the second demo's panes to close", 20)


def test_tmux_mode_outside_tmux_is_refused_before_anything_is_created(tmp_path: Path) -> None:
    demo_dir = tmp_path / "never"
    done = run_cmd(["demo", "--dir", str(demo_dir), "--teammate-mode", "tmux"])
    assert done.returncode == 2
    assert done.stderr.strip() == "teamtui: --teammate-mode tmux needs teamtui to run inside tmux ($TMUX is not set)"
    assert not demo_dir.exists()


def test_tmux_from_the_config_file_outside_tmux_is_blamed_on_the_config_file(tmp_path: Path) -> None:
    # Nobody passed --teammate-mode: the refusal names the line that asked for tmux, and where it is.
    config = tmp_path / "config" / "teamtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('teammate_mode = "tmux"\n')
    demo_dir = tmp_path / "never"
    done = run_cmd(["demo", "--dir", str(demo_dir)], XDG_CONFIG_HOME=str(tmp_path / "config"))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f'teamtui: teammate_mode = "tmux" in {config} needs teamtui to run inside tmux ($TMUX is not set)'
    )
    assert not demo_dir.exists()
    # The flag still wins over the file, and is named when it is the one that asked.
    done = run_cmd(["demo", "--dir", str(demo_dir), "--teammate-mode", "tmux"], XDG_CONFIG_HOME=str(tmp_path))
    assert done.stderr.strip() == "teamtui: --teammate-mode tmux needs teamtui to run inside tmux ($TMUX is not set)"


def test_run_with_tmux_pointing_at_nothing_falls_back_to_in_process(tmp_path: Path) -> None:
    team = tmp_path / "team.toml"
    team.write_text(
        '[team]\nname = "fallback"\npoll_interval = 0.05\nshutdown_deadline = 3\n'
        f'[[teammates]]\nname = "ada"\ncommand = \'WORK=0.05 exec "$TEAMTUI_PYTHON" {WORKER}\'\n'
        '[[tasks]]\nsubject = "one"\n[[tasks]]\nsubject = "two"\n'
    )
    done = run_cmd(["run", str(team), "--headless"], TMUX=f"{tmp_path}/no-server,1,0", TMUX_PANE="%0")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == (
        f"teamtui: Teammates shown in-process: the tmux server at {tmp_path}/no-server does not answer ($TMUX is stale)."
    )
    assert "all 2 tasks completed" in done.stdout
