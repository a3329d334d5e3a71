"""What `teamtui run` refuses before it starts anything: a teammate program that is not there,
and a folder whose one task board (the native layout's `.tasks/`) another team already uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from teamtui.runtime.preflight import program_of

from .helpers import env_for_run, run_cmd, tasks_on_disk, team_toml

# No `claude` on this PATH, whatever the machine has: the system's folders only.
BARE_PATH = "/usr/bin:/bin"


@pytest.mark.parametrize(
    "command, program",
    [
        ('claude -p "$TEAMTUI_TASK_SUBJECT" --permission-mode acceptEdits', "claude"),
        ("./scripts/check.sh {id} {subject}", "./scripts/check.sh"),
        ("FOO=1 BAR='a b' exec env -i agent --x", "agent"),
        ("nohup codex exec {description}", "codex"),
        ('exec "$TEAMTUI_PYTHON" worker.py', None),  # the shell expands it: its to say
        ("cd sub && claude -p hi", None),
        ("exit 1", None),
        ("(agent)", None),
        ("echo 'unclosed", None),
    ],
)
def test_the_program_a_command_starts(command, program):
    assert program_of(command) == program


def test_a_missing_program_stops_the_run_before_anything_starts(tmp_path):
    tf = tmp_path / "team.toml"
    commands = {
        "builder": 'claude -p "$TEAMTUI_TASK_SUBJECT" --permission-mode acceptEdits',
        "reviewer": "claude -p review",
        "checker": "./scripts/check.sh {id}",
        "writer": "echo fine",
    }
    tf.write_text(team_toml("auth", teammates=list(commands), tasks=[("x", [])], commands=commands))
    res = run_cmd(["run", str(tf), "--headless"], PATH=BARE_PATH)
    assert res.returncode == 1, res.stdout + res.stderr
    lines = res.stderr.splitlines()
    # One line per missing program, naming who runs it; then that the team did not start.
    assert lines == [
        "teamtui: claude (teammates builder, reviewer) is not on PATH",
        f"teamtui: ./scripts/check.sh (teammate checker) does not exist in {tmp_path}",
        "teamtui: team 'auth' not started: install them, or correct the command in the team file",
    ]
    assert res.stdout == ""
    assert not (tmp_path / ".teams").exists() and not (tmp_path / ".tasks").exists()


def test_a_program_is_looked_up_as_the_teammate_will_find_it(tmp_path):
    # On the PATH the teammate's own env sets, and a relative path from the teammate's cwd.
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "agent-x").write_text("#!/bin/sh\necho did it\n")
    (tools / "agent-x").chmod(0o755)
    work = tmp_path / "work"
    (work / "bin").mkdir(parents=True)
    (work / "bin" / "check").write_text("#!/bin/sh\necho checked\n")
    (work / "bin" / "check").chmod(0o755)
    tf = tmp_path / "team.toml"
    tf.write_text(
        '[team]\nname = "found"\npoll_interval = 0.05\nshutdown_deadline = 3\n'
        '[[teammates]]\nname = "a"\nprotocol = "per-task"\ncommand = "agent-x {id}"\n'
        f"env = {{ PATH = {json.dumps(f'{tools}:{BARE_PATH}')} }}\n"
        '[[teammates]]\nname = "b"\nprotocol = "per-task"\ncommand = "./bin/check {id}"\ncwd = "work"\n'
        '[[tasks]]\nsubject = "one"\n[[tasks]]\nsubject = "two"\n'
    )
    res = run_cmd(["run", str(tf), "--headless"], PATH=BARE_PATH)
    assert res.returncode == 0, res.stdout + res.stderr
    assert {t["status"] for t in tasks_on_disk(tmp_path).values()} == {"completed"}


def test_a_program_that_is_not_executable_is_said(tmp_path):
    (tmp_path / "agent.sh").write_text("echo hi\n")
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("noexec", teammates=["a"], tasks=[("x", [])], commands={"a": "./agent.sh"}))
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 1
    assert res.stderr.splitlines()[0] == "teamtui: ./agent.sh (teammate a) is not executable"


def test_a_second_team_in_one_folder_is_refused_and_runs_in_its_own(tmp_path):
    alpha, beta = tmp_path / "alpha.toml", tmp_path / "beta.toml"
    alpha.write_text(team_toml("alpha", teammates=["a"], tasks=[("alpha's task", [])]))
    beta.write_text(team_toml("beta", teammates=["b"], tasks=[("beta's task", [])]))
    assert run_cmd(["run", str(alpha), "--headless"], WORK="0").returncode == 0
    res = run_cmd(["run", str(beta), "--headless"], WORK="0")
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stderr == (
        f"teamtui: {tmp_path} already holds team 'alpha', and every team in one folder shares its task board "
        "(.tasks/, as the native layout has it): 'beta' would see and work its tasks; give it a folder of its "
        "own (--root DIR), or remove .teams/alpha and .tasks/ once done with them\n"
    )
    assert sorted(os.listdir(tmp_path / ".teams")) == ["alpha"]
    assert [t["subject"] for t in tasks_on_disk(tmp_path).values()] == ["alpha's task"]
    # In a folder of its own, beta's board holds beta's task alone.
    own = tmp_path / "beta-root"
    own.mkdir()
    res = run_cmd(["run", str(beta), "--headless", "--root", str(own)], WORK="0")
    assert res.returncode == 0, res.stdout + res.stderr
    assert [t["subject"] for t in tasks_on_disk(own).values()] == ["beta's task"]
    assert [t["subject"] for t in tasks_on_disk(tmp_path).values()] == ["alpha's task"]


def test_a_demo_is_refused_a_folder_another_team_uses(tmp_path):
    alpha = tmp_path / "alpha.toml"
    alpha.write_text(team_toml("alpha", teammates=["a"], tasks=[("alpha's task", [])]))
    assert run_cmd(["run", str(alpha), "--headless"], WORK="0").returncode == 0
    res = run_cmd(["demo", "--headless", "--dir", str(tmp_path)])
    assert res.returncode == 1
    assert "already holds team 'alpha'" in res.stderr and "pass another --dir, or none for a fresh folder" in res.stderr
    assert sorted(os.listdir(tmp_path / ".teams")) == ["alpha"]


def test_a_relative_root_of_its_own_runs_the_team_to_the_end(tmp_path):
    # As the refusal above suggests: `--root DIR` with DIR relative to where teamtui runs.
    beta = tmp_path / "beta.toml"
    beta.write_text(team_toml("beta", teammates=["b"], tasks=[("beta's task", [])]))
    (tmp_path / "own").mkdir()
    res = subprocess.run(
        [sys.executable, "-m", "teamtui", "run", str(beta), "--headless", "--root", "own"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env_for_run(WORK="0"),
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"created at {tmp_path / 'own'} with 1 task" in res.stdout
    assert [t["status"] for t in tasks_on_disk(tmp_path / "own").values()] == ["completed"]
