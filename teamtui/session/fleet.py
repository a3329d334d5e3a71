"""The fleet: every source of teams the control room shows, behind one feed.

Every way of opening teamtui ends here: a lone team, a root, every team of this machine, other
machines over ssh. Each source (session/source.py) keeps its own sessions and yields its own
batches; the fleet merges them into one feed. A source that fails is restarted with a backoff
(1 s, doubling to 30 s) and, until it works again, its failure is one of the fleet's problems, in
words; every other source keeps updating meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path

from teamtui.protocol.changes import Change
from teamtui.protocol.fleet.overview import FleetRow, order_rows
from teamtui.protocol.models import Message
from teamtui.protocol.text import inert
from teamtui.session.local import LocalSource
from teamtui.session.source import AnswersLoose, FindsTeams, FleetBatch, FollowsHooks, Key, Prunes, TakesDrained
from teamtui.session.team import TeamSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.layout import LayoutName
    from teamtui.protocol.settings import HostSettings, NatsSettings, Settings
    from teamtui.session.actions import Answers
    from teamtui.session.shutdown import OnShutdown
    from teamtui.session.source import TeamSource

RESTART_FIRST, RESTART_MAX = 1.0, 30.0


class Fleet:
    """Teams from every source, as one: their sessions, their rows, their problems, one feed."""

    def __init__(
        self,
        sources: Sequence[TeamSource],
        *,
        clock: Callable[[], float] | None = None,
        restart_first: float = RESTART_FIRST,
        restart_max: float = RESTART_MAX,
    ):
        if not sources:
            raise ValueError("a fleet needs at least one source of teams")
        self.sources = list(sources)
        self.clock = clock or self.sources[0].clock
        self.restart_first, self.restart_max = restart_first, restart_max
        self.failed: dict[str, str] = {}  # source name -> why it is down, while it is
        self.restarts = 0  # for the tests: how many times a source was started again

    # ------------------------------------------------------------------ what it holds
    @property
    def sessions(self) -> dict[Key, TeamSession]:
        merged: dict[Key, TeamSession] = {}
        for source in self.sources:
            merged.update(source.sessions)
        return merged

    @property
    def has_hosts(self) -> bool:
        """Other machines are asked for (hosts over ssh, NATS servers): the room is the point, not one team."""
        return any(not isinstance(s, LocalSource) for s in self.sources)

    @property
    def problems(self) -> list[str]:
        down = [f"{name}: {why}" for name, why in self.failed.items()]
        return [*down, *(p for s in self.sources for p in s.problems)]

    def rows(self, now: float | None = None, changed: Collection[Key] | None = None) -> list[FleetRow]:
        now = self.clock() if now is None else now
        return order_rows([r for s in self.sources for r in self._said(s, s.rows(now, changed))])

    def _said(self, source: TeamSource, rows: list[FleetRow]) -> list[FleetRow]:
        """A source that stopped updating: each of its rows says so (what it shows may be old)."""
        why = self.failed.get(source.name)
        if why is None:
            return rows
        return [replace(r, problem=f"{source.name} {why}" + (f"; {r.problem}" if r.problem else "")) for r in rows]

    def prune(self) -> list[Key]:
        return [k for s in self.sources if isinstance(s, Prunes) for k in s.prune()]

    def looked_at(self) -> list[Path]:
        """Where this machine's teams would appear (an empty room says so)."""
        return [p for s in self.sources if isinstance(s, FindsTeams) for p in s.looked_at()]

    def ingest(self, recipient: str, messages: list[Message]) -> dict[Key, list[Change]]:
        """What the lead of this process drained from an inbox, into the team it leads (session/local.py)."""
        out: dict[Key, list[Change]] = {}
        for source in self.sources:
            if isinstance(source, TakesDrained):
                out.update(source.ingest(recipient, messages))
        return out

    def loose(self) -> list[tuple[str, Answers]]:
        """Each source's answers for its machine's permission requests of no team it lists: (its name, them)."""
        return [pair for s in self.sources if isinstance(s, AnswersLoose) for pair in s.loose()]

    def recheck_hooks(self) -> bool:
        """This machine's requests past their deadline read again (session/hook_feed.py recheck)."""
        return any([s.recheck_hooks() for s in self._hooked()])

    def hook_news(self) -> list[str]:
        return [text for s in self._hooked() for text in s.hook_news()]

    def next_hook_deadline(self) -> float | None:
        due = [d for s in self._hooked() if (d := s.next_hook_deadline())]
        return min(due) if due else None

    @property
    def hook_spool(self) -> Path | None:
        """The spool of this machine's hooks the fleet follows (None: none): a room holds its lock."""
        return next((spool for s in self._hooked() if (spool := s.hook_spool) is not None), None)

    def left_out(self) -> list[str]:
        """Teams found but not asked for (with --team, the others there): "name (where)"."""
        return [t for s in self.sources if isinstance(s, FindsTeams) for t in s.left_out()]

    def _hooked(self) -> list[FollowsHooks]:
        return [s for s in self.sources if isinstance(s, FollowsHooks)]

    # ------------------------------------------------------------------ the one feed
    async def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]:
        """Every source's batches as they come, until `stop`. A source that fails is said and
        started again after a backoff; the others go on. A source goes on only once its last batch
        was taken in (the next one asked for): it never runs ahead of the screen, and what it does
        next (counting a transcript's tokens) never slows the frame that shows the last."""
        queue: asyncio.Queue[tuple[FleetBatch, asyncio.Event]] = asyncio.Queue()
        pumps = [asyncio.ensure_future(self._keep(source, stop, queue)) for source in self.sources]
        stopping = asyncio.ensure_future(stop.wait())
        taken: asyncio.Event | None = None
        try:
            while not stop.is_set():
                if taken is not None:
                    taken.set()  # the last batch was dealt with: its source may go on
                getting = asyncio.ensure_future(queue.get())
                running = {p for p in pumps if not p.done()}
                done, _ = await asyncio.wait({getting, stopping, *running}, return_when=asyncio.FIRST_COMPLETED)
                dead = next((p for p in done & running if not p.cancelled() and p.exception() is not None), None)
                if dead is not None:  # beyond the per-source guard: the feed itself ends, loudly
                    getting.cancel()
                    raise RuntimeError(f"a source's feed died: {dead.exception()!r}") from dead.exception()
                if getting not in done:
                    getting.cancel()  # never two readers of the queue: a batch taken by one left behind is lost
                    if stopping not in done:
                        continue  # a pump ended (the fleet is stopping)
                    break
                batch, taken = getting.result()
                yield batch
        finally:
            stopping.cancel()
            for p in pumps:
                p.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)

    async def _keep(
        self, source: TeamSource, stop: asyncio.Event, queue: asyncio.Queue[tuple[FleetBatch, asyncio.Event]]
    ) -> None:
        """One source's feed, kept going: each failure said, then a restart after the backoff."""
        delay = self.restart_first
        while not stop.is_set():
            worked = False
            try:
                async for batch in source.follow(stop):
                    batch.source = source.name
                    if source.name in self.failed:  # it works again: its problem goes
                        self.failed.pop(source.name, None)
                        batch.rediscovered = True
                        batch.notices.append((f"{source.name}: following its teams again", "information"))
                    worked = True
                    await _handed(queue, batch, stop)
                if stop.is_set():
                    return
                why = "its feed ended"
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one source's failure never stops the others: said, restarted
                why = inert(" ".join(f"{type(exc).__name__}: {exc}".split()))[:300]
            if worked:
                delay = self.restart_first
            self.failed[source.name] = f"stopped updating ({why}); trying again in {delay:g} s"
            said = FleetBatch(
                source=source.name, rediscovered=True, notices=[(f"{source.name}: {self.failed[source.name]}", "error")]
            )
            await _handed(queue, said, stop)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
            delay = min(delay * 2, self.restart_max)
            self.restarts += 1


