"""A team's transcripts kept in step with its TeamState, fed by the same watch batches.

Each read returns `LogUpdate`s that TeamState applies: entries go into its per-member log buffers
(so the log panels show them as they show a native log), and each transcript's last write counts
as the member's activity (the health rule). What waits for a person is worked out from the
notices and inboxes already read. The feed reads the team only through the values and callbacks
its `TeamLookups` hand it: the state owns the feed, not the other way round.

The first read of every transcript (`read`) touches nothing but this object's own readers: a UI
runs it in a thread and hands the result to `take` on its own loop. Until then nothing else here
reads a file, and the figures (`stats`) say nothing. A UI reads from the end (`from_end`): the
windows first, then each transcript's head counted in a thread (`count_heads`) and added on its
loop (`take_heads`); meanwhile a transcript's token sums, and the team's, say nothing.

The feed also keeps what the transcripts (and the inboxes) say of the work the lead handed out
(`assignments`: the board's rows when the team keeps no task list), of what teamtui does not
know in them (`drift`: entries of a newer Claude Code), and the files each member changed
(`edits`, an EditLog filled as the lines are read; two members on one file are a needs-you item).

What the team cost (`cost`, `member_cost`: protocol/cost.py) is known once every message is
priced: genai-prices is loaded in the head count's thread (`count_heads`), which prices what was
counted before it, and `take_heads` adds that in; from then on a new message is priced as it is
read. An ended team's cost is what the journal kept (`kept`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from teamtui.protocol.changes import Change, ChangeKind, LogUpdate, MemberView, TeamLookups
from teamtui.protocol.claude.transcripts.assignments import AssignmentLog
from teamtui.protocol.claude.transcripts.known import DriftReport, drift_report
from teamtui.protocol.claude.transcripts.needs import (
    NeedsYou,
    notices_from_inbox,
    open_requests,
    silent_teammates,
    stuck_teammates,
)
from teamtui.protocol.claude.transcripts.reader import DEFAULT_WINDOW, HeadCount, TranscriptUpdate
from teamtui.protocol.claude.transcripts.stats import TranscriptStats
from teamtui.protocol.claude.transcripts.team import TeamTranscripts
from teamtui.protocol.cost import PRICES, Cost, total
from teamtui.protocol.edits import Dismissed, Edit, EditLog, collisions, norm, shown_path
from teamtui.protocol.models import MemberStatus, Task
from teamtui.protocol.text import inert

# Inbox message types that say something "needs you" cares about; other messages are not parsed.
_NOTICE_TYPES = frozenset(
    {
        "permission_request",
        "permission_response",
        "plan_approval_request",
        "plan_approval_response",
        "idle_notification",
    }
)


class TranscriptFeed:
    def __init__(self, root: Path, lookups: TeamLookups):
        self.root = Path(root)  # where the transcripts are looked for (a run's folder: RunFeed)
        self.lookups = lookups
        self.team: TeamTranscripts | None = None  # made by the first read
        self.ready = False  # `take` has run once: the figures are the transcripts'
        self._config_seen: object = None  # the config `team` was last told about
        # The lead's calls and the notices and inbox messages that tell its assignments' fate.
        self.assignment_log = AssignmentLog()
        self._derived: tuple[int, tuple[str, ...]] | None = None  # (log generation, departed) last derived
        # The files each member changed, as its transcript's edits say; collisions the person dismissed.
        self.edits = EditLog()
        self.dismissed = Dismissed()
        self._collided: tuple[tuple, list[NeedsYou]] | None = None  # (what they depend on, the items)
        self._placed: dict[str, tuple[str, str]] = {}
        self._placed_in: str | None = None
        # An ended team's cost, and its members', as the journal kept them (claude/ended.py); live: None.
        self.kept: Cost | None = None
        self.kept_members: dict[str, Cost] = {}

    # ------------------------------------------------------------------ where
    def watch_dirs(self) -> list[Path]:
        """The project folders to watch (recursively) beside the team's own folders."""
        if self.team is not None:
            return self.team.watch_dirs
        return TeamTranscripts(self.root, self._config()).watch_dirs

    def concerns(self, path: Path) -> bool:
        """Is `path` under one of the watched project folders?"""
        # By the text (path.parents builds a Path per level: a deep path made it quadratic).
        text = str(path)
        return any(text == str(d) or text.startswith(str(d).rstrip("/") + "/") for d in self.watch_dirs())

    def _config(self) -> dict:
        cfg = self.lookups.config()
        return dict(cfg.raw) if cfg is not None else {}

    # ------------------------------------------------------------------ reading
    def read(self, *, from_end: bool = False) -> dict[str, TranscriptUpdate]:
        """Find and read every transcript once: safe in a thread (nothing shared is touched).
        `from_end`: only what the windows need; the heads are left to `count_heads`."""
        self._config_seen = self.lookups.config()
        team = self._transcripts()
        updates = team.load(from_end=from_end)
        self.team = team
        return updates

    def _transcripts(self) -> TeamTranscripts:
        # The window a first read renders: a larger one costs every transcript's first read (+40 % at 1,000).
        return TeamTranscripts(self.root, self._config(), window=min(self.lookups.log_limit, DEFAULT_WINDOW))

    @property
    def started(self) -> bool:
        """The first read ran (`read`): the transcripts are known."""
        return self.team is not None

    @property
    def heads_pending(self) -> bool:
        """Some transcript's head (what a first read from the end left) is still to be read: the
        edits, requests and assignments in it are not known yet."""
        return self.team is not None and any(r.head_pending for r in self.team.readers.values())

    @property
    def counting(self) -> bool:
        """Some transcript's head is still to be counted, or its messages priced (its token sums,
        or its cost, say nothing yet): `count_heads` has work."""
        return self.team is not None and (
            not PRICES.ready or any(r.head_pending or r.stats.spend.pending for r in self.team.readers.values())
        )

    def count_heads(self) -> dict[str, HeadCount]:
        """The heads a read from the end left, counted, and every message priced (genai-prices
        loaded first, ~150 ms): safe in a thread (reads files; prices only what waits)."""
        PRICES.load()
        if self.team is None:
            return {}
        heads = self.team.count_heads()
        for reader in list(self.team.readers.values()):
            reader.stats.spend.price_pending(PRICES)
        return heads

    def take_heads(self, heads: dict[str, HeadCount]) -> list[str]:
        """Add the counted heads (and the prices), on the loop that took the reads; the members
        whose figures are now known."""
        taken = self.team.take_heads(heads) if self.team is not None else []
        for member in taken:
            self._note(member, heads[member].calls, heads[member].notices)
            self._take_edits(member, heads[member].edits)
        settled = self._settle()
        return list(dict.fromkeys([*taken, *settled]))

    def _settle(self) -> list[str]:
        """The members whose waiting messages are now in their bill (priced here if not yet)."""
        readers = self.team.readers.items() if self.team is not None else ()
        return [m for m, r in readers if r.stats.spend.settle(PRICES)]

    def _take_edits(self, member: str, edits: Iterable[Edit]) -> None:
        taken = []
        for edit in edits:
            edit.member = member
            if self.edits.add(edit):
                taken.append(edit)
        if taken and self.lookups.note_edits is not None:
            self.lookups.note_edits(taken)

    def _note(self, member: str, calls: Iterable[Any], notices: Iterable[Any]) -> None:
        lead = self.lookups.lead()
        if member == lead:  # only the lead hands out work
            self.assignment_log.add_calls(calls)
        self.assignment_log.add_notices(member, notices, lead)

    def take(self, updates: dict[str, TranscriptUpdate]) -> list[LogUpdate]:
        """What was read, as the log lines and activity TeamState applies (TeamState.take_transcripts)."""
        self.ready = True
        self._settle()
        out: list[LogUpdate] = []
        for member, update in updates.items():
            if update.calls or update.notices:
                self._note(member, update.calls, update.notices)
            if update.edits:
                self._take_edits(member, update.edits)
            stats = self.stats(member)
            last_write = stats.last_write if stats is not None else None
            entries = [e.as_log_entry(member) for e in update.entries]
            received = [(r.sender, r.body, r.ts, r.key) for r in update.receipts]
            out.append(LogUpdate(member, entries, update.reset, last_write, received))
        return out

    def apply(self, paths: Iterable[Path], *, rescan: bool = False) -> list[LogUpdate]:
        """A watch batch's paths under the project folders (or a rescan)."""
        if self.team is None:
            return []  # the first read has not run: it will see these
        updates = {}
        cfg = self.lookups.config()
        if cfg is not self._config_seen and cfg is not None:
            self._config_seen = cfg
            updates.update(self.team.update_config(self._config()))
        for member, update in self.team.apply(paths, rescan=rescan).items():
            if member in updates:
                updates[member].entries.extend(update.entries)
                updates[member].receipts.extend(update.receipts)
                updates[member].edits.extend(update.edits)
                updates[member].reset = updates[member].reset or update.reset
            else:
                updates[member] = update
        return self.take(updates)

    # ------------------------------------------------------------------ figures
    def stats(self, member: str) -> TranscriptStats | None:
        """What `member`'s transcript says (None: no transcript, or not read yet)."""
        if self.team is None:
            return None
        reader = self.team.readers.get(member)
        return reader.stats if reader is not None else None

    def backend(self, member: str) -> str | None:
        """ "lead", "pane" or "in-process": where `member`'s transcript was found."""
        source = self.team.sources.get(member) if self.team is not None else None
        return source.backend if source is not None else None

    def members(self) -> list[str]:
        """Members with a transcript (the lead first)."""
        if not self.ready or self.team is None:
            return []
        return sorted(self.team.readers, key=lambda m: (self.backend(m) != "lead", m))

    def lead_view(self) -> MemberView | None:
        """The lead as a row of the team (Claude Code keeps it out of `members`), once its
        transcript was read: working or idle as the transcript says."""
        lead = self.lookups.lead()
        stats = self.stats(lead) if self.ready else None
        if stats is None:
            return None
        status = self.status_of(lead) or MemberStatus.UNKNOWN
        last = stats.last_write
        said = self.lookups.said().get(
            ""
        )  # its session's start or end, as its hooks said (protocol/hooks/said.py LEAD)
        if said is not None and said[1] >= (last or 0.0):
            status, last = said
        unread = sum(1 for m in self.lookups.inbox(lead) if not m.read)
        return MemberView(name=lead, status=status, agent_type="lead", last_activity=last, unread=unread)

    def status_of(self, member: str) -> MemberStatus | None:
        """Working or idle as `member`'s transcript says (the lead and in-process teammates have no
        `isActive`); None when it says nothing yet."""
        stats = self.stats(member) if self.ready else None
        kind = stats.activity.kind if stats is not None and stats.activity is not None else None
        return None if kind is None else MemberStatus.IDLE if kind == "idle" else MemberStatus.WORKING

    def total_tokens(self) -> int | None:
        """The team's tokens, summed over the transcripts that report any; None while a
        transcript is still being counted (a part of the team's sum is no figure)."""
        stats = [s for m in self.members() if (s := self.stats(m)) is not None]
        if any(not s.counted for s in stats):
            return None
        totals = [t for s in stats if (t := s.tokens.total) is not None]
        return sum(totals) if totals else None

    def member_cost(self, member: str) -> Cost | None:
        """What `member`'s messages cost (None: not known yet, or no transcript)."""
        if not self.ready:
            return self.kept_members.get(member)
        stats = self.stats(member)
        return stats.cost if stats is not None else None

    def cost(self) -> Cost | None:
        """What the team cost, summed over its transcripts; None while one of them is still being
        counted or priced (a part of the team's bill is no figure). An ended team's as kept."""
        if not self.ready:
            return self.kept
        members = self.members()
        return total(self.member_cost(m) for m in members) if members else None  # no transcript: no figure

    # ------------------------------------------------------------------ the lead's assignments
    def assignments(self, changes: Iterable[Change] = ()) -> dict[str, Task] | None:
        """The work the lead handed out, as tasks by id (`a1`, `a2`…), after `changes` (the inbox
        messages among them are noted). None when nothing changed since the last call, or while a
        transcript is still to be read whole (the ids follow the order the work was given in)."""
        lead = self.lookups.lead()
        for c in changes:
            if c.kind == ChangeKind.INBOX and c.messages:
                self.assignment_log.add_messages(c.messages, lead)
        if not self.ready or self.team is None or any(r.head_pending for r in self.team.readers.values()):
            return None
        departed = self.lookups.departed()
        key = (self.assignment_log.generation, tuple(departed))
        if key == self._derived:
            return None
        self._derived = key
        cfg = self.lookups.config()
        members = [m.name for m in cfg.members] if cfg is not None else []
        return self.assignment_log.derive(lead=lead, members=[*members, *departed], departed=departed)

    # ------------------------------------------------------------------ format drift
    def drift(self) -> DriftReport:
        """What the transcripts read so far hold that teamtui does not know (a newer Claude Code's)."""
        readers = list(self.team.readers.values()) if self.team is not None else []
        return drift_report(r.drift for r in readers)

    def drift_mark(self) -> tuple:
        """Changes when `drift()` may say something new (a kind seen the first time, a transcript
        replaced): cheap, for a caller that asks after every batch."""
        readers = self.team.readers.items() if self.team is not None else ()
        return tuple((m, id(r.drift), r.drift.generation) for m, r in readers)

    # ------------------------------------------------------------------ what needs a person
    def needs_you(self, now: float) -> list[NeedsYou]:
        """Open requests, stuck teammates and silent task owners, oldest first; none for a
        member who left (its requests went with it)."""
        if not self.ready or self.team is None:
            return []
        lookups = self.lookups
        lead = lookups.lead()
        cfg = lookups.config()
        inbox = [m for m in lookups.messages() if m.type in _NOTICE_TYPES]
        notices = notices_from_inbox(inbox)
        for member in self.members():
            reader = self.team.readers[member]
            notices.extend(reader.notices)
        notices.sort(key=lambda n: n.ts if n.ts is not None else 0.0)
        last_write = {m: s.last_write for m in self.members() if (s := self.stats(m)) is not None}
        present = {m.name for m in cfg.members} if cfg is not None else set()
        present.add(lead)
        items = open_requests(notices) + stuck_teammates(notices, last_write)
        views = lookups.views(now)
        owners = {v.name: v.current_task.id for v in views if v.current_task is not None}
        stopped = [v.name for v in views if v.departed or v.status.value == "shutdown"]
        items += silent_teammates(
            owners={m: t for m, t in owners.items() if m in last_write},
            last_write=last_write,
            stopped=stopped,
            now=now,
            timeout=lookups.health_timeout,
        )
        items += self.collisions(present)
        seen: set[str] = set()
        out = []
        for item in items:
            if item.key in seen or item.member not in present:
                continue
            seen.add(item.key)
            out.append(item)
        return out

    def collisions(self, present: set[str]) -> list[NeedsYou]:
        """Two members (still in the team) that changed one file, one item per file and pair,
        until one of them leaves or the person dismisses it. Worked out again only when an edit,
        the members or a dismissal moved (asked on every batch and look)."""
        mark = (self.edits.generation, frozenset(present), len(self.dismissed.keys))
        if self._collided is not None and self._collided[0] == mark:
            return list(self._collided[1])
        items = self._collisions(present)
        self._collided = (mark, items)
        return list(items)

    def _collisions(self, present: set[str]) -> list[NeedsYou]:
        folder = self.folder()
        if folder != self._placed_in:
            self._placed, self._placed_in = {}, folder
        placed = self._placed  # path -> (the file compared, as shown): worked out once per path
        changes = []
        for fc in self.edits:
            if fc.member in present:
                where_shown = placed.get(fc.path)
                if where_shown is None:
                    where = norm(fc.path)
                    where_shown = placed[fc.path] = (where, shown_path(where, folder))
                changes.append((where_shown[0], fc, where_shown[1]))
        last = {(where, fc.member): fc.last_at for where, fc, _ in changes}
        out = []
        for c in collisions(changes):
            if c.key in self.dismissed:
                continue
            since = max((last.get((c.where, p.member)) or 0.0) for p in (c.a, c.b)) or None
            out.append(NeedsYou("collision", c.a.member, c.key, inert(c.text), since))
        return out

    def folder(self) -> str | None:
        """The team's working folder: the lead's `cwd` in config.json (else a teammate's), None when
        none is said."""
        members = self._config().get("members")
        lead = self.lookups.lead()
        cwds = [
            (m.get("name") != lead, m["cwd"])
            for m in (members if isinstance(members, list) else ())
            if isinstance(m, dict) and isinstance(m.get("cwd"), str) and m["cwd"].startswith("/")
        ]
        return norm(min(cwds)[1]) if cwds else None

    def edits_mark(self) -> int:
        """Moves when a member changed a file: cheap, for a caller that asks after every batch."""
        return self.edits.generation

    def files_changed_since(self, mark: int) -> list[str]:
        """The members that changed a file since `edits_mark()` was `mark`."""
        return sorted({member for member, _ in self.edits.changed_since(mark)})
