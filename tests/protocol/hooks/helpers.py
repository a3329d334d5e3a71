"""Running the real `teamtui hook` as Claude Code does: a fresh process, the event on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import poll

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "tests" / "fixtures" / "examples" / "claude-2.1.332-hooks"


def recorded(mode: str) -> list[dict[str, Any]]:
    """The events the real Claude Code 2.1.332 gave a hook (its stdin), in order."""
    lines = (EXAMPLES / mode / "hooks.jsonl").read_text().splitlines()
    return [json.loads(line)["stdin"] for line in lines if line.strip()]


def env_for(base: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "CLAUDE_CONFIG_DIR")}
    env.update(
        HOME=str(base / "home"),
        XDG_STATE_HOME=str(base / "state"),
        XDG_CONFIG_HOME=str(base / "config"),
        **extra,
    )
    return env


def spool_of(base: Path) -> Path:
    return base / "state" / "teamtui" / "hooks"


def write_config(base: Path, text: str) -> None:
    cfg = base / "config" / "teamtui"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text(text)


def hook(env: dict[str, str], data: bytes | dict[str, Any], timeout: float = 30) -> subprocess.CompletedProcess[str]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    proc = subprocess.run(
        [sys.executable, "-m", "teamtui", "hook"], input=raw, env=env, capture_output=True, timeout=timeout
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def start_hook(env: dict[str, str], data: dict[str, Any]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamtui", "hook"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(data))
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it again
    return proc


def spool_lines(base: Path) -> list[dict[str, Any]]:
    path = spool_of(base) / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_for(check: Any, what: str, timeout: float = 20.0) -> Any:
    """Wait for a condition another process brings about (the hook writing its request)."""
    return poll(check, timeout, 0.02, lambda: AssertionError(f"timed out waiting for {what}"))
