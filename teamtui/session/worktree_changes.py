"""What each `teamtui run` teammate changed in its git worktree (runtime/worktrees.py), as git
itself says: the worktree (committed or not, untracked files too) against the commit it started
from. Slow (git processes): `read` and `diff` are for a thread; `concerns` says which watched
paths call for a new `read`, so nothing polls.

A teammate's worktree is `.teamtui/worktrees/<name>` on branch `teamtui/<team>/<name>`; they are
found through `git worktree list`, never guessed from folder names.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.edits import GIT, MAX_DIFF_LINES, Edit, FileChange, Hunk, clip_line, clip_path, count_lines
from teamtui.runtime.worktrees import WorktreeError, git

# Bytes of one diff read from git at most (the rest is cut, and said).
DIFF_BYTES = 4 * 1024 * 1024
# Bytes of an untracked file read to count its lines; a larger one is "not counted".
UNTRACKED_BYTES = 4 * 1024 * 1024
# Files listed per worktree at most.
MAX_FILES = 5000


@dataclass(frozen=True, slots=True)
class Worktree:
    member: str
    path: Path
    branch: str
    base: str  # the commit it is compared with: where it left the main checkout


@dataclass
class GitRead:
    """What one `read` found: each teammate's worktree and its files."""

    worktrees: dict[str, Worktree] = field(default_factory=dict)
    files: dict[str, list[FileChange]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    repo: Path | None = None


def _lines(text: str) -> list[str]:
    return text.splitlines()


def find_worktrees(root: Path, team: str) -> tuple[Path | None, dict[str, Worktree]]:
    """The checkout holding `root`, and the worktrees of `team`'s teammates in it (by member)."""
    res = git(root, "rev-parse", "--show-toplevel", check=False)
    if res.returncode != 0:
        return None, {}
    repo = Path(res.stdout.strip())
    head = git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
    prefix = f"refs/heads/teamtui/{team}/"
    found: dict[str, Worktree] = {}
    path: Path | None = None
    for line in _lines(git(repo, "worktree", "list", "--porcelain").stdout):
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :])
        elif line.startswith("branch ") and path is not None and line[len("branch ") :].startswith(prefix):
            branch = line[len("branch ") :]
            member = branch[len(prefix) :]
            if not member or "/" in member:
                continue
            base = git(repo, "merge-base", head, branch, check=False).stdout.strip() if head else ""
            found[member] = Worktree(member, path, branch[len("refs/heads/") :], base or head)
    return repo, found


def _untracked_lines(path: Path) -> int | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(UNTRACKED_BYTES + 1)
    except OSError:
        return None
    if len(data) > UNTRACKED_BYTES or b"\x00" in data:
        return None
    return count_lines(data.decode("utf-8", "replace"))


def worktree_files(wt: Worktree, repo: Path) -> list[FileChange]:
    """`git diff --numstat` of the worktree against its base, and its untracked files (all added)."""
    out: list[FileChange] = []
    stat = git(wt.path, "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", wt.base, check=False)
    for entry in stat.stdout.split("\0"):
        parts = entry.split("\t", 2)
        if len(parts) != 3 or not parts[2]:
            continue
        added, removed, rel = parts
        fc = FileChange(wt.member, clip_path(rel), GIT, why=wt.branch, real=str(wt.path / rel), edits=1)
        if added == "-" or removed == "-":
            fc.unknown = True  # binary: git counts no lines
        else:
            fc.added, fc.removed = int(added), int(removed)
        out.append(fc)
    others = git(wt.path, "ls-files", "--others", "--exclude-standard", "-z", check=False)
    for rel in others.stdout.split("\0"):
        if not rel or len(out) >= MAX_FILES:
            continue
        lines = _untracked_lines(wt.path / rel)
        fc = FileChange(wt.member, clip_path(rel), GIT, why=wt.branch, real=str(wt.path / rel), edits=1, created=True)
        if lines is None:
            fc.unknown = True
        else:
            fc.added = lines
        out.append(fc)
    return out[:MAX_FILES]


