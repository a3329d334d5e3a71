"""What each teammate of one team changed, from every source the team has, for the changes view,
`teamtui changes`, the needs and the stream:

- *seen*: the edits in the members' transcripts (a Claude Code team's TranscriptFeed keeps them
  as they are read: `feed.edits`, protocol/edits.py EditLog);
- *git*: a `teamtui run` teammate's worktree against the commit it started from
  (worktree_changes.py; git runs in a thread: `read_git`, then `take_git` on the loop);
- *declared*: what the protocol says a teammate will touch (the files of the in-progress task it
  holds, cw-dispatch's scope, a TOUCHING_FILE broadcast), marked as not seen.

A file is compared by where it is (`Row.where`): absolute and normalised, relative paths taken
from the team's working folder, a worktree's file as the main checkout's (two worktrees changing
`app.py` will meet at the merge). A path outside the team's folder is kept and said so (`outside`).

`changes_of(session)` is the one TeamChanges of a session. Nothing here knows Textual.
"""

from __future__ import annotations

import os
import posixpath
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamtui.protocol.edits import (
    DECLARED,
    GIT,
    Collision,
    Dismissed,
    Edit,
    EditLog,
    FileChange,
    collisions,
    inside,
    norm,
    shown_path,
)
from teamtui.protocol.models import MemberStatus

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Protocol

    from teamtui.protocol.model import TeamModel
    from teamtui.session.worktree_changes import GitRead

    class TeamSession(Protocol):
        """What TeamChanges reads of a team (session/team.py TeamSession)."""

        state: TeamModel

        @property
        def name(self) -> str: ...
        @property
        def live(self) -> bool: ...
        @property
        def here(self) -> Path | None: ...  # its folder when on this machine
        @property
        def worktrees(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Row:
    """One teammate's change to one file, placed."""

    change: FileChange
    where: str  # the file compared (see the module's doc)
    shown: str  # as shown: relative to the team's folder when inside it
    outside: bool  # outside the team's working folder

    @property
    def member(self) -> str:
        return self.change.member

    @property
    def source(self) -> str:
        return self.change.source


class TeamChanges:
    """One team's changes (see the module's doc)."""

    def __init__(self, session: TeamSession):
        self.session = session
        self.git: GitRead | None = None  # the last worktree read (None: not read, or no worktrees)
        self.git_generation = 0
        self.dismissed = Dismissed()
        # Placed rows by (member, path, source), for as long as the same FileChange (updated in place) stands.
        self._placed: dict[tuple[str, str, str], Row] = {}
        self._placed_in: tuple[str | None, str | None] = (None, None)  # the folder and repo they were placed in
        self._collided: tuple[Any, list[Collision]] | None = None
        self._git_recorded: dict[tuple[str, str], tuple] = {}  # (member, path) -> the counts the history has

    # ------------------------------------------------------------------ where
    @property
    def folder(self) -> str | None:
        """The team's working folder: its lead's cwd (Claude Code), else the project root."""
        feed = self.session.state.transcripts
        cwd = feed.folder() if feed is not None and hasattr(feed, "folder") else None
        if cwd is not None:
            return cwd
        here = self.session.here
        return norm(str(here)) if here is not None and feed is None else None

    def place(self, fc: FileChange, folder: str | None = None, repo: str | None = None) -> Row:
        path = fc.path
        if fc.source == GIT and repo is not None and not path.startswith("/"):
            where = norm(posixpath.join(repo, path))
        elif path.startswith("/") or folder is None:
            where = norm(path)
        else:
            where = norm(posixpath.join(folder, path))
        if folder is None:
            return Row(fc, where, path, False)
        base = repo if fc.source == GIT and repo is not None else folder
        return Row(fc, where, shown_path(where, base), not inside(where, base))

    # ------------------------------------------------------------------ the rows
    @property
    def seen_log(self) -> EditLog | None:
        feed = self.session.state.transcripts
        log = getattr(feed, "edits", None)
        return log if isinstance(log, EditLog) else None

    def rows(self) -> list[Row]:
        """Every teammate's changed (or declared) file: seen first, then git, then what was only
        declared (a file a teammate also changed shows once, as changed)."""
        folder = self.folder
        repo = str(self.git.repo) if self.git is not None and self.git.repo is not None else None
        if (folder, repo) != self._placed_in:
            self._placed, self._placed_in = {}, (folder, repo)
        placed = self._placed
        rows: list[Row] = []
        log = self.seen_log
        changes = list(log.changes()) if log is not None else []
        if self.git is not None:
            changes += [fc for files in self.git.files.values() for fc in files]
        for fc in changes:
            key = (fc.member, fc.path, fc.source)
            row = placed.get(key)
            if row is None or row.change is not fc:
                row = placed[key] = self.place(fc, folder, repo)
            rows.append(row)
        if len(placed) > 2 * len(rows) + 1024:  # rows gone (a worktree read again): let their places go
            self._placed = {(r.member, r.change.path, r.source): r for r in rows}
        done = {(r.member, r.where) for r in rows}
        for fc in self.declared():
            row = self.place(fc, folder)
            if (row.member, row.where) not in done:
                done.add((row.member, row.where))
                rows.append(row)
        return rows

    def declared(self) -> list[FileChange]:
        """What the protocol says each teammate will touch: the files of the in-progress tasks it
        holds (`files`, cw-dispatch's files_to_create / files_to_modify), its TOUCHING_FILEs."""
        board = self.session.state.board
        out: list[FileChange] = []
        for task_id, files in board.declared_files().items():  # kept by the board: no scan of every task
            task = board.tasks[task_id]
            out += [FileChange(task.owner or "", f, DECLARED, why=f"task #{task.id}") for f in files]
        for touch in board.touches:
            if board.touch_active(touch):
                out.append(FileChange(touch.by, touch.path, DECLARED, why="TOUCHING_FILE"))
        return out

    def mark(self) -> tuple[int, int]:
        """Moves when a seen or git change came (declared ones move with the tasks)."""
        log = self.seen_log
        return (log.generation if log is not None else 0, self.git_generation)

    def edits(self, member: str, path: str) -> list[Edit]:
        """The seen edits of `member` to `path` (as the transcript named it), oldest first."""
        log = self.seen_log
        return log.edits(member, path) if log is not None else []

    # ------------------------------------------------------------------ git worktrees
    @property
    def may_have_worktrees(self) -> bool:
        """Teams `teamtui run` leads (which may give teammates worktrees) keep their files here."""
        return self.session.here is not None and self.session.worktrees

    def read_git(self) -> GitRead | None:
        """The worktrees and their files, from git. Slow: for a thread."""
        if not self.may_have_worktrees:
            return None
        from teamtui.session import worktree_changes

        assert self.session.here is not None
        return worktree_changes.read(Path(self.session.here), self.session.name)

    def take_git(self, got: GitRead | None) -> bool:
        """A `read_git` result, on the loop; True when something changed."""
        before = self._git_sig(self.git)
        self.git = got if got is not None and got.worktrees else None
        if self._git_sig(self.git) == before:
            return False
        self.git_generation += 1
        self._record_git()
        return True

    def _record_git(self) -> None:
        """The worktrees' files whose counts moved, into the team's history (paths and counts: git
        keeps the diffs)."""
        from teamtui.protocol.history.live import recorder_of

        recorder = recorder_of(self.session.state)
        if recorder is None or self.git is None:
            return
        for member, files in self.git.files.items():
            for fc in files:
                sig = (fc.added, fc.removed, fc.unknown)
                if self._git_recorded.get((member, fc.path)) == sig:
                    continue
                self._git_recorded[(member, fc.path)] = sig
                change = "added" if fc.created else "modified"
                detail = {"source": "git", "branch": fc.why, "counted": not fc.unknown}
                recorder.file_changed(member, fc.path, change, added=fc.added, removed=fc.removed, detail=detail)

    @staticmethod
    def _git_sig(got: GitRead | None) -> object:
        if got is None:
            return None
        return tuple(
            (m, tuple((f.path, f.added, f.removed, f.unknown) for f in files)) for m, files in sorted(got.files.items())
        )

    def watch_dirs(self) -> list[Path]:
        """What to watch for git changes: each worktree (a teammate's edits), and where worktrees
        appear (a teammate's first start)."""
        dirs: list[Path] = []
        if self.git is not None:
            dirs += [wt.path for wt in self.git.worktrees.values() if wt.path.is_dir()]
        if self.may_have_worktrees:
            home = Path(self.session.here or ".") / ".teamtui" / "worktrees"
            if home.is_dir():
                dirs.append(home)
        return dirs

    def concerns(self, path: Path) -> bool:
        """A watched path that calls for a new `read_git` (not git's own bookkeeping)."""
        parts = Path(path).parts
        if ".git" in parts:
            return False
        return any(d == path or d in Path(path).parents for d in self.watch_dirs())

    def git_diff(self, member: str, path: str) -> Edit | None:
        """The worktree's diff of `path`. Slow: for a thread."""
        from teamtui.session import worktree_changes

        got = self.git
        wt = got.worktrees.get(member) if got is not None else None
        if wt is None:
            return None
        created = any(f.path == path and f.created for f in got.files.get(member, ())) if got is not None else False
        return worktree_changes.diff(wt, path, created)

    def git_diff_now(self, member: str, path: str) -> Edit | None:
        """`member`'s worktree diff of `path`, reading the worktrees first (a caller that kept no
        `read_git`: the stream). Slow: for a thread; touches nothing here."""
        from teamtui.session import worktree_changes

        if not self.may_have_worktrees:
            return None
        assert self.session.here is not None
        got = worktree_changes.read(Path(self.session.here), self.session.name)
        wt = got.worktrees.get(member)
        if wt is None or not any(f.path == path for f in got.files.get(member, ())):
            return None
        created = any(f.path == path and f.created for f in got.files.get(member, ()))
        return worktree_changes.diff(wt, path, created)

    # ------------------------------------------------------------------ collisions
    def present(self) -> set[str]:
        """Members still in the team (not departed, not shut down), and its lead."""
        state = self.session.state
        cfg = state.config
        here = {m.name for m in cfg.members if m.status != MemberStatus.SHUTDOWN} if cfg is not None else set()
        here -= set(state.departed)
        here.add(state.lead)
        return here

    def collisions(self, rows: list[Row] | None = None) -> list[Collision]:
        """Two present teammates on one file (both changed it, or one changed what the other
        declared), not dismissed: one per file and pair."""
        present = self.present()
        rows = self.rows() if rows is None else rows
        feed_dismissed = getattr(self.session.state.transcripts, "dismissed", None)
        on = [(r.where, r.change, r.shown) for r in rows if r.member in present]
        # What they depend on (who is on which file, not the counts): worked out again only when it moved.
        mark = (
            frozenset((w, fc.member, fc.source, fc.why) for w, fc, _ in on),
            len(self.dismissed.keys),
            len(feed_dismissed.keys) if isinstance(feed_dismissed, Dismissed) else 0,
        )
        if self._collided is not None and self._collided[0] == mark:
            return list(self._collided[1])
        found = [
            c
            for c in collisions(on)
            if c.key not in self.dismissed and not (feed_dismissed is not None and c.key in feed_dismissed)
        ]
        self._collided = (mark, found)
        return list(found)

    def dismiss(self, key: str) -> None:
        """The person dismissed a collision: it is not called again."""
        self.dismissed.add(key)
        feed_dismissed = getattr(self.session.state.transcripts, "dismissed", None)
        if isinstance(feed_dismissed, Dismissed):
            feed_dismissed.add(key)


_OF: weakref.WeakKeyDictionary[Any, TeamChanges] = weakref.WeakKeyDictionary()


def changes_of(session: TeamSession) -> TeamChanges:
    """The session's TeamChanges (made on first ask, kept as long as the session)."""
    found = _OF.get(session)
    if found is None:
        found = _OF[session] = TeamChanges(session)
    return found


def fleet_collisions(teams: Iterable[tuple[str, TeamChanges]]) -> list[Collision]:
    """Two live teams of this machine that changed the same file of one working tree (the file on
    disk itself: two worktrees are two trees). Declared files are left to each team's own board."""
    placed: list[tuple[str, FileChange]] = []
    for name, changes in teams:
        if not changes.session.live or changes.session.here is None:
            continue
        present = changes.present()
        for row in changes.rows():
            if row.source == DECLARED or row.member not in present:
                continue
            real = row.change.real or row.where
            fc = FileChange(row.member, row.shown, row.source, team=name)
            placed.append((os.path.normpath(real), fc))
    return [c for c in collisions(placed) if c.teams]


__all__ = ["Row", "TeamChanges", "changes_of", "fleet_collisions"]
