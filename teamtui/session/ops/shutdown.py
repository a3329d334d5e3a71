"""`shutdown` and `close_panes`: `S` / `x` on a team on another machine, carried out there by its
rules (TeamSession.shutdown: Claude Code's through its lead). The room asks (RemoteShutdowns) and
mirrors the host's `progress` lines into a ShutdownRun of its own; the host runs the shutdown
(`handle_shutdown`), writes its progress as it goes, and closes the panes the run offered
(`handle_close_panes`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from teamtui.protocol import stream as wire
from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.shutdown import DEFAULT_DEADLINE_SECONDS, DEFAULT_REASON, Outcome, ShutdownRun
from teamtui.session.ops.base import Asks, Op, background
from teamtui.session.ops.messages import writable
from teamtui.session.shutdown import Background, Report, SetTimer, ShutdownController, ShutdownNews

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.ops.base import Key, Server
    from teamtui.session.ops.messages import Team
    from teamtui.session.team import TeamSession


@dataclass(frozen=True, slots=True)
class Shutdown:
    only: str | None  # one teammate, or None: the team
    reason: str
    deadline: float

    @classmethod
    def read(cls, req: dict[str, Any]) -> Shutdown:
        only = req.get("only")
        if only is not None and not isinstance(only, str):
            raise ValueError("only must be a teammate's name or null")
        reason = req.get("reason") if isinstance(req.get("reason"), str) and req["reason"] else DEFAULT_REASON
        deadline = req.get("deadline")
        deadline = (
            float(deadline)
            if isinstance(deadline, (int, float)) and not isinstance(deadline, bool) and 1 <= deadline <= 3600
            else DEFAULT_DEADLINE_SECONDS
        )
        return cls(only, str(reason)[:2000], deadline)


@dataclass(frozen=True, slots=True)
class ClosePanes:
    names: list[str]

    @classmethod
    def read(cls, req: dict[str, Any]) -> ClosePanes:
        names = req.get("names")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("names must be a list of teammates")
        return cls(list(names))


def handle_shutdown(server: Server, rid: Any, key: Key, session: TeamSession, req: Shutdown) -> None:
    writable(session)
    targets = session.live_teammates(req.only)
    if not targets:
        raise ValueError(f"nobody to shut down: {req.only or 'the team'} has no live teammate")
    loop = asyncio.get_running_loop()
    previous = server.shutdowns.pop(key, None)
    if previous is not None:
        previous[1].stop()

    def report(news: ShutdownNews) -> None:
        if news.changes:
            server.changes_lines(key, news.changes)
        server.line(progress_line(rid, key, news))

    def failed(exc: BaseException, done: Any) -> None:
        report(ShutdownNews(None, error=f"{type(exc).__name__}: {exc}"))

    def set_timer(delay: float, callback: Callable[[], None]) -> SimpleNamespace:  # what SetTimer returns: .stop()
        return SimpleNamespace(stop=loop.call_later(delay, callback).cancel)

    controller = session.shutdown(req.only, report, set_timer, background(failed))
    server.shutdowns[key] = (rid, controller)
    controller.start(targets, req.reason, req.deadline)
    server.result(rid, True, detail=f"shutdown of {req.only or 'the team'} started ({', '.join(targets)})")


def handle_close_panes(server: Server, rid: Any, key: Key, session: TeamSession, req: ClosePanes) -> None:
    found = server.shutdowns.get(key)
    if found is None:
        raise ValueError("no shutdown of this team runs here")
    found[1].close_panes(req.names)
    server.result(rid, True, detail=f"closing the panes of {', '.join(req.names)}")


def progress_line(rid: Any, key: Key, news: ShutdownNews) -> dict[str, Any]:
    """A `progress` line: the run as it stands (None: not started, or failed before it ran)."""
    run = news.run
    return {
        "type": "progress",
        "id": rid,
        "team": list(key),
        "run": None
        if run is None
        else {
            "note": run.note,
            "reason": run.reason,
            "deadline_seconds": run.deadline_seconds,
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "teammates": [t.as_dict() for t in run.teammates.values()],
        },
        "changed": list(news.changed),
        "error": news.error,
        "asked": news.asked,
        "offer_panes": dict(news.offer_panes),
        "offer_title": news.offer_title,
        "offer_why": news.offer_why,
    }


class RemoteShutdowns:
    """`S` / `x` on a remote team: asked of its machine, which carries it out by its own rules."""

    def __init__(self, asks: Asks, team: Team, clock: Callable[[], float]):
        self.asks, self.team, self.clock = asks, team, clock

    def start(
        self, only: str | None, report: Report, set_timer: SetTimer, background: Background
    ) -> ShutdownController:
        return RemoteShutdown(report, self.asks, self.team, self.clock, only)


class RemoteShutdown(ShutdownController):
    """`S` / `x` on a remote team: one request; the remote's progress lines mirrored into a
    ShutdownRun here, reported as a local run's are."""

    watches: frozenset[ChangeKind] = frozenset()

    def __init__(self, report: Report, asks: Asks, team: Team, clock: Callable[[], float], only: str | None):
        super().__init__(report)
        self.asks, self.team, self.clock, self.only = asks, team, clock, only
        self.rid: str | None = None

    def start(self, targets: list[str], reason: str, deadline: float) -> None:
        self.run = ShutdownRun.mirror(
            self.team.name, targets, sender=self.team.sender, reason=reason, deadline_seconds=deadline, clock=self.clock
        )
        self.run.started_at = self.clock()
        self.rid = self.asks.request(
            "shutdown",
            f"shutdown of {self.only or 'the team'}",
            Shutdown(self.only, reason, deadline),
            on_result=self._result,
            on_progress=self._progress,
        )

    def _result(self, ok: bool, error: str, detail: str) -> None:
        if not ok:
            self.report(ShutdownNews(None, asked=f"Shutdown not started on {self.asks.name}: {error}"))

    def _progress(self, line: dict[str, Any]) -> None:
        run = self.run
        if run is None:
            return
        said = line.get("run")
        changed = (
            [n for x in (line.get("changed") or [])[:200] if (n := wire.name(x)) and n in run.teammates]
            if isinstance(line.get("changed"), list)
            else []
        )
        if isinstance(said, dict):
            run.note = wire.text(said.get("note"), 2000) or ""
            run.started_at = wire.number(said.get("started_at")) or run.started_at
            run.finished_at = wire.number(said.get("finished_at"))
            for t in (said.get("teammates") or [])[:1000] if isinstance(said.get("teammates"), list) else []:
                if not isinstance(t, dict) or wire.name(t.get("teammate")) not in run.teammates:
                    continue
                mine = run.teammates[str(t["teammate"])]
                try:
                    mine.outcome = Outcome(t.get("outcome"))
                except ValueError:
                    continue
                mine.detail = wire.text(t.get("detail"), 2000) or ""
                mine.request_id = wire.name(t.get("request_id")) or ""
                mine.answered_at = wire.number(t.get("answered_at"))
                mine.pending_work = (
                    [p for x in (t.get("pending_work") or [])[:100] if (p := wire.text(x, 2000))]
                    if isinstance(t.get("pending_work"), list)
                    else []
                )
        offer = line.get("offer_panes")
        offer = offer if isinstance(offer, dict) else {}
        panes = {n: p for k, v in list(offer.items())[:100] if (n := wire.name(k)) and (p := wire.name(v, 64))}
        self.report(
            ShutdownNews(
                run,
                changed,
                error=wire.text(line.get("error"), 2000) or "",
                offer_panes=panes,
                offer_title=wire.name(line.get("offer_title")) or "",
                offer_why=wire.text(line.get("offer_why"), 2000) or "",
                asked=wire.text(line.get("asked"), 2000) or "",
            )
        )

    def close_panes(self, names: list[str]) -> None:
        self.asks.request("close_panes", f"closing the panes of {', '.join(names)}", ClosePanes(list(names)))

    def stop(self) -> None:
        if self.rid is not None:
            self.asks.forget(self.rid)


OPS = (
    Op("shutdown", handle_shutdown, Shutdown.read, lines=("progress",)),
    Op("close_panes", handle_close_panes, ClosePanes.read),
)
