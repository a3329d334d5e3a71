"""Runs register the team they lead: real processes register, end, crash and get killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from teamtui.protocol import processes
from teamtui.protocol.fleet import discover_fleet, live_runs, register_run, registry_dir
from tests.conftest import reaped

from .conftest import NATIVE_TEAM, Machine, dead_pid

# A lead stand-in: registers the team, says so, and holds until its stdin closes (or it is told to fail).
RUN = """
import sys
from pathlib import Path
from teamtui.protocol.fleet.registry import registered_run
with registered_run(Path(sys.argv[1]), sys.argv[2]):
    print("registered", flush=True)
    if sys.stdin.readline().strip() == "fail":
        raise RuntimeError("the lead failed")
"""


def _start_run(machine: Machine, root: Path, team: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN, str(root), team],
        env=machine.env(),
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "registered", proc.stderr.read() if proc.stderr else ""
    return proc


def _sources(machine: Machine) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in discover_fleet(ended=False).teams:
        out.setdefault(t.name, []).append(t.source)
    return out


def test_the_registry_lives_under_xdg_state_home(machine: Machine) -> None:
    assert registry_dir() == machine.registry


def test_a_run_is_listed_while_it_runs_as_one_row_and_unlisted_when_it_ends(machine: Machine) -> None:
    proc = _start_run(machine, machine.project, NATIVE_TEAM)
    try:
        entries = live_runs()
        assert [(e.pid, e.team, e.root, e.layout) for e in entries] == [
            (proc.pid, NATIVE_TEAM, machine.project.resolve(), "native")
        ]
        # The same team under the cwd and in the registry: one row, led by the run.
        assert _sources(machine)[NATIVE_TEAM] == ["run"]
        team = next(t for t in discover_fleet(ended=False).teams if t.name == NATIVE_TEAM)
        assert team.run is not None and team.run.pid == proc.pid and team.problem is None
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    assert list(machine.registry.iterdir()) == []
    assert _sources(machine)[NATIVE_TEAM] == ["native"]


def test_a_run_that_fails_removes_its_registration(machine: Machine) -> None:
    proc = _start_run(machine, machine.project, NATIVE_TEAM)
    out, err = proc.communicate("fail\n", timeout=30)
    assert proc.returncode == 1 and "the lead failed" in err
    assert list(machine.registry.iterdir()) == []


def test_a_killed_run_leaves_a_file_that_is_ignored_and_removed(machine: Machine) -> None:
    proc = _start_run(machine, machine.project, NATIVE_TEAM)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    [left] = list(machine.registry.iterdir())  # nothing ran its cleanup
    assert live_runs() == []
    assert not left.exists()
    assert _sources(machine)[NATIVE_TEAM] == ["native"]


def _write_entry(machine: Machine, name: str, **fields: object) -> Path:
    machine.registry.mkdir(parents=True, exist_ok=True)
    path = machine.registry / name
    path.write_text(
        json.dumps({"root": str(machine.project), "team": NATIVE_TEAM, "layout": "native", "started_at": 1.0, **fields})
    )
    return path


def test_a_stale_registration_of_a_dead_pid_is_ignored_and_cleaned(machine: Machine) -> None:
    pid, start = dead_pid()
    stale = _write_entry(machine, f"{pid}.stale.json", pid=pid, start=start, pid_space=processes.pid_space())
    assert live_runs() == []
    assert not stale.exists()


def test_a_reused_pid_is_not_the_run(machine: Machine) -> None:
    # This test's own pid, alive, but started at another time than the registration says.
    reused = _write_entry(machine, "reused.json", pid=os.getpid(), start="1", pid_space=processes.pid_space())
    assert live_runs() == []
    assert not reused.exists()


def test_a_run_of_another_pid_namespace_is_kept_as_unknown(machine: Machine) -> None:
    pid, start = dead_pid()
    other = _write_entry(machine, "container.json", pid=pid, start=start, pid_space="pid:[1]")
    [entry] = live_runs()
    assert entry.process_state == "unknown" and other.exists()


def test_files_that_are_not_registrations_are_skipped_not_removed(machine: Machine) -> None:
    machine.registry.mkdir(parents=True)
    (machine.registry / "junk.json").write_text("{not json")
    (machine.registry / "list.json").write_text("[1, 2]")
    (machine.registry / "nul.json").write_text(json.dumps({"pid": os.getpid(), "root": "a\u0000b", "team": "t"}))
    (machine.registry / ".123.json.ab.tmp").write_text("{}")
    assert live_runs() == []
    assert len(list(machine.registry.iterdir())) == 4


def test_registering_writes_whole_files_only(machine: Machine) -> None:
    path = register_run(machine.project, NATIVE_TEAM)
    data = json.loads(path.read_text())
    assert data["pid"] == os.getpid() and data["start"] == processes.start_of(os.getpid())
    assert [p.name for p in machine.registry.iterdir()] == [path.name]  # no temp file left behind


def test_teamtui_demo_registers_while_it_leads(machine: Machine, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamtui", "demo", "--headless", "--speed", "40", "--dir", str(demo)],
        env=machine.env(),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with reaped(proc):
        seen = None
        while seen is None and proc.poll() is None:
            seen = next((t for t in discover_fleet(ended=False).teams if t.source == "run"), None)
        assert seen is not None, "the demo never showed in the fleet"
        assert (seen.name, seen.layout, seen.root, seen.run.pid if seen.run else None) == (
            "demo",
            "native",
            demo.resolve(),
            proc.pid,
        )
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "all 15 tasks completed" in out
    assert list(machine.registry.iterdir()) == []
