"""A git worktree per teammate, on real git repositories the tests build."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from teamtui.runtime import worktrees
from teamtui.runtime.worktrees import WorktreeError


def sh_git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    sh_git(path, "init", "-q", "-b", "main")
    sh_git(path, "config", "user.email", "t@example.com")
    sh_git(path, "config", "user.name", "t")
    (path / "app.py").write_text("print('hi')\n")
    (path / "sub").mkdir()
    (path / "sub" / "x.txt").write_text("x\n")
    sh_git(path, "add", "-A")
    sh_git(path, "commit", "-qm", "init")
    return path


def branches(repo: Path) -> list[str]:
    return sh_git(repo, "branch", "--format=%(refname:short)").split()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def test_each_teammate_gets_a_worktree_on_its_own_branch(repo):
    a = worktrees.add(repo, "refactor", "ada")
    b = worktrees.add(repo / "sub", "refactor", "bob")  # from a subfolder: the checkout's top level
    assert a.path == repo.resolve() / ".teamtui" / "worktrees" / "ada"
    assert a.branch == "teamtui/refactor/ada" and b.branch == "teamtui/refactor/bob"
    assert (a.path / "app.py").read_text() == "print('hi')\n"
    assert sh_git(a.path, "rev-parse", "--abbrev-ref", "HEAD").strip() == "teamtui/refactor/ada"
    assert a.base == sh_git(repo, "rev-parse", "HEAD").strip()
    assert set(branches(repo)) == {"main", "teamtui/refactor/ada", "teamtui/refactor/bob"}
    # A teammate's cwd inside the checkout maps into its worktree.
    assert b.map(repo / "sub") == b.path / "sub"
    assert b.map(Path("/elsewhere")) == Path("/elsewhere")
    # The main checkout stays clean: the worktrees are not untracked files there.
    assert sh_git(repo, "status", "--porcelain") == ""
    # Work in one does not show in the other.
    (a.path / "app.py").write_text("changed\n")
    assert (b.path / "app.py").read_text() == "print('hi')\n"


def test_a_clean_worktree_is_removed_with_its_unused_branch(repo):
    wt = worktrees.add(repo, "t", "ada")
    end = worktrees.finish(wt)
    assert end.removed and not end.branch_kept
    assert not wt.path.exists()
    assert branches(repo) == ["main"]
    assert end.describe() == "ada: worktree removed (clean, no commits)"


def test_a_dirty_worktree_is_kept_and_reported_with_its_branch(repo):
    wt = worktrees.add(repo, "t", "ada")
    (wt.path / "new.py").write_text("x = 1\n")
    (wt.path / "app.py").write_text("changed\n")
    end = worktrees.finish(wt)
    assert not end.removed
    assert (wt.path / "new.py").read_text() == "x = 1\n"
    assert end.describe() == f"ada: kept {wt.path} (branch teamtui/t/ada): 2 uncommitted changes"
    assert "teamtui/t/ada" in branches(repo)


def test_committed_work_keeps_the_branch_when_the_worktree_goes(repo):
    wt = worktrees.add(repo, "t", "ada")
    (wt.path / "feature.py").write_text("y = 2\n")
    sh_git(wt.path, "add", "feature.py")
    sh_git(wt.path, "commit", "-qm", "feature")
    end = worktrees.finish(wt)
    assert end.removed and end.branch_kept
    assert not wt.path.exists()
    assert sh_git(repo, "show", "teamtui/t/ada:feature.py") == "y = 2\n"
    assert end.describe() == "ada: worktree removed, branch teamtui/t/ada kept: 1 commit of its own"


def test_a_restarted_teammate_gets_its_worktree_back(repo):
    first = worktrees.add(repo, "t", "ada")
    (first.path / "wip.txt").write_text("half done\n")
    again = worktrees.add(repo, "t", "ada")
    assert again.path == first.path and (again.path / "wip.txt").read_text() == "half done\n"
    # Deleted by hand, the branch left behind: the branch is checked out there again.
    (first.path / "wip.txt").unlink()
    subprocess.run(["rm", "-rf", str(first.path)], check=True)
    third = worktrees.add(repo, "t", "ada")
    assert third.path.is_dir() and (third.path / "app.py").exists()


def test_not_a_git_repository_is_a_clear_error(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(WorktreeError, match="is not in a git repository: worktree = true needs one"):
        worktrees.add(plain, "t", "ada")
    assert list(plain.iterdir()) == []
    empty = tmp_path / "empty"
    empty.mkdir()
    sh_git(empty, "init", "-q")
    with pytest.raises(WorktreeError, match="has no commits yet"):
        worktrees.repo_root(empty)


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".hidden", "-rf", "x.lock", "a..b", ""])
def test_hostile_names_create_nothing(repo, tmp_path, name):
    with pytest.raises(WorktreeError):
        worktrees.add(repo, "t", name)
    with pytest.raises(WorktreeError):
        worktrees.add(repo, name, "ada")
    assert branches(repo) == ["main"]
    assert not (repo / ".teamtui" / "worktrees").exists() or list((repo / ".teamtui" / "worktrees").iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_a_symlink_out_of_the_checkout_is_refused(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / ".teamtui").symlink_to(outside)
    with pytest.raises(WorktreeError, match="outside"):
        worktrees.add(repo, "t", "ada")
    assert list(outside.iterdir()) == []


def test_a_folder_in_the_way_is_not_overwritten(repo):
    path = repo / ".teamtui" / "worktrees" / "ada"
    path.mkdir(parents=True)
    (path / "notes.txt").write_text("mine\n")
    with pytest.raises(WorktreeError, match="exists and is not a git worktree"):
        worktrees.add(repo, "t", "ada")
    assert (path / "notes.txt").read_text() == "mine\n"


# ------------------------------------------------------------------ the team's worktrees
def teamfile(base: Path, body: str):
    from teamtui.runtime.teamfile import load_team_file

    path = base / "team.toml"
    path.write_text('[team]\nname = "t"\n' + body)
    return load_team_file(path)


def test_the_team_makes_worktrees_on_first_start_and_settles_them_at_the_end(repo):
    from teamtui.runtime.protocols import Worktrees

    (repo / "sub").mkdir(exist_ok=True)
    tf = teamfile(
        repo,
        'worktree = true\n[[teammates]]\nname = "ada"\ncommand = "x"\ncwd = "sub"\n[[teammates]]\nname = "bob"\ncommand = "x"\nworktree = false\n',
    )
    wts = Worktrees(tf, "t")
    assert wts.problem() == ""
    ada, bob = tf.teammates
    assert wts.cwd(bob) == repo.resolve()
    assert wts.cwd(ada) == repo.resolve() / ".teamtui/worktrees/ada/sub"
    assert wts.cwd(ada) == repo.resolve() / ".teamtui/worktrees/ada/sub"  # a restart: the same one
    (repo / ".teamtui/worktrees/ada/sub/x.txt").write_text("changed\n")
    [end] = wts.finish()
    assert not end.removed and "teamtui/t/ada" in end.describe()


def test_a_team_outside_git_is_refused_before_anything_starts(tmp_path):
    from teamtui.runtime.protocols import Worktrees

    tf = teamfile(tmp_path, '[[teammates]]\nname = "ada"\ncommand = "x"\nworktree = true\n')
    assert "is not in a git repository: worktree = true needs one" in Worktrees(tf, "t").problem()
    tf = teamfile(tmp_path, '[[teammates]]\nname = "ada"\ncommand = "x"\n')
    assert Worktrees(tf, "t").problem() == ""  # no worktree asked for: no git needed
