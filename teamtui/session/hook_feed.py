"""This machine's hooks as a room follows them: the permission requests hooks wait on, and the
Claude Code sessions that wait for a person, kept current from the spool (protocol/hooks) on the
file events of its folder (session/local.py watches it beside the teams): nothing is polled.

- a request folder appearing, its answer, or its hook going (`requests/<id>/…`): that one request
  is read again (`answers.read_ask`);
- a new spool line (`events.jsonl`): read from where the last read ended (`SpoolReader`). A
  `Notification` saying the session waits for a person (`idle_prompt`, `agent_needs_input`) is
  remembered until any other event of that session (it moved on) or its end. What the events say
  of a teammate (`TeammateIdle`, an in-process teammate's `SubagentStart` / `SubagentStop`) is
  kept as its status (`said_of`), which the team's rows show while nothing newer of it was seen.

A hook killed outright (no answer, no event) leaves its request looking open until it is read
again: `recheck` reads those past their deadline (the room's one timer, the stream's heartbeat).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamtui.protocol.hooks.answers import OPEN, PermissionAsk, list_asks, read_ask
from teamtui.protocol.hooks.asks import is_request_id
from teamtui.protocol.hooks.event import cut, session_team
from teamtui.protocol.hooks.place import EVENTS, EVENTS_OLD, REQUESTS, ensure_requests
from teamtui.protocol.hooks.said import Said, said_by
from teamtui.protocol.hooks.spool import SpoolReader
from teamtui.protocol.models import MemberStatus

# A Notification that means the session waits for a person (FORMATS.md §4). `permission_prompt`
# and `worker_permission_prompt` are the requests themselves: listed as such, not twice.
WAITING_TYPES = frozenset({"idle_prompt", "agent_needs_input"})
MAX_WAITING = 500  # sessions remembered as waiting (a spool cannot fill memory with them)
MAX_SAID = 2000  # teammates whose last status a hook said (bounded likewise)


@dataclass(frozen=True, slots=True)
class Waiting:
    """A Claude Code session that said it waits for a person."""

    session_id: str
    team: str  # the session's team name (`session-<8 hex>`); it is shown only for a team the room lists
    who: str  # an in-process teammate, or "" for the lead
    text: str  # Claude Code's message ("Claude is waiting for your input")
    since: float


class HookFeed:
    """The open permission requests and the waiting sessions of this machine's spool."""

    def __init__(self, spool: Path):
        self.spool = spool
        self.requests = spool / REQUESTS
        self.asks: dict[str, PermissionAsk] = {}  # id -> an open request (its hook waits)
        self.waiting: dict[str, Waiting] = {}  # session id -> what it waits for
        self.dropped = 0  # spool lines the hook could not keep (said by `teamtui hooks status`)
        self.news: list[str] = []  # requests closed without an answer from a room, to say (taken by the source)
        self.said: dict[tuple[str, str], tuple[MemberStatus, float]] = {}  # (team, teammate) -> status, when
        self.said_teams: set[str] = set()  # teams whose teammates' said statuses changed (taken by the source)
        self._reader: SpoolReader | None = None
        self._real: dict[str, str] = {}  # a request's Claude Code folder -> its real path

    # ------------------------------------------------------------------ where to watch
    def watch_dirs(self) -> list[Path]:
        return [self.spool, self.requests]

    def flat_dirs(self) -> set[Path]:
        """The spool itself without its subfolders (the requests' folders are watched with theirs)."""
        return {self.spool}

    def owns(self, path: Path) -> bool:
        return path == self.spool or path.parent == self.spool or self.requests in path.parents

    # ------------------------------------------------------------------ reading
    def load(self) -> bool:
        """Everything again (the watches are (again) in place): every open request, and the spool
        from where it was left (from its start the first time). Whether anything changed."""
        ensure_requests(self.spool)
        before = (set(self.asks), dict(self.waiting))
        self.asks = {a.id: a for a in list_asks(self.spool)}
        if self._reader is None:  # the spool from its start (at most a generation): who waits now
            self._reader = SpoolReader(self.spool, from_start=True)
        self._take_lines()
        return (set(self.asks), self.waiting) != before

    def take(self, paths: list[Path] | set[Path]) -> bool:
        """The paths of a watch batch under the spool: the requests they concern read again, new
        spool lines taken. Whether the open requests or the waiting sessions changed."""
        changed = False
        ids: set[str] = set()
        spool_moved = False
        for p in paths:
            if p.name in (EVENTS, EVENTS_OLD) and p.parent == self.spool:
                spool_moved = True
            elif self.requests in p.parents:
                rid = p.relative_to(self.requests).parts[0]
                if is_request_id(rid):
                    ids.add(rid)
        for rid in ids:
            changed |= self._read_ask(rid)
        if spool_moved:
            changed |= self._take_lines()
        return changed

    def recheck(self, now: float | None = None) -> bool:
        """Requests past their deadline read again: a hook killed outright leaves no event."""
        now = time.time() if now is None else now
        changed = False
        for rid in [rid for rid, a in self.asks.items() if a.deadline and a.deadline < now]:
            changed |= self._read_ask(rid)
        return changed

    def next_deadline(self) -> float | None:
        due = [a.deadline for a in self.asks.values() if a.deadline]
        return min(due) if due else None

    def _read_ask(self, rid: str) -> bool:
        ask = read_ask(self.spool, rid)
        if ask is not None and ask.state == OPEN:
            had = self.asks.get(rid)
            self.asks[rid] = ask
            return had is None
        was = self.asks.pop(rid, None)
        if was is not None:
            self._closed(was, ask)
        return was is not None

    def _closed(self, was: PermissionAsk, now: PermissionAsk | None) -> None:
        """A request that left the list: said when no room answered it (the hook moved it, or the
        person answered in the lead's terminal); a room's answer was said to whoever gave it."""
        answer = now.answer if now is not None else None
        via = answer.get("via") if answer else None
        if via not in (None, "hook", "terminal") or len(self.news) >= 20:
            return
        why = (answer or {}).get("why") or "its hook ended"
        where = f"{was.team} · " if was.team else ""
        self.news.append(f"{where}{was.asker}'s {was.summary}: moved to the lead's terminal ({why})")

    def take_news(self) -> list[str]:
        news, self.news = self.news, []
        return news

    def _take_lines(self) -> bool:
        assert self._reader is not None
        records = self._reader.read()
        self.dropped = self._reader.dropped
        changed = False
        for rec in records:
            changed |= self._take_event(rec)
        return changed

    def _take_event(self, rec: dict[str, Any]) -> bool:
        sid = rec.get("session_id")
        if not isinstance(sid, str) or not sid:
            return False
        event = rec.get("event")
        if (said := said_by(rec)) is not None:
            self._say(*said)
        if event == "Notification" and rec.get("notification_type") in WAITING_TYPES:
            if sid not in self.waiting and len(self.waiting) >= MAX_WAITING:
                self.waiting.pop(next(iter(self.waiting)))
            at = rec.get("at")
            message = rec.get("message")
            self.waiting[sid] = Waiting(
                sid,
                session_team(sid),
                cut(rec["agent_type"], 300) if isinstance(rec.get("agent_type"), str) else "",
                cut(message, 300) if isinstance(message, str) and message else "waiting for your input",
                float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else time.time(),
            )
            return True
        if event == "Notification":
            return False  # a permission prompt: the request itself is listed
        return self.waiting.pop(sid, None) is not None  # it moved on (or ended)

    def _say(self, team: str, who: str, status: MemberStatus, at: float) -> None:
        key = (team, who)
        if key not in self.said and len(self.said) >= MAX_SAID:
            self.said.pop(next(iter(self.said)))
        self.said[key] = (status, at)
        self.said_teams.add(team)

    def said_of(self, team: str) -> Said:
        """What the hooks last said of each teammate of `team`: its status, and when."""
        return {who: said for (t, who), said in self.said.items() if t == team}

    def take_said_teams(self) -> set[str]:
        teams, self.said_teams = self.said_teams, set()
        return teams

    # ------------------------------------------------------------------ by team
    def real(self, folder: str) -> str:
        found = self._real.get(folder)
        if found is None:
            try:
                found = os.path.realpath(folder) if folder else ""
            except (OSError, ValueError):
                found = folder
            if len(self._real) > 100:
                self._real.clear()
            self._real[folder] = found
        return found

    def asks_of(self, team: str, root: str) -> list[PermissionAsk]:
        """The open requests of the Claude Code team `team` whose folder (real path) is `root`, oldest first."""
        found = [
            a for a in self.asks.values() if a.team == team and self.real(str(a.raw.get("config_dir") or "")) == root
        ]
        return sorted(found, key=lambda a: a.at)

    def waiting_of(self, team: str) -> list[Waiting]:
        return [w for w in self.waiting.values() if w.team == team]


__all__ = ["HookFeed", "Waiting", "WAITING_TYPES", "session_team"]
