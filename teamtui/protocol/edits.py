"""What teammates changed: each edit to a file with its hunks, and per teammate and file the lines
added and removed. Layout-free records and one bounded log per team; who fills them is elsewhere
(Claude Code's transcripts: claude/transcripts/edits.py; git worktrees and what the protocol
declares: session/changes.py).

Everything is bounded, so a busy or hostile team costs a known amount of memory:

- one edit keeps at most `MAX_DIFF_LINES` diff lines, each at most `MAX_LINE_CHARS` characters
  (the rest is counted in `Edit.cut` and said on screen);
- a file keeps its newest `MAX_EDITS_PER_FILE` edits (its counts still add up every edit);
- a team keeps at most `MAX_EDITS` edits, `MAX_FILES` files, and `KEPT_CHARS` characters of diff
  text: past that the oldest edits give up their hunks first (`Edit.dropped`), then themselves.

Paths are data: they are kept as the tool named them, never opened here.
"""

from __future__ import annotations

import heapq
import itertools
import posixpath
from collections import OrderedDict
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

# Where a change is known from.
SEEN = "seen"  # the teammate's own tool calls (its transcript)
GIT = "git"  # its git worktree against the commit it started from
DECLARED = "declared"  # what it said it would touch (a claimed task's files, TOUCHING_FILE): not seen

MAX_DIFF_LINES = 2000  # diff lines kept of one edit (all its hunks together)
MAX_LINE_CHARS = 2000  # characters kept of one diff line
MAX_PATH_CHARS = 4096
MAX_EDITS_PER_FILE = 200
MAX_EDITS = 20_000
MAX_FILES = 5_000
KEPT_CHARS = 8 * 1024 * 1024
# Edit ids remembered to take each edit once (a transcript read again from its start repeats them).
_IDS_KEPT = 2 * MAX_EDITS


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk of a unified diff: `lines` start with " ", "-" or "+"."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[str, ...]

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_lines} +{self.new_start},{self.new_lines} @@"


@dataclass(slots=True, eq=False)  # compared by identity: two edits alike are still two edits
class Edit:
    """One tool call's change to one file."""

    member: str
    path: str
    tool: str  # Write, Edit, MultiEdit, NotebookEdit; "git" for a worktree's diff
    at: float | None
    added: int | None  # None: not counted (binary, or too large to read)
    removed: int | None
    hunks: tuple[Hunk, ...] = ()
    note: str = ""  # what else to say: "new file", "binary", "too large to show (52.4 MB)"
    cut: int = 0  # diff lines not kept (over MAX_DIFF_LINES)
    uid: str = ""  # the tool call's id: an edit read twice is taken once
    created: bool = False
    dropped: bool = False  # its hunks were let go to keep the team's budget
    seq: int = 0  # the order the log took it in
    gone: bool = False  # let go by the log (its file keeps the counts)

    @property
    def chars(self) -> int:
        return sum(len(line) for h in self.hunks for line in h.lines)


@dataclass(slots=True)
class FileChange:
    """What one teammate did to one file, summed over its edits (or declared, or in its worktree)."""

    member: str
    path: str
    source: str = SEEN
    added: int = 0
    removed: int = 0
    unknown: bool = False  # some edit's lines could not be counted
    edits: int = 0
    created: bool = False
    first_at: float | None = None
    last_at: float | None = None
    why: str = ""  # declared: "task #3", "TOUCHING_FILE"; git: the worktree's branch
    team: str = ""  # set where changes of several teams meet (the control room's collisions)
    real: str = ""  # the file on disk (a worktree's copy); "" : `path`

    @property
    def counts(self) -> str:
        """`+12 -3`, `+? -?` when not counted, `declared` when not seen."""
        if self.source == DECLARED:
            return "declared"
        if self.unknown and not (self.added or self.removed):
            return "+? -?"
        mark = "?" if self.unknown else ""
        return f"+{self.added}{mark} -{self.removed}{mark}"


def clip_line(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


def clip_path(path: str) -> str:
    return path if len(path) <= MAX_PATH_CHARS else path[: MAX_PATH_CHARS - 1] + "…"


def count_lines(text: str) -> int:
    """Lines of a file's text: a last line without its newline counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def norm(path: str) -> str:
    """A path compared with another: `a/./b` is `a/b`."""
    return posixpath.normpath(path) if path else path


def files_changed(feed: object) -> int | None:
    """How many files a team's teammates changed, as its transcripts show (a feed's `edits`);
    None when it has no such record (no transcripts, or not read yet)."""
    log = getattr(feed, "edits", None)
    if not isinstance(log, EditLog) or not (len(log) or getattr(feed, "started", True)):
        return None  # not read yet (an ended team's edits come from the history: it has some)
    return log.file_count()


def inside(path: str, folder: str) -> bool:
    """`path` (normalised) is `folder` or under it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def shown_path(where: str, folder: str | None) -> str:
    """A file as shown: relative to the team's folder when inside it, else as it is."""
    if folder is None or not inside(where, folder) or where == folder:
        return where
    return posixpath.relpath(where, folder)


