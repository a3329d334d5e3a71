"""A team of shell teammates (the README's script, calling only the CLI) run by `teamtui run
--headless` under `assign = "lead"`: every task completes through idle notifications and
assignments, and the graceful shutdown reports the pending work one of them leaves."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

from tests.runtime.helpers import env_for_run, processes_of, tasks_on_disk

REPO = Path(__file__).resolve().parents[1]


def readme_shell_teammate() -> str:
    text = (REPO / "README.md").read_text()
    section = text[text.index("### A teammate in shell") :]
    m = re.search(r"```sh\n(#!/bin/sh\n.*?)```", section, re.S)
    assert m, "the README's shell teammate"
    return m.group(1)


def test_shell_teammates_complete_a_lead_assigned_team_and_shut_down_gracefully(tmp_path: Path) -> None:
    script = tmp_path / "teammate.sh"
    script.write_text(readme_shell_teammate())
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "team.toml").write_text(
        f"""
[team]
name = "shell-team"
assign = "lead"
poll_interval = 0.2
shutdown_deadline = 20
shutdown_grace = 2

[[teammates]]
name = "sh-1"
command = "{script}"

[[teammates]]
name = "sh-2"
command = "{script}"
env = {{ LEFT_OVER = "changelog entry not written" }}

[[tasks]]
subject = "parse"

[[tasks]]
subject = "check"
blocked_by = [1]

[[tasks]]
subject = "docs"

[[tasks]]
subject = "ship"
blocked_by = [2, 3]
"""
    )
    res = subprocess.run(
        [sys.executable, "-m", "teamtui", "run", str(tmp_path / "team.toml"), "--headless"],
        capture_output=True,
        text=True,
        timeout=240,
        env=env_for_run(),
        cwd=REPO,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    tasks = tasks_on_disk(tmp_path)
    assert len(tasks) == 4
    for t in tasks.values():
        assert t["status"] == "completed", t
        # `task complete --result` from the shell: the result reached the task.
        assert t["result"] == f"done by {t['owner']}", t
    assert "all 4 tasks completed" in res.stdout
    # Every assignment came from the lead (the script never claims): one line per task.
    assert len(re.findall(r"#\d \w+ → sh-\d", res.stdout)) >= 4
    # The graceful shutdown: sh-2's reply (no request_id, as the script sends it) carried its pending work.
    assert (
        "sh-2 answered the shutdown request: left work unfinished, pending: changelog entry not written" in res.stdout
    )
    assert "sh-1 answered the shutdown request: clean" in res.stdout
    results = [json.loads(p.read_text()) for p in (tmp_path / ".teams/shell-team/shutdown").glob("*.json")]
    by_name = {r["teammate"]: r for r in results}
    assert by_name["sh-2"]["outcome"] == "in progress"
    assert by_name["sh-2"]["pending_work"] == ["changelog entry not written"]
    assert by_name["sh-1"]["outcome"] == "clean" and by_name["sh-1"]["artifacts_committed"] is True
    # The teammates' idle notifications reached the lead (the lead drained them, the log shows the rest).
    config = json.loads((tmp_path / ".teams/shell-team/config.json").read_text())
    assert all(m["status"] == "shutdown" for m in config["members"])
    assert processes_of(tmp_path) == []
