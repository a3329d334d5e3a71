"""`teamtui run` with `worktree = true`: real git, real teammate processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .helpers import WORKER, processes_of, run_cmd, tasks_on_disk


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / "app.py").write_text("print('hi')\n")
    git(path, "add", "-A")
    git(path, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    return path


def team_file(root: Path) -> Path:
    worker = f'exec "$TEAMTUI_PYTHON" {WORKER}'
    tf = root / "team.toml"
    tf.write_text(
        '[team]\nname = "wt"\nworktree = true\npoll_interval = 0.05\nshutdown_deadline = 3\nshutdown_grace = 1\n'
        # ada leaves work behind in its worktree; bob leaves it clean.
        f'[[teammates]]\nname = "ada"\ncommand = {json.dumps("pwd > where.txt; " + worker)}\n'
        f'[[teammates]]\nname = "bob"\ncommand = {json.dumps(worker)}\n'
        '[[tasks]]\nsubject = "one"\n[[tasks]]\nsubject = "two"\n'
    )
    return tf


def test_each_teammate_works_in_its_worktree_and_only_the_dirty_one_is_kept(tmp_path):
    repo = make_repo(tmp_path / "repo")
    res = run_cmd(["run", str(team_file(repo)), "--headless"], WORK="0.1")
    assert res.returncode == 0, res.stdout + res.stderr
    assert all(t["status"] == "completed" for t in tasks_on_disk(repo).values())
    ada = repo / ".teamtui/worktrees/ada"
    assert (ada / "where.txt").read_text().strip() == str(ada.resolve())  # it ran in its worktree
    assert git(ada, "rev-parse", "--abbrev-ref", "HEAD").strip() == "teamtui/wt/ada"
    assert f"ada: kept {ada.resolve()} (branch teamtui/wt/ada): 1 uncommitted change" in res.stdout
    assert "bob: worktree removed (clean, no commits)" in res.stdout
    assert not (repo / ".teamtui/worktrees/bob").exists()
    assert git(repo, "branch", "--format=%(refname:short)").split() == ["main", "teamtui/wt/ada"]
    assert processes_of(repo) == []


def test_worktrees_outside_a_git_repository_stop_the_run_at_start(tmp_path):
    res = run_cmd(["run", str(team_file(tmp_path)), "--headless"])
    assert res.returncode == 1
    assert f"{tmp_path.resolve()} is not in a git repository: worktree = true needs one" in res.stdout + res.stderr
    assert not (tmp_path / ".teams/wt/logs/ada.log").exists()  # no teammate was started
    assert processes_of(tmp_path) == []
