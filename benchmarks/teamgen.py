"""Build a native-layout team on disk for the benchmarks: N teammates, T tasks, B bytes of log each."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

TEAM = "bench"


def member_name(i: int) -> str:
    return f"m{i:03d}"


def team_dir(root: Path) -> Path:
    return root / ".teams" / TEAM


def task_path(root: Path, task_id: int) -> Path:
    return root / ".tasks" / f"task_{task_id}.json"


def log_path(root: Path, member: str) -> Path:
    return team_dir(root) / "logs" / f"{member}.jsonl"


def inbox_path(root: Path, member: str) -> Path:
    return team_dir(root) / f"{member}_inbox.jsonl"


def task_dict(task_id: int, members: int, subject: str | None = None) -> dict:
    owner = member_name(task_id % members) if members else ""
    # Task 1 is the first row on the board: pending, unowned, no blockers (ready).
    if task_id == 1:
        status, owner = "pending", ""
    elif task_id % 3 == 0:
        status = "completed"
    elif task_id % 3 == 1:
        status = "in_progress"
    else:
        status, owner = "pending", ""
    return {
        "id": str(task_id),
        "subject": subject or f"Task {task_id}: refactor module {task_id % 97}",
        "description": f"Benchmark task number {task_id}.",
        "status": status,
        "active_form": f"Working on task {task_id}",
        "owner": owner,
        "blocks": [],
        "blocked_by": [],
    }


def make_team(root: Path, members: int, tasks: int, log_bytes: int = 0, inbox_lines: int = 2) -> Path:
    """Write the team under `root` and return root. Existing files are overwritten."""
    root = Path(root)
    td = team_dir(root)
    (td / "logs").mkdir(parents=True, exist_ok=True)
    (root / ".tasks").mkdir(parents=True, exist_ok=True)
    now = time.time() - 30
    config = {
        "name": TEAM,
        "created_at": now,
        "members": [
            {"name": member_name(i), "agent_id": f"{member_name(i)}@{TEAM}", "status": "active"} for i in range(members)
        ],
    }
    (td / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for t in range(1, tasks + 1):
        task_path(root, t).write_text(json.dumps(task_dict(t, members), indent=2) + "\n")
    for i in range(members):
        name = member_name(i)
        with open(inbox_path(root, name), "w") as fh:
            for k in range(inbox_lines):
                fh.write(
                    json.dumps(
                        {"type": "message", "sender": "lead", "content": f"hello {name} #{k}", "timestamp": now + k}
                    )
                    + "\n"
                )
        with open(log_path(root, name), "wb") as fh:
            if log_bytes:
                line = (json.dumps({"ts": now, "level": "info", "text": "x" * 150}) + "\n").encode()
                block = line * max(1, (1 << 20) // len(line))
                written = 0
                while written < log_bytes:
                    piece = block[: log_bytes - written]
                    fh.write(piece)
                    written += len(piece)
                # End on a line boundary, then one line that says whose log this is.
                fh.write(b"\n")
                fh.write((json.dumps({"ts": now, "level": "info", "text": f"END-{name} last line"}) + "\n").encode())
            else:
                fh.write((json.dumps({"ts": now, "level": "info", "text": f"{name} started"}) + "\n").encode())
    os.sync() if hasattr(os, "sync") else None
    return root
