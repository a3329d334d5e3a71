"""Shared by the runtime tests: writing team files, running `teamtui run`, and finding leftovers."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from watchfiles import watch

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("worker.py")


def team_toml(
    name: str,
    *,
    teammates: list[str],
    tasks: list[tuple[str, list[int]]],
    settings: str = "",
    hooks: str = "",
    commands: dict[str, str] | None = None,
) -> str:
    commands = commands or {}
    defaults = "".join(
        f"{k} = {v}\n"
        for k, v in (("poll_interval", 0.05), ("shutdown_deadline", 3), ("shutdown_grace", 1))
        if f"{k} =" not in settings
    )
    out = [f'[team]\nname = "{name}"\n{defaults}{settings}']
    for t in teammates:
        cmd = commands.get(t, f'exec "$TEAMTUI_PYTHON" {WORKER}')
        out.append(f"[[teammates]]\nname = {json.dumps(t)}\ncommand = {json.dumps(cmd)}\n")
    for subject, deps in tasks:
        out.append(f"[[tasks]]\nsubject = {json.dumps(subject)}\nblocked_by = {json.dumps(deps)}\n")
    if hooks:
        out.append(f"[hooks]\n{hooks}")
    return "\n".join(out)


def env_for_run(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def run_cmd(args: list[str], *, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamtui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env_for_run(**env),
        cwd=ROOT,
    )


def start_run(teamfile: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "teamtui", "run", str(teamfile), "--headless"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for_run(**env),
        cwd=ROOT,
    )


def tasks_on_disk(root: Path) -> dict[str, dict]:
    out = {}
    for p in (root / ".tasks").glob("task_*.json"):
        task = json.loads(p.read_text())
        side_path = root / ".tasks" / ".teamtui" / f"{task['id']}.json"
        task.update(json.loads(side_path.read_text()) if side_path.exists() else {})
        out[task["id"]] = task
    return out


def processes_of(root: Path) -> list[int]:
    """Every live process started for the team under `root` (they carry TEAMTUI_ROOT in their environment)."""
    marker = f"TEAMTUI_ROOT={root.resolve()}".encode() + b"\0"
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            env = (d / "environ").read_bytes()
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in env + b"\0" and state != "Z":
            found.append(int(d.name))
    return found


def wait_until(dirs: list[Path], predicate, timeout: float = 30.0) -> None:
    """Block until `predicate()` holds, re-checking on every file change under `dirs` (no sleeping)."""
    if predicate():
        return
    deadline = time.monotonic() + timeout
    for changes in watch(*dirs, debounce=20, step=5, rust_timeout=int(timeout * 1000), yield_on_timeout=True):
        if predicate():
            return
        if not changes or time.monotonic() > deadline:  # an empty batch means watch() timed out
            break
    raise AssertionError(f"condition not reached within {timeout:g}s")


@contextmanager
def lead_with_dashboard(teamfile: Path, root: Path) -> Iterator[tuple[Any, Any, list, threading.Thread]]:
    """`teamtui run TEAMFILE`'s lead in a thread of this process, once started, and its dashboard
    (not yet running): (lead, app, [the run's outcome, once over], the thread). Stopped on the way out."""
    from teamtui.cli.run_cmds import connect_dashboard
    from teamtui.runtime.lead import Lead
    from teamtui.runtime.teamfile import load_team_file

    spec = load_team_file(teamfile)
    lead = Lead(spec, root)
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(asyncio.run(lead.run())))
    thread.start()
    try:
        assert lead.started.wait(10)
        yield lead, connect_dashboard(lead, spec, root, cursor_blink=False), outcome, thread
    finally:
        lead.stop("test over", 0)
        thread.join(30)
