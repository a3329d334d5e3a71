"""A git worktree per teammate, so parallel teammates never edit one checkout.

Teammate `name` of team `team` works in `.teamtui/worktrees/<name>` on branch
`teamtui/<team>/<name>`. At the end a clean worktree is removed (its branch too, unless it
holds commits of its own) and a dirty one is kept, so no work is ever thrown away.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.fsio import ensure_dir, ensure_inside
from teamtui.protocol.names import check_name

WORKTREES_DIR = Path(".teamtui") / "worktrees"
GIT_TIMEOUT = 60.0
# Variables a git hook or wrapper may have set that would point our git at another repository.
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX")


class WorktreeError(Exception):
    """Why a teammate cannot have its worktree (not a git repository, a bad name, git failed)."""


@dataclass(frozen=True, slots=True)
class Worktree:
    name: str
    repo: Path  # the main checkout's top level
    path: Path
    branch: str
    base: str  # the commit it started from

    def map(self, path: Path) -> Path:
        """Where `path` (inside the main checkout) is in this worktree; outside paths stay as they are."""
        try:
            rel = Path(path).resolve().relative_to(self.repo)
        except ValueError:
            return Path(path)
        return self.path / rel


@dataclass(frozen=True, slots=True)
class Ending:
    """What became of a worktree at the end of the run."""

    worktree: Worktree
    removed: bool
    branch_kept: bool
    detail: str  # for the summary: why it was kept, or what is left of it

    def describe(self) -> str:
        w = self.worktree
        if not self.removed:
            return f"{w.name}: kept {w.path} (branch {w.branch}): {self.detail}"
        if self.branch_kept:
            return f"{w.name}: worktree removed, branch {w.branch} kept: {self.detail}"
        return f"{w.name}: worktree removed (clean, no commits)"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        res = subprocess.run(
            ["git", *args],
            cwd=str(cwd),
            env=_env(),
            capture_output=True,
            text=True,
            errors="surrogateescape",  # a file name that is not UTF-8 is kept as the OS has it, not a crash
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise WorktreeError("git is not installed: worktree = true needs it") from None
    except subprocess.TimeoutExpired:
        raise WorktreeError(f"git {' '.join(args[:2])} took more than {GIT_TIMEOUT:g}s in {cwd}") from None
    if check and res.returncode != 0:
        msg = (res.stderr or res.stdout).strip().splitlines()
        raise WorktreeError(
            f"git {' '.join(args[:2])} failed in {cwd}: {msg[-1] if msg else f'exit code {res.returncode}'}"
        )
    return res


def repo_root(path: Path) -> Path:
    """The top level of the git checkout holding `path`; a clear error when there is none."""
    path = Path(path)
    if not path.is_dir():
        raise WorktreeError(f"{path} is not a directory")
    res = git(path, "rev-parse", "--show-toplevel", check=False)
    if res.returncode != 0:
        raise WorktreeError(
            f"{path.resolve()} is not in a git repository: worktree = true needs one (run `git init`, or drop worktree)"
        )
    top = Path(res.stdout.strip()).resolve()
    if git(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).returncode != 0:
        raise WorktreeError(f"the git repository {top} has no commits yet: a worktree needs one to start from")
    return top


def branch_for(team: str, name: str) -> str:
    """`teamtui/<team>/<name>`, refused unless both are safe names and git takes it as a branch."""
    try:
        check_name(team, "team name")
        check_name(name, "teammate name")
    except ProtocolError as exc:
        raise WorktreeError(str(exc)) from None
    branch = f"teamtui/{team}/{name}"
    if name.endswith(".lock") or team.endswith(".lock") or ".." in branch or branch.endswith("."):
        raise WorktreeError(f"{branch!r} is not a valid git branch name")
    return branch


def worktree_path(repo: Path, name: str) -> Path:
    try:
        check_name(name, "teammate name")
    except ProtocolError as exc:
        raise WorktreeError(str(exc)) from None
    return repo / WORKTREES_DIR / name


def add(repo: Path, team: str, name: str) -> Worktree:
    """Create (or, after a restart, reuse) teammate `name`'s worktree in the checkout `repo`."""
    repo = repo_root(repo)
    branch = branch_for(team, name)
    path = worktree_path(repo, name)
    home = repo / WORKTREES_DIR.parts[0]
    try:
        ensure_dir(path.parent, repo)
        ensure_inside(path, repo)
    except (ProtocolError, OSError) as exc:
        raise WorktreeError(f"cannot make {path.parent}: {exc}") from None
    # The main checkout should not list the worktrees as untracked files.
    ignore = home / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "worktree", "prune")  # a worktree deleted by hand still holds its branch until pruned
    current = _registered(repo).get(path)
    if current is not None:
        if current != f"refs/heads/{branch}":
            raise WorktreeError(f"{path} is a worktree on {current or 'a detached HEAD'}, not on {branch}")
        return Worktree(name, repo, path, branch, _fork_point(repo, branch, base))
    if path.exists():
        raise WorktreeError(f"{path} exists and is not a git worktree: move it away first")
    if git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False).returncode == 0:
        git(repo, "worktree", "add", str(path), branch)
        return Worktree(name, repo, path, branch, _fork_point(repo, branch, base))
    git(repo, "worktree", "add", "-b", branch, str(path), base)
    return Worktree(name, repo, path, branch, base)


def _registered(repo: Path) -> dict[Path, str]:
    """The checkout's worktrees: path → the ref checked out there ('' when detached)."""
    out: dict[Path, str] = {}
    path: Path | None = None
    for line in git(repo, "worktree", "list", "--porcelain").stdout.splitlines():
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :]).resolve()
            out[path] = ""
        elif line.startswith("branch ") and path is not None:
            out[path] = line[len("branch ") :]
    return out


def _fork_point(repo: Path, branch: str, head: str) -> str:
    res = git(repo, "merge-base", head, branch, check=False)
    return res.stdout.strip() if res.returncode == 0 else head


def dirty(wt: Worktree) -> list[str]:
    """`git status --porcelain` lines of the worktree (untracked files count): empty when clean."""
    if not wt.path.is_dir():
        return []
    return git(wt.path, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()


def finish(wt: Worktree) -> Ending:
    """At the end of the run: remove a clean worktree, keep a dirty one; never lose a commit."""
    if not wt.path.is_dir():
        git(wt.repo, "worktree", "prune")
        return Ending(wt, removed=True, branch_kept=True, detail="its folder was already gone")
    changes = dirty(wt)
    if changes:
        n = len(changes)
        return Ending(wt, removed=False, branch_kept=True, detail=f"{n} uncommitted change{'s' if n != 1 else ''}")
    git(wt.repo, "worktree", "remove", str(wt.path))
    ahead = git(wt.repo, "rev-list", "--count", f"{wt.base}..refs/heads/{wt.branch}", check=False)
    commits = int(ahead.stdout.strip() or 0) if ahead.returncode == 0 else 0
    if commits == 0 and ahead.returncode == 0:
        git(wt.repo, "branch", "-D", wt.branch, check=False)
        return Ending(wt, removed=True, branch_kept=False, detail="")
    return Ending(
        wt, removed=True, branch_kept=True, detail=f"{commits} commit{'s' if commits != 1 else ''} of its own"
    )


__all__ = ["Ending", "Worktree", "WorktreeError", "add", "branch_for", "dirty", "finish", "repo_root", "worktree_path"]
