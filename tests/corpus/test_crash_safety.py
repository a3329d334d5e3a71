"""SIGKILL a process writing through teamtui (CLI commands and library writers) at random moments.
Afterwards every file parses, no torn inbox or log line exists, no temp file is matched by
task_*.json, the next writer gets in (stale-lock recovery), and a fresh TeamState shows exactly
the state on disk."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamtui.protocol import ClaudeTeam, NativeTeam, TeamState
from teamtui.protocol.errors import ReadError
from teamtui.protocol.fsio import load_json_file
from teamtui.protocol.locks import STALE_AFTER
from tests.conftest import EXAMPLES

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("crash_worker.py")
TEAM = "refactor-auth"


def _locks(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".lock") or p.name.endswith(".lock.break")]


def _age(paths: list[Path]) -> None:
    # The honest equivalent of waiting out the 10 s stale period: make the leftovers 10 s old.
    old = time.time() - STALE_AFTER - 1
    for p in paths:
        os.utime(p, (old, old), follow_symlinks=False)


def _verify(native_root: Path, claude_root: Path) -> dict[str, int]:
    store = NativeTeam(native_root, TEAM)
    claude = ClaudeTeam(claude_root, "work-team")
    locks = _locks(native_root) + _locks(claude_root)
    temps = [p for p in [*native_root.rglob("*"), *claude_root.rglob("*")] if p.name.endswith(".tmp")]
    # Every file parses.
    cfg = store.load_config()
    assert not isinstance(cfg, ReadError), cfg
    disk_tasks = {}
    for p in sorted(store.tasks_dir.glob("task_*.json")):
        data = json.loads(p.read_bytes())
        t = store.read_task(p)
        assert not isinstance(t, ReadError), t
        disk_tasks[t.id] = (data["status"], data["owner"])
    for p in store.sidecar_dir.glob("*.json"):
        assert isinstance(load_json_file(p), dict), p
    inbox_lines = {}
    for owner in store.inbox_owners():
        raw = store.inbox_path(owner).read_bytes()
        assert raw == b"" or raw.endswith(b"\n"), f"torn last line in {owner}'s inbox"
        assert store.peek(owner).errors == []
        inbox_lines[owner] = raw.count(b"\n")
    for p in store.logs_dir.glob("*.jsonl"):
        for line in p.read_bytes().splitlines():
            json.loads(line)
    assert not (store.team_dir / ".rejected").exists()
    assert isinstance(load_json_file(claude.inbox_path("writer")), list)
    # A restart shows the same state as the files.
    state = TeamState(store, message_limit=10**6)
    state.load_all()
    assert state.all_errors() == []
    assert {tid: (t.status.value, t.owner) for tid, t in state.tasks.items()} == disk_tasks
    assert [m.name for m in state.config.members] == [
        m["name"] for m in json.loads(store.config_path.read_bytes())["members"]
    ]
    for owner, n in inbox_lines.items():
        assert len(state.inbox_messages(owner)) == n
    # The next writer gets in, through the stale-lock path when the killed one left a lock.
    _age(locks)
    store.send("hunter", "after the crash", "lead")
    store.send("lead", "after the crash", "hunter")  # the worker also writes to the lead's inbox
    store.create_task("after the crash")
    store.update_member("scout", status="idle")
    store.drain("scout")
    claude.send("writer", "after the crash", "teamtui")
    assert _locks(native_root) + _locks(claude_root) == []
    return {"locks_left": len(locks), "temps_left": len(temps)}


def _trials(tmp_path: Path, n: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    native_root, claude_root = tmp_path / "native", tmp_path / "claude"
    import shutil

    shutil.copytree(EXAMPLES / "native", native_root)
    shutil.copytree(EXAMPLES / "claude", claude_root)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    totals = {"trials": 0, "locks_left": 0, "trials_with_lock_left": 0, "temps_left": 0, "cli_process_kills": 0}
    for i in range(n):
        ready = tmp_path / f"ready-{i}"
        if i % 10 == 9:
            # A real `teamtui` CLI process, killed at a random moment of its life.
            cmd = rng.choice(
                [
                    ["send", "hunter", "hi"],
                    ["task", "create", "t"],
                    ["task", "claim", "--as", "scout"],
                    ["team", "add", f"cli{i}"],
                    ["task", "complete", "1"],
                ]
            )
            proc = subprocess.Popen(
                [sys.executable, "-m", "teamtui", *cmd, "--root", str(native_root)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(rng.uniform(0.1, 0.4))
            totals["cli_process_kills"] += 1
        else:
            proc = subprocess.Popen(
                [sys.executable, str(WORKER), str(native_root), str(claude_root), str(ready), str(seed * 1000 + i)],
                env=env,
            )
            while not ready.exists():
                assert proc.poll() is None, "worker died before it was ready"
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        figures = _verify(native_root, claude_root)
        totals["trials"] += 1
        totals["locks_left"] += figures["locks_left"]
        totals["trials_with_lock_left"] += bool(figures["locks_left"])
        totals["temps_left"] += figures["temps_left"]
        for p in [*native_root.rglob("*.tmp"), *claude_root.rglob("*.tmp")]:
            p.unlink()  # count each leftover once
    print(f"crash safety: {totals}")
    return totals


def test_sigkill_while_writing_10_trials(tmp_path: Path) -> None:
    totals = _trials(tmp_path, 10, seed=7)
    assert totals["trials"] == 10


@pytest.mark.stress
def test_sigkill_while_writing_100_trials(tmp_path: Path) -> None:
    totals = _trials(tmp_path, 100, seed=11)
    assert totals["trials"] == 100
