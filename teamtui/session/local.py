"""This machine's teams: the source of every team whose files are here, each one TeamSession,
kept current by one watcher.

Discovery (protocol/fleet) says which teams there are; this holds a TeamSession per team (an
ended one read back from the journal), follows all of them with a single watcher over the
union of their folders and the folders where teams appear (no watcher per team, no polling),
routes each changed path to the sessions it concerns, and discovers again only when a team
folder appears or vanishes or a `teamtui run` starts or ends.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from teamtui.protocol.changes import Change
from teamtui.protocol.fleet.discover import FleetTeam, discover_fleet, fleet_watch_dirs
from teamtui.protocol.fleet.overview import FleetRow, order_rows, row_of
from teamtui.protocol.fleet.scan import TEAMS_FOLDER, opens_despite, teams_folder
from teamtui.protocol.hooks.answers import PermissionAsk
from teamtui.protocol.models import Message
from teamtui.protocol.settings import Settings
from teamtui.protocol.state import TeamState
from teamtui.session.answers import LocalAnswers
from teamtui.session.hook_feed import HookFeed
from teamtui.session.local_team import ended_local, ingest, open_local
from teamtui.session.shutdown import OnShutdown
from teamtui.session.source import ROW_FRESH, FleetBatch, Key
from teamtui.session.team import Batch, TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.layout import LayoutName
    from teamtui.session.actions import Answers

HOUR = 3600.0


class LocalSource:
    """The teams of this machine (and of the roots given), one TeamSession each."""

    name = "this machine"

    def __init__(
        self,
        settings: Settings,
        *,
        roots: Sequence[Path | str] = (),
        log_limit: int = 1000,
        health_timeout: float = 60.0,
        clock: Callable[[], float] = time.time,
        cwd: Path | None = None,
        claude_root: Path | None = None,
        registry: Path | None = None,
        journal: Path | None = None,
        on_shutdown: OnShutdown | None = None,
        lead_of: tuple[str, str] | None = None,
        only_team: str | None = None,
        only_layout: LayoutName | None = None,
        only_root: Path | None = None,
        hooks: Path | None = None,
    ):
        self.settings = settings
        self.roots = list(roots)
        self.log_limit, self.health_timeout, self.clock = log_limit, health_timeout, clock
        self.cwd, self.claude_root, self.registry, self.journal = cwd, claude_root, registry, journal
        self.on_shutdown = on_shutdown  # the lead of this process (teamtui run/demo) ...
        self.lead_of = lead_of  # ... and the team it leads: (real root, name)
        # `--team`, `--layout`, `--root` with a team named: the rest left out (their names kept in `others`).
        self.only_team, self.only_layout = only_team, only_layout
        self.only_root = os.path.realpath(only_root) if only_root is not None else None
        self.others: list[FleetTeam] = []  # teams found but left out: said when the one asked for is not there
        self.teams: dict[Key, FleetTeam] = {}
        self.sessions: dict[Key, TeamSession] = {}
        self.states: dict[Key, TeamState] = {}  # each session's model, as read from its files (what is applied)
        self.problems: list[str] = []
        self._dir_keys: dict[Path, set[Key]] = {}  # watched folder -> the teams whose files are under it
        self._by_prefix: dict[str, set[Key]] = {}  # the same, by the folder's path as text
        self._prefix_lengths: list[int] = []  # the lengths of those texts, shortest first
        self._flat: set[Path] = set()  # the sessions' folders watched without their subfolders
        self._discovery: set[Path] = set()  # where teams appear (_discovery_dirs), as of the last discovery
        self._rows: dict[Key, tuple[FleetRow, float]] = {}  # each team's row, and when it was built
        # This machine's hooks (the spool `hooks` names): their requests are answered from the room.
        self.hooks: HookFeed | None = HookFeed(hooks) if hooks is not None else None
        # Answers carried out here for the requests of no team listed (a lone Claude Code session's).
        self.answers = LocalAnswers(self.hooks, None, settings.sender, loose=self.loose_asks) if self.hooks else None

    # ------------------------------------------------------------------ which teams
    def discover(self) -> tuple[list[Key], list[Key]]:
        """Look for teams again; a session for each new one. (appeared, gone)"""
        fleet = discover_fleet(
            self.roots,
            cwd=self.cwd,
            claude_root=self.claude_root,
            settings=self.settings,
            now=self.clock(),
            registry=self.registry,
            journal=self.journal,
        )
        self.problems = fleet.problems
        found = {t.key: t for t in fleet.teams if self._selected(t)}
        self.others = [t for t in fleet.teams if t.key not in found]
        appeared = [k for k in found if k not in self.teams]
        # A live session whose team was just seen ending keeps its state: it is marked, not re-read.
        gone = [k for k in self.teams if k not in found and not self._keeps(k)]
        for key in gone:
            self._drop(key)
        for key, team in found.items():
            if key in self.sessions and team.ended and self.sessions[key].live:
                self.sessions[key].ended_at = team.ended_at or self.clock()
            if key not in self.sessions:
                self.teams[key] = team  # what it is now (a half-written folder may have become whole)
                opened = self._open(team)
                if opened is not None:
                    self.sessions[key], self.states[key] = opened
            elif key in self.teams and self.teams[key].problem != team.problem:
                # A followed team's folder became unreadable (or readable again): its row says so.
                self.teams[key] = replace(self.teams[key], problem=team.problem)
        self._index()
        return appeared, gone

    def _selected(self, team: FleetTeam) -> bool:
        return (
            (self.only_team is None or team.name == self.only_team)
            and (self.only_layout is None or team.layout == self.only_layout)
            and (self.only_root is None or team.key[1] == self.only_root)
        )

    def ingest(self, recipient: str, messages: list[Message]) -> dict[Key, list[Change]]:
        """What the lead of this process drained from an inbox before the feed read it, into the
        team it leads: the changes, by team (none when it leads none here)."""
        if self.lead_of is None:
            return {}
        led = [k for k, st in self.states.items() if (os.path.realpath(st.store.root), st.store.name) == self.lead_of]
        return {k: ingest(self.states[k], recipient, messages) for k in led}

    def left_out(self) -> list[str]:
        return [f"{t.name} ({t.root})" for t in self.others]

    def looked_at(self) -> list[Path]:
        """Where teams would appear (the empty room says so)."""
        return self._discovery_dirs()[:-1]  # not the registry of runs: nobody looks for a team there

    def _keeps(self, key: Key) -> bool:
        """A session this control room followed to its end stays listed for fleet_keep_hours."""
        session = self.sessions.get(key)
        if session is None or session.ended_at is None:
            return False
        return self.clock() - session.ended_at < self.settings.fleet_keep_hours * HOUR

    def _drop(self, key: Key) -> None:
        self.teams.pop(key, None)
        self.sessions.pop(key, None)
        self.states.pop(key, None)

    def _open(self, team: FleetTeam) -> tuple[TeamSession, TeamState] | None:
        """The team's session and model, read once; None when its folder cannot be shown (a row says why)."""
        try:
            if team.ended:
                if team.journal is None:
                    return None
                from teamtui.protocol.claude.ended import load_state

                state = load_state(team.journal)
                from teamtui.protocol.history.query import fill_ended

                fill_ended(state)  # its teammates' edits (and cost) as the history kept them
                why = "this team has ended: it is shown read-only from teamtui's journal"
                at = team.ended_at or self.clock()
                return ended_local(state, at, why, sender=self.settings.sender, clock=self.clock), state
            if not opens_despite(team.problem):
                return None
            from teamtui.protocol.layout import open_team

            store = open_team(team.root, team.name, team.layout)
            leads = self.lead_of is not None and (os.path.realpath(team.root), team.name) == self.lead_of
            session, state = open_local(
                store,
                log_limit=self.log_limit,
                health_timeout=self.health_timeout,
                sender=self.settings.sender,
                clock=self.clock,
                on_shutdown=self.on_shutdown if leads else None,
                hooks=self.hooks,
            )
            state.load_all()
            return session, state
        except Exception:  # noqa: BLE001 - one team's files never take the fleet down: its row says it cannot be read
            return None

    def prune(self) -> list[Key]:
        """Ended teams past fleet_keep_hours leave the list (a timer's job: no file changes for it)."""
        limit = self.clock() - self.settings.fleet_keep_hours * HOUR
        old = [k for k, s in self.sessions.items() if s.ended_at is not None and s.ended_at < limit]
        old += [k for k, t in self.teams.items() if t.ended and (t.ended_at or 0.0) < limit and k not in old]
        for key in old:
            self._drop(key)
        if old:
            self._index()
        return old

    # ------------------------------------------------------------------ what the overview shows
    def row(self, key: Key, now: float | None = None) -> FleetRow:
        now = self.clock() if now is None else now
        team, session = self.teams[key], self.sessions.get(key)
        if session is not None and not session.live and not team.ended:
            team = _ended(team, session.ended_at)
        if session is not None and opens_despite(team.problem):
            team = replace(team, problem=None)  # opened all the same: its state says what is wrong now
        return row_of(
            team,
            self.states.get(key) if session is not None else None,
            now=now,
            problem=None if session is not None or team.problem else "cannot be read",
        )

    def rows(self, now: float | None = None, changed: Collection[Key] | None = None) -> list[FleetRow]:
        """Every row, in order. With `changed` (the teams a batch touched), only those rows and the
        ones older than ROW_FRESH are built again: at 100 teams a row each is most of a batch's cost."""
        now = self.clock() if now is None else now
        if changed is None:
            self._rows.clear()  # every row built again
        touched = changed or ()
        out = []
        for key in self.teams:
            kept = self._rows.get(key)
            if kept is None or key in touched or not 0 <= now - kept[1] <= ROW_FRESH:
                kept = self._rows[key] = (self.row(key, now), now)
            out.append(kept[0])
        if len(self._rows) > len(self.teams):
            for key in [k for k in self._rows if k not in self.teams]:
                del self._rows[key]
        return order_rows(out)

    # ------------------------------------------------------------------ following the files
    def _discovery_dirs(self) -> list[Path]:
        """Where teams appear and vanish (protocol/fleet/discover.py fleet_watch_dirs)."""
        return fleet_watch_dirs(
            self.roots, cwd=self.cwd, claude_root=self.claude_root, settings=self.settings, registry=self.registry
        )

    def _index(self) -> None:
        # Where teams appear, worked out again on each discovery only: a realpath per root, which a
        # batch at a thousand roots paid for every file event (~40 ms).
        self._discovery = set(self._discovery_dirs())
        index: dict[Path, set[Key]] = {}
        for key, session in self.sessions.items():
            if session.live:
                for d in self.states[key].watch_dirs():
                    index.setdefault(Path(d), set()).add(key)
        self._dir_keys = index
        self._by_prefix = {str(d): keys for d, keys in index.items()}
        self._prefix_lengths = sorted({len(p) for p in self._by_prefix})
        self._flat = {d for k, st in self.states.items() if self.sessions[k].live for d in st.flat_watch_dirs()}

    def _team_folders(self) -> list[Path]:
        """Each listed team's own folder (a half-written or unreadable one's too, not a symlink):
        its config.json arriving or mended is an event there."""
        folders = [
            teams_folder(t.root, t.layout) / t.name
            for t in self.teams.values()
            if not t.ended and t.layout in TEAMS_FOLDER
        ]
        return [f for f in folders if not os.path.islink(f)]

    def watch_dirs(self) -> list[Path]:
        hooks = self.hooks.watch_dirs() if self.hooks is not None else []
        return sorted({*self._discovery_dirs(), *self._team_folders(), *self._dir_keys, *hooks})

    def flat_dirs(self) -> set[Path]:
        """What is watched without its subfolders: every folder but the transcripts' (a chain of
        folders made in a team's folder, however deep, is no work for the watcher) and the hooks'
        requests (each in a folder of its own)."""
        hooks = self.hooks.flat_dirs() if self.hooks is not None else set()
        return {*self._discovery_dirs(), *self._team_folders(), *self._flat, *hooks}

    # ------------------------------------------------------------------ the hooks
    def loose_asks(self) -> list[PermissionAsk]:
        """The permission requests hooks wait on here that belong to no team listed (a Claude Code
        session without an agent team, or one not shown), oldest first."""
        hooks = self.hooks
        if hooks is None:
            return []
        listed = {
            (hooks.real(str(st.store.root)), st.store.name)
            for k, st in self.states.items()
            if st.store.asks_through_hooks and k in self.sessions and self.sessions[k].live
        }
        found = [
            a for a in hooks.asks.values() if (hooks.real(str(a.raw.get("config_dir") or "")), a.team) not in listed
        ]
        return sorted(found, key=lambda a: a.at)

    def recheck_hooks(self) -> bool:
        """Requests past their deadline read again (a hook killed outright leaves no event)."""
        return self.hooks.recheck(self.clock()) if self.hooks is not None else False

    def next_hook_deadline(self) -> float | None:
        return self.hooks.next_deadline() if self.hooks is not None else None

    def hook_news(self) -> list[str]:
        """Requests closed without a room's answer since last asked (moved to the lead's terminal)."""
        return self.hooks.take_news() if self.hooks is not None else []

    @property
    def hook_spool(self) -> Path | None:
        """The spool whose requests this source follows (None: it follows none)."""
        return self.hooks.spool if self.hooks is not None else None

    def loose(self) -> list[tuple[str, Answers]]:
        """Its answers for the requests of no team it lists (Fleet.loose gives every source's)."""
        return [(self.name, self.answers)] if self.answers is not None else []

    def _route(self, paths: set[Path]) -> tuple[dict[Key, list[Path]], bool]:
        """Which sessions each path concerns, and whether the set of teams may have changed."""
        per_key: dict[Key, list[Path]] = {}
        discovery = self._discovery or set(self._discovery_dirs())  # (before any discovery)
        rediscover = False
        for path in paths:
            # Only the prefixes as long as a watched folder can be one: work proportional to the
            # paths, not to their depth (a 2,000-deep chain walked every parent of every path).
            text = str(path)
            for n in self._prefix_lengths:
                if n > len(text):
                    break
                if n < len(text) and text[n] != "/" and not text[:n].endswith("/"):
                    continue
                for key in self._by_prefix.get(text[:n], ()):
                    mine = per_key.setdefault(key, [])
                    if not mine or mine[-1] is not path:  # under two of its folders (logs/ in the team's): once
                        mine.append(path)
            if path.parent in discovery:  # a team folder (or a run's registration) came or went
                rediscover = True
            elif path.name == "config.json" and path.parent.parent in discovery and not self._known_folder(path.parent):
                rediscover = True  # a half-written team's config arrived
            elif (
                path.name == "journal.jsonl"
                and path.parent.parent.name == "workflows"
                and not self._known_folder(path.parent)
            ):
                rediscover = True  # a workflow run started in a session folder already watched
        return per_key, rediscover

    def _known_folder(self, folder: Path) -> bool:
        return any(self.sessions[k].live and st.store.team_dir == folder for k, st in self.states.items())

    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
        """Each batch of file events across the fleet, applied, until `stop` is set."""
        from teamtui.protocol.watch import watch_dirs

        first = True
        while not stop.is_set():
            dirs = self.watch_dirs()
            again = asyncio.Event()
            relay = asyncio.ensure_future(_first_set(stop, again))
            try:
                async for batch in watch_dirs(dirs, again, flat=self.flat_dirs()):
                    t0 = time.perf_counter()
                    out = FleetBatch()
                    if batch.ready:
                        if self.hooks is not None:  # every open request, and the spool's new lines
                            out.hooks = await asyncio.to_thread(self.hooks.load)
                        # The watches are (again) in place: what changed before they were is read now,
                        # the transcripts too, on from their offsets (a line written meanwhile showed no event).
                        for key in [k for k, s in self.sessions.items() if s.live]:
                            state = self.states[key]
                            stale = await asyncio.to_thread(state.stale_paths)
                            self._apply(key, partial(state.apply_batch, stale, rescan=True), out)
                        self._take_said(out)
                        # A team that came between the last look and the watches being in place: looked for now.
                        had = set(self.sessions)
                        out.appeared, out.gone = self.discover()
                        for key in set(self.sessions) - had:
                            out.changes[key] = Batch([], full=True)
                        out.read_seconds = time.perf_counter() - t0
                        out.rediscovered = bool(out.appeared or out.gone)
                        yield out  # even empty: the watches are in place (a restarted source works again)
                        if out.appeared and set(self.watch_dirs()) != set(dirs):
                            again.set()  # its folders to watch too: the watch starts over
                        if first:
                            first = False
                            async for news in self._read_transcripts():
                                yield news
                        continue
                    changed = batch.paths
                    if self.hooks is not None:
                        mine = {p for p in changed if self.hooks.owns(p)}
                        if mine:
                            changed = changed - mine
                            out.hooks = self.hooks.take(mine)
                            out.notices += [(text, "information") for text in self.hooks.take_news()]
                    per_key, rediscover = self._route(changed)
                    if batch.rescan:
                        rediscover = True
                    for key, paths in per_key.items():
                        session = self.sessions.get(key)
                        if session is None or not session.live:
                            continue
                        self._apply(key, partial(self.states[key].apply_batch, sorted(paths)), out)
                    self._take_said(out)
                    if rediscover:
                        before, had = set(self.watch_dirs()), set(self.sessions)
                        out.appeared, out.gone = self.discover()
                        out.rediscovered = True
                        for key in set(self.sessions) - had:  # new, or a folder that became readable
                            out.changes[key] = Batch([], full=True)
                        if set(self.watch_dirs()) != before:
                            again.set()  # new folders to watch: the watch starts over (its first batch re-reads)
                    out.read_seconds = time.perf_counter() - t0
                    if out.changes or out.rediscovered or out.notices or out.hooks:
                        yield out
                    if out.appeared:
                        async for news in self._read_transcripts():
                            yield news
            finally:
                relay.cancel()

    def _apply(self, key: Key, read: Callable[[], list], out: FleetBatch) -> None:
        """One team's part of a batch, into `out`. A fault in it (a bug: a bad file is a ReadError) is
        said, and the team is read again from its files at once; the other teams' parts go on."""
        session = self.sessions[key]
        try:
            changes = read()
        except Exception as exc:  # noqa: BLE001 - one team's fault never stops the others
            out.notices.append(
                (f"{session.name}: could not apply a change ({type(exc).__name__}: {exc}); read again", "error")
            )
            try:
                changes = self.states[key].resync()
            except Exception:  # noqa: BLE001 - still failing: the next change to its files tries again
                return
        if changes:
            session.note_changes(changes)
            out.changes[key] = Batch(changes)

    def _take_said(self, out: FleetBatch) -> None:
        """What the hooks said of teammates (idle, working), into their Claude Code teams' rows."""
        hooks = self.hooks
        teams = hooks.take_said_teams() if hooks is not None else set()
        if hooks is None or not teams:
            return
        for key, session in self.sessions.items():
            state = self.states[key]
            if not session.live or not state.store.asks_through_hooks or state.name not in teams:
                continue
            changes = state.take_said(hooks.said_of(state.name))
            if changes:
                had = out.changes.get(key)
                if had is None:
                    out.changes[key] = Batch(changes)
                else:
                    had.changes.extend(changes)

    async def _read_transcripts(self) -> AsyncIterator[FleetBatch]:
        """Each live team's transcripts, read once from the end (in a thread, one team at a time):
        what needs a person, and the log panels. Then, once every team shows that, the token sums of
        the transcripts' heads (parsing: slow on large ones), each team's as a batch of its own."""
        read = []
        for key, session in list(self.sessions.items()):
            state = self.states[key]
            files = state.transcript_files
            if not session.live or files is None or files.started:
                continue
            t0 = time.perf_counter()
            updates = await asyncio.to_thread(files.read, from_end=True)
            changes = state.take_transcripts(updates) + state.apply_batch([], rescan=True)
            read.append(key)
            yield FleetBatch({key: Batch(changes, full=True)}, read_seconds=time.perf_counter() - t0)
        for key in read:
            found = self.states.get(key)
            if found is None or not found.counting_heads:
                continue
            heads = await asyncio.to_thread(found.count_heads)
            found.take_heads(heads)
            yield FleetBatch({key: Batch([], full=True, heads=True)})


def _ended(team: FleetTeam, at: float | None) -> FleetTeam:
    return replace(team, ended=True, ended_at=at)


async def _first_set(stop: asyncio.Event, again: asyncio.Event) -> None:
    await stop.wait()
    again.set()


__all__ = ["LocalSource"]
