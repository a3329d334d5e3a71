"""`timeline`: a team's history from its machine's database. The team's whole run is recorded there
(the room holds only what its stream brought since it connected), so the room asks for it
(RemoteTimeline, TeamActions.timeline of a remote team) and the host reads it in a thread
(protocol/history/query.py read_history), listed now or not, and answers with one `timeline` line,
bounded (protocol/stream_timeline.py timeline_json), then the result; the room reads it back as
untrusted input (read_timeline). A machine that does not hold the team, runs a teamtui too old to
answer, is away or does not answer in time: NoHistory, in words.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.history.query import read_history
from teamtui.protocol.history.timeline import TeamHistory
from teamtui.protocol.stream import dumps
from teamtui.protocol.stream_timeline import TIMELINE_BUDGET, read_timeline, timeline_json, timeline_request
from teamtui.session.actions import NoHistory
from teamtui.session.ops.base import Asks, Op, in_thread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.ops.base import Key, Server
    from teamtui.session.team import TeamSession

NOT_HELD = "its history does not hold this team (not recorded there yet, or recording is off there)"
WAIT = 30.0  # seconds the room waits for the machine's answer (its database read and the line's trip)


@dataclass(frozen=True, slots=True)
class Timeline:
    team: Key  # the answering machine's key of it (the room's Asks names it)

    @classmethod
    def read(cls, req: dict[str, Any]) -> Timeline:
        return cls(timeline_request(req))


def answer_budget(rid: Any, team: list[str]) -> int:
    """The bytes a timeline line's `history` may take: its line's budget, less its id and team."""
    return TIMELINE_BUDGET - len(dumps({"id": rid, "team": team}))


def handle(server: Server, rid: Any, key: Key | None, session: TeamSession | None, req: Timeline) -> None:
    team = list(req.team)

    def run() -> tuple[dict[str, Any], dict[str, int]] | None:
        found = read_history(req.team)
        return timeline_json(found, answer_budget(rid, team)) if found is not None else None

    def answer(found: tuple[dict[str, Any], dict[str, int]] | None) -> None:
        if found is None:
            server.result(rid, False, NOT_HELD)
            return
        history, left_out = found
        server.line({"type": "timeline", "id": rid, "team": team, "history": history, "left_out": left_out})
        lanes = len(history["lanes"])
        server.result(rid, True, detail=f"{lanes} lane{'s' if lanes != 1 else ''}")

    in_thread(server, rid, run, answer)


class RemoteTimeline:
    """TeamActions.timeline of a team on another machine (session/actions.py)."""

    def __init__(self, asks: Asks, wait: float = WAIT):
        self.asks, self.wait = asks, wait

    async def __call__(self) -> TeamHistory:
        host = self.asks.name
        down = self.asks.down
        if down:
            raise NoHistory(down)
        answer: asyncio.Future[tuple[bool, str]] = asyncio.get_running_loop().create_future()
        got: list[TeamHistory | None] = []

        def on_line(line: dict[str, Any]) -> None:
            if line.get("type") == "timeline" and not got:
                got.append(read_timeline(line, host))

        def on_result(ok: bool, error: str, _detail: str) -> None:
            if not answer.done():
                answer.set_result((ok, error))

        try:
            # No word of its own in the room: the timeline says what came (or why not).
            rid = self.asks.request("timeline", "", on_result=on_result, on_progress=on_line)
        except ProtocolError as exc:
            raise NoHistory(str(exc)) from None
        try:
            ok, error = await asyncio.wait_for(answer, self.wait)
        except TimeoutError:
            raise NoHistory(f"{host} did not answer in {self.wait:g} s") from None
        finally:
            self.asks.forget(rid)
        if not ok:
            raise NoHistory(why(host, error))
        history = got[0] if got else None
        if history is None:
            raise NoHistory(f"{host} answered with no history that could be read")
        if history.ended_at is None:
            history.end = max(history.end, time.time())  # live: up to now, on this side's clock
        return history


def why(host: str, error: str) -> str:
    """A refused timeline request, in words."""
    if "unknown op" in error:
        return f"{host} runs an older teamtui that sends no timelines: upgrade it there"
    return f"{host}: {error}"


OPS = (Op("timeline", handle, Timeline.read, scope="host", lines=("timeline",)),)
