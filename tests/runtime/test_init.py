"""`teamtui init` and the repository profile, on small repositories the tests build with git."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from teamtui.runtime.profile import MAX_SCANNED_FILES, profile_repository, todo_severity
from teamtui.runtime.teamfile import load_team_file

from .helpers import run_cmd, tasks_on_disk


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def repo(path: Path, files: dict[str, str], *, untracked: dict[str, str] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    for rel, text in (untracked or {}).items():
        (path / rel).write_text(text)
    return path


PYTHON_REPO = {
    "pyproject.toml": "[project]\nname = 'x'\n",
    "src/app.py": "def f():\n    pass  # TODO: handle errors\n# FIXME later\n",
    "src/util.py": "x = 1  # HACK\n",
    "tests/test_app.py": "def test_f():\n    assert True\n",
    "docs/index.md": "# x  TODO in docs is not source\n",
    ".github/workflows/ci.yml": "on: push\n",
    "README.md": "TODO not a source file\n",
}


def test_a_python_repository_is_profiled(tmp_path):
    root = repo(tmp_path / "py", PYTHON_REPO, untracked={"scratch.py": "# TODO untracked\n"})
    p = profile_repository(root)
    assert p.languages == ["Python"] and p.frameworks == []
    assert p.docs and p.test_dirs == ["tests"] and p.ci == [".github/workflows"]
    assert p.git and p.files_scanned == 3  # tracked .py files only
    assert p.markers == {"TODO": 1, "FIXME": 1, "HACK": 1, "XXX": 0}
    todo = p.todo
    assert todo is not None and todo.count == 3 and todo.severity == "low"
    assert sorted(todo.locations) == ["src/app.py:2", "src/app.py:3", "src/util.py:1"]
    assert [s.kind for s in p.signals] == ["todo"]


def test_a_node_repository_names_its_frameworks_and_what_is_missing(tmp_path):
    manifest = {
        "dependencies": {"react": "^18", "express": "4"},
        "devDependencies": {"vitest": "1", "jest": "29", "left-pad": "1"},
    }
    root = repo(
        tmp_path / "js",
        {"package.json": json.dumps(manifest), "tsconfig.json": "{}", "Cargo.toml": "", "index.ts": "let a = 1\n"},
    )
    p = profile_repository(root)
    assert p.languages == ["TypeScript", "Rust"]
    assert p.frameworks == ["React", "Express", "Vitest", "Jest"]
    assert not p.docs and p.test_dirs == [] and p.ci == []
    assert [(s.kind, s.severity) for s in p.signals] == [("missing-docs", "medium"), ("missing-tests", "medium")]
    assert p.todo is None


def test_at_most_200_tracked_files_are_scanned_and_10_locations_kept(tmp_path):
    files = {f"src/m{i:03}.py": "# TODO one\n" for i in range(250)}
    p = profile_repository(repo(tmp_path / "big", files))
    assert p.files_scanned == MAX_SCANNED_FILES
    assert p.todo is not None and p.todo.count == 200 and p.todo.severity == "high"
    assert len(p.todo.locations) == 10
    assert [todo_severity(n) for n in (0, 5, 6, 20, 21)] == ["low", "low", "medium", "medium", "high"]


def test_bad_input_is_noted_not_fatal(tmp_path):
    secret = tmp_path / "secret.py"
    secret.write_text("# TODO outside the repository\n" * 5)
    root = repo(tmp_path / "odd", {"package.json": "{ not json", "a.py": "ok = 1\n"})
    os.symlink(secret, root / "link.py")
    git(root, "add", "link.py")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "link")
    p = profile_repository(root)
    assert p.frameworks == [] and any("package.json could not be read" in n for n in p.notes)
    assert p.todo is None  # the tracked symlink was not followed out of the repository


def test_init_prints_the_profile_and_writes_a_team_file_that_loads(tmp_path):
    root = repo(tmp_path / "py", {**PYTHON_REPO, "src/weird\x1b[31m.py": "# XXX red\n"})
    res = run_cmd(["init", str(root)])
    assert res.returncode == 0, res.stderr
    assert f"Profile of {root}" in res.stdout
    assert "  languages   Python" in res.stdout
    assert "  markers     4 in 4 tracked source files: TODO 1, FIXME 1, HACK 1, XXX 1 (low)" in res.stdout
    assert "\x1b" not in res.stdout and "weird\\x1b[31m.py:1" in res.stdout
    text = (root / "team.toml").read_text()
    assert text.startswith("# team.toml, written by `teamtui init`")
    tf = load_team_file(root / "team.toml")
    assert tf.team.name == "py"
    assert {t.protocol for t in tf.teammates} == {"per-task"}
    assert all(t.command.startswith("claude -p ") for t in tf.teammates)
    subjects = [t.subject for t in tf.tasks]
    assert subjects == ["Resolve the 4 TODO/FIXME/HACK/XXX markers", "Review the changes"]
    assert "src/weird\x1b[31m.py" in tf.tasks[0].files  # kept as data, written as a valid TOML string
    assert tf.tasks[-1].blocked_by == [1]


def test_init_on_a_bare_folder_suggests_the_missing_pieces(tmp_path):
    root = tmp_path / "bare"
    root.mkdir()
    (root / "go.mod").write_text("module x\n")
    res = run_cmd(["init", str(root), "--json"])
    assert res.returncode == 0, res.stderr
    profile = json.loads(res.stdout)
    assert profile["languages"] == ["Go"] and profile["git"] is False
    assert "not a git repository" in profile["notes"][0]
    tf = load_team_file(root / "team.toml")
    assert [t.subject for t in tf.tasks] == [
        "Set up a test suite",
        "Write docs/",
        "Add CI that runs the tests",
        "Review the changes",
    ]
    assert "go test" in tf.tasks[0].description
    assert tf.tasks[2].blocked_by == [1] and tf.tasks[3].blocked_by == [1, 2, 3]
    assert "worktree" not in (root / "team.toml").read_text()


def test_init_never_overwrites_a_team_file(tmp_path):
    root = repo(tmp_path / "py", PYTHON_REPO)
    (root / "team.toml").write_text("# mine\n")
    res = run_cmd(["init", str(root)])
    assert res.returncode == 1
    assert "team.toml exists: not overwritten" in res.stderr
    assert (root / "team.toml").read_text() == "# mine\n"
    # Nor through a dangling symlink planted where it would go.
    other = tmp_path / "other"
    other.mkdir()
    (other / "team.toml").symlink_to(tmp_path / "elsewhere.toml")
    res = run_cmd(["init", str(other)])
    assert res.returncode == 1 and not (tmp_path / "elsewhere.toml").exists()


def test_init_on_a_missing_folder_is_an_error(tmp_path):
    res = run_cmd(["init", str(tmp_path / "nope")])
    assert res.returncode == 1 and res.stderr == f"teamtui: no such folder: {tmp_path / 'nope'}\n"


def test_the_written_team_file_runs_its_per_task_claude_teammates(tmp_path):
    root = repo(tmp_path / "py", PYTHON_REPO)
    assert run_cmd(["init", str(root)]).returncode == 0
    # A stand-in for `claude` on PATH: it prints the prompt it was given and succeeds.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text('#!/bin/sh\n[ "$1" = -p ] || exit 9\necho "claude was asked: $2"\n')
    fake.chmod(0o755)
    res = run_cmd(["run", str(root / "team.toml"), "--headless"], PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert res.returncode == 0, res.stdout + res.stderr
    done = {t["subject"]: t["result"] for t in tasks_on_disk(root).values()}
    assert done == {
        "Resolve the 3 TODO/FIXME/HACK/XXX markers": "claude was asked: Task #1: Resolve the 3 TODO/FIXME/HACK/XXX markers. "
        "Fix or file each marker, starting with: src/app.py:2, src/app.py:3, src/util.py:1",
        "Review the changes": "claude was asked: Task #2: Review the changes. "
        "Read every change the team made, run the tests, list what must be fixed.",
    }