class EditLog:
    """One team's edits, by teammate and file, bounded (see the module's doc). `generation` moves
    with every edit taken; `changed_since(g)` says which (member, path) moved after `g`."""

    def __init__(
        self,
        *,
        max_files: int = MAX_FILES,
        max_edits: int = MAX_EDITS,
        per_file: int = MAX_EDITS_PER_FILE,
        kept_chars: int = KEPT_CHARS,
    ):
        self.max_files, self.max_edits, self.per_file, self.kept_chars = max_files, max_edits, per_file, kept_chars
        self.files: dict[tuple[str, str], FileChange] = {}
        self._edits: dict[tuple[str, str], list[Edit]] = {}
        self._moved: dict[tuple[str, str], int] = {}  # key -> generation it last moved at
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._seq = itertools.count(1)
        self._by_age: list[tuple[float, int, Edit]] = []  # every edit held, oldest first (lazily cleaned)
        self._with_hunks: list[tuple[float, int, Edit]] = []  # edits still holding hunks, oldest first
        self.held = 0  # edits held
        self.chars = 0  # diff characters held
        self.generation = 0
        self.files_left_out = 0  # files not taken (over max_files): said on screen
        self.edits_let_go = 0  # edits dropped whole (over max_edits or per_file)
        self._file_count = (-1, 0)  # (generation, files): the room's column asks on every row it builds

    # ------------------------------------------------------------------ taking edits in
    def add(self, edit: Edit) -> bool:
        """Take one edit; False when it was taken before (same uid) or its file is one too many."""
        if edit.uid:
            if edit.uid in self._ids:
                return False
            self._ids[edit.uid] = None
            if len(self._ids) > _IDS_KEPT:
                self._ids.popitem(last=False)
        key = (edit.member, edit.path)
        summary = self.files.get(key)
        if summary is None:
            if len(self.files) >= self.max_files:
                self.files_left_out += 1
                return False
            summary = self.files[key] = FileChange(edit.member, edit.path)
        self._sum(summary, edit)
        edit.seq = next(self._seq)
        age = (edit.at if edit.at is not None else 0.0, edit.seq, edit)
        held = self._edits.setdefault(key, [])
        at = len(held)
        while at and (held[at - 1].at or 0.0, held[at - 1].seq) > age[:2]:  # almost always appended
            at -= 1
        held.insert(at, edit)
        self.held += 1
        heapq.heappush(self._by_age, age)
        if edit.hunks:
            self.chars += edit.chars
            heapq.heappush(self._with_hunks, age)
        if len(held) > self.per_file:
            self._forget(held[0])
        while self.held > self.max_edits and self._by_age:
            self._forget(heapq.heappop(self._by_age)[2])
        while self.chars > self.kept_chars and self._with_hunks:
            self._drop_hunks(heapq.heappop(self._with_hunks)[2])
        if len(self._by_age) > 2 * self.held + 1024:  # entries of edits let go: the heaps stay bounded too
            self._by_age = [a for a in self._by_age if not a[2].gone]
            self._with_hunks = [a for a in self._with_hunks if a[2].hunks]
            heapq.heapify(self._by_age)
            heapq.heapify(self._with_hunks)
        self.generation += 1
        self._moved[key] = self.generation
        return True

    def extend(self, edits: Iterable[Edit]) -> set[tuple[str, str]]:
        """Take several; the (member, path) keys that moved."""
        return {(e.member, e.path) for e in edits if self.add(e)}

    @staticmethod
    def _sum(summary: FileChange, edit: Edit) -> None:
        summary.edits += 1
        if edit.added is None or edit.removed is None:
            summary.unknown = True
        summary.added += edit.added or 0
        summary.removed += edit.removed or 0
        summary.created = summary.created or edit.created
        if edit.at is not None:
            summary.first_at = edit.at if summary.first_at is None else min(summary.first_at, edit.at)
            summary.last_at = edit.at if summary.last_at is None else max(summary.last_at, edit.at)

    def _forget(self, edit: Edit) -> None:
        if edit.gone:
            return  # gone already (the heaps are cleaned lazily)
        edit.gone = True
        self._edits[(edit.member, edit.path)].remove(edit)
        self.held -= 1
        self.edits_let_go += 1
        self._drop_hunks(edit)

    def _drop_hunks(self, edit: Edit) -> None:
        if edit.hunks:
            self.chars -= edit.chars
            edit.hunks = ()
            edit.dropped = True

    def replace_counts(self, changes: Iterable[FileChange]) -> None:
        """The counts as another machine sent them (no edits held here), in place of those known;
        the keys whose figures moved count as changed."""
        new = {(fc.member, fc.path): fc for fc in list(changes)[: self.max_files]}
        moved = [k for k in new.keys() | self.files.keys() if new.get(k) != self.files.get(k)]
        if not moved:
            return
        self.files = new
        self.generation += 1
        for k in moved:
            self._moved[k] = self.generation
        if len(self._moved) > 2 * self.max_files:
            self._moved = {k: g for k, g in self._moved.items() if k in new}

    # ------------------------------------------------------------------ reading it
    def edits(self, member: str, path: str) -> list[Edit]:
        """The edits held of `member` to `path`, oldest first."""
        return list(self._edits.get((member, path), ()))

    def changes(self) -> list[FileChange]:
        """Every (member, file), newest change first."""
        return sorted(self.files.values(), key=lambda f: -(f.last_at or 0.0))

    def changed_since(self, generation: int) -> list[tuple[str, str]]:
        return [k for k, g in self._moved.items() if g > generation]

    def members(self) -> list[str]:
        return sorted({m for m, _ in self.files})

    def file_count(self) -> int:
        """Files changed by anyone (a file two teammates changed counts once), as the tools named them."""
        if self._file_count[0] != self.generation:
            self._file_count = (self.generation, len({p for _, p in self.files}))
        return self._file_count[1]

    def __iter__(self) -> Iterator[FileChange]:
        return iter(self.files.values())

    def __len__(self) -> int:
        return len(self.files)