def read(root: Path, team: str) -> GitRead:
    """Every teammate's worktree of `team` and what changed in it. Slow: for a thread."""
    got = GitRead()
    try:
        got.repo, got.worktrees = find_worktrees(root, team)
        for member, wt in got.worktrees.items():
            if wt.path.is_dir():
                got.files[member] = worktree_files(wt, got.repo or root)
    except (WorktreeError, OSError) as exc:
        got.problems.append(str(exc))
    return got


@dataclass
class ParsedDiff:
    hunks: tuple[Hunk, ...] = ()
    cut: int = 0  # diff lines not kept
    binary: bool = False
    added: int = 0  # every line, kept or not
    removed: int = 0


def parse_diff(text: str) -> ParsedDiff:
    """A unified diff's hunks (kept up to MAX_DIFF_LINES lines), its counts, and whether git called
    it binary."""
    hunks: list[Hunk] = []
    current: list[str] = []
    header: tuple[int, int, int, int] | None = None
    kept = cut = added = removed = 0

    def close() -> None:
        if header is not None:
            hunks.append(Hunk(*header, tuple(current)))

    for line in text.split("\n"):
        if line.startswith("Binary files "):
            return ParsedDiff(binary=True)
        if line.startswith("@@ "):
            close()
            current = []
            header = _header(line)
        elif header is not None and line[:1] in (" ", "-", "+"):
            added += line[0] == "+"
            removed += line[0] == "-"
            if kept < MAX_DIFF_LINES:
                current.append(clip_line(line))
                kept += 1
            else:
                cut += 1
    close()
    return ParsedDiff(tuple(hunks), cut, False, added, removed)


def _header(line: str) -> tuple[int, int, int, int]:
    def pair(part: str) -> tuple[int, int]:
        start, _, n = part[1:].partition(",")
        try:
            return int(start), int(n) if n else 1
        except ValueError:
            return 0, 0

    parts = line.split(" ")
    old = pair(parts[1]) if len(parts) > 1 else (0, 0)
    new = pair(parts[2]) if len(parts) > 2 else (0, 0)
    return (*old, *new)


def _bounded_git(cwd: Path, *args: str) -> tuple[str, bool]:
    """git's stdout up to DIFF_BYTES (and whether it was cut): a huge diff is never read whole."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.Popen(
        ["git", *args],
        cwd=str(cwd),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    data = proc.stdout.read(DIFF_BYTES + 1)
    cut = len(data) > DIFF_BYTES
    if cut:
        proc.kill()
    proc.stdout.close()
    proc.wait()
    return data[:DIFF_BYTES].decode("utf-8", "replace"), cut


def diff(wt: Worktree, rel: str, created: bool = False) -> Edit:
    """The worktree's change to `rel` against its base, as one edit. Slow: for a thread."""
    try:
        mtime: float | None = (wt.path / rel).stat().st_mtime
    except OSError:
        mtime = None
    if created:  # untracked: git diff says nothing of it; the file is all added
        text, cut = _bounded_git(wt.path, "diff", "--no-index", "--no-color", "--no-ext-diff", "--", "/dev/null", rel)
    else:
        # `:(literal)`: a name holding `*` or `[b]` is that one file, not a pattern.
        args = ("diff", "--no-color", "--no-ext-diff", "--no-renames", wt.base, "--", f":(literal){rel}")
        text, cut = _bounded_git(wt.path, *args)
    got = parse_diff(text)
    edit = Edit(wt.member, rel, "git", mtime, got.added, got.removed, got.hunks, cut=got.cut, created=created)
    if got.binary:
        edit.added = edit.removed = None
        edit.note = "binary: not shown"
    elif cut:
        edit.added = edit.removed = None  # git said more than was read: the counts are numstat's
        edit.note = "diff cut: too large to show whole"
    edit.note = edit.note or f"in {wt.path} (branch {wt.branch}) against {wt.base[:10]}"
    return edit


__all__ = ["GitRead", "ParsedDiff", "Worktree", "diff", "find_worktrees", "parse_diff", "read", "worktree_files"]