async def _handed(
    queue: asyncio.Queue[tuple[FleetBatch, asyncio.Event]], batch: FleetBatch, stop: asyncio.Event
) -> None:
    """`batch` into the feed; back once it was taken in (or the fleet stops)."""
    taken = asyncio.Event()
    await queue.put((batch, taken))
    await first_of(taken, stop)


async def first_of(*events: asyncio.Event) -> None:
    """Until one of `events` is set."""
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()


def open_fleet(
    settings: Settings,
    *,
    roots: Sequence[Path | str] = (),
    cwd: Path | None = None,
    team: str | None = None,
    layout: LayoutName | None = None,
    only_root: Path | None = None,
    hosts: Sequence[HostSettings] = (),
    nats: Sequence[NatsSettings] = (),
    log_limit: int | None = None,
    health_timeout: float | None = None,
    clock: Callable[[], float] = time.time,
    claude_root: Path | None = None,
    registry: Path | None = None,
    journal: Path | None = None,
    on_shutdown: OnShutdown | None = None,
    lead_of: tuple[str, str] | None = None,
    hooks: Path | None = None,
) -> Fleet:
    """The fleet for a way of opening teamtui: this machine's teams (those of `roots` too; with
    `team`, `layout` or `only_root`, only those), read once, beside each host's over ssh and each
    NATS server's publishing hosts'. `hooks`: this machine's spool (protocol/hooks), followed for
    the permission requests to answer."""
    log_limit = log_limit or settings.log_lines
    health_timeout = health_timeout or settings.health_timeout
    local = LocalSource(
        settings,
        roots=roots,
        cwd=cwd,
        log_limit=log_limit,
        health_timeout=health_timeout,
        clock=clock,
        claude_root=claude_root,
        registry=registry,
        journal=journal,
        on_shutdown=on_shutdown,
        lead_of=lead_of,
        only_team=team,
        only_layout=layout,
        only_root=only_root,
        hooks=hooks,
    )
    local.discover()  # once: the first screen shows what is there
    sources: list[TeamSource] = [local]
    if hosts:
        from teamtui.session.remote import RemoteHost

        sources += [RemoteHost(h, log_limit=log_limit, health_timeout=health_timeout, clock=clock) for h in hosts]
    if nats:
        from teamtui.session.nats_source import NatsSource  # nats-py, only for a room that reads a server

        sources += [NatsSource(n, log_limit=log_limit, health_timeout=health_timeout, clock=clock) for n in nats]
    return Fleet(sources, clock=clock)


__all__ = ["Fleet", "FleetBatch", "Key", "open_fleet"]