# ---------------------------------------------------------------------- collisions


@dataclass(frozen=True, slots=True)
class Party:
    """One side of a collision: a teammate (of a team) that changed or declared the file."""

    member: str
    source: str
    team: str = ""
    why: str = ""

    @property
    def ident(self) -> str:
        return f"{self.team}/{self.member}" if self.team else self.member

    def named(self, teams: bool) -> str:
        return f"{self.member} ({self.team})" if teams and self.team else self.member


@dataclass(frozen=True, slots=True)
class Collision:
    """Two teammates on one file: both changed it, or one changed what the other declared."""

    path: str  # as shown (the first party's path)
    where: str  # what was compared: the file both are on
    a: Party
    b: Party

    @property
    def key(self) -> str:
        """Stable while both are there: one per file and pair, whatever order they came in."""
        first, second = sorted((self.a.ident, self.b.ident))
        return f"collision:{self.where}:{first}:{second}"

    @property
    def teams(self) -> bool:
        return self.a.team != self.b.team

    @property
    def text(self) -> str:
        a, b, teams = self.a, self.b, self.teams
        if a.source == DECLARED or b.source == DECLARED:
            doer, declarer = (b, a) if a.source == DECLARED else (a, b)
            why = f" ({declarer.why})" if declarer.why else ""
            return f"{doer.named(teams)} changed {self.path}, which {declarer.named(teams)} declared{why}"
        return f"{a.named(teams)} and {b.named(teams)} both changed {self.path}"


# Parties compared per file at most (a file every teammate touches is one line per pair, not thousands).
_PARTIES_PER_FILE = 16
_RANK = {SEEN: 0, GIT: 1, DECLARED: 2}


def collisions(changes: Iterable[tuple[str, FileChange] | tuple[str, FileChange, str]]) -> list[Collision]:
    """Every pair of teammates on one file, given each change with the file it is on (`where`,
    compared as is: the caller decides what "the same file" means) and, optionally, the path to
    say (else the change's own). Two declarations alone are no collision (the board already keeps
    their tasks apart). One teammate both declaring and changing a file is one party, as having
    changed it. Pure: the same input gives the same list."""
    by_file: dict[str, dict[str, tuple[Party, str]]] = {}
    for item in changes:
        where, fc = item[0], item[1]
        party = Party(fc.member, fc.source, fc.team, fc.why)
        seen = by_file.setdefault(where, {})
        old = seen.get(party.ident)
        if old is None or _RANK.get(party.source, 9) < _RANK.get(old[0].source, 9):
            seen[party.ident] = (party, item[2] if len(item) > 2 else fc.path)
    out: list[Collision] = []
    for where in sorted(by_file):
        parties = sorted(by_file[where].values(), key=lambda p: (_RANK.get(p[0].source, 9), p[0].ident))
        parties = parties[:_PARTIES_PER_FILE]
        for i, (a, path) in enumerate(parties):
            for b, _ in parties[i + 1 :]:
                if a.source == DECLARED and b.source == DECLARED:
                    continue
                out.append(Collision(path, where, a, b))
    return out


@dataclass
class Dismissed:
    """Collisions the person dismissed (by key): not called again while both stay on the file."""

    keys: set[str] = field(default_factory=set)

    def add(self, key: str) -> None:
        self.keys.add(key)

    def __contains__(self, key: object) -> bool:
        return key in self.keys


__all__ = [
    "DECLARED",
    "GIT",
    "SEEN",
    "Collision",
    "Dismissed",
    "Edit",
    "EditLog",
    "FileChange",
    "Hunk",
    "Party",
    "clip_line",
    "clip_path",
    "collisions",
    "count_lines",
    "files_changed",
    "inside",
    "norm",
    "shown_path",
]
