"""A remote team's timeline, from its machine's history: the team's whole run is recorded there
(this side holds only what its stream brought since it connected), so the timeline asks for it
with a `timeline` request, over ssh or through NATS alike, and is given the `timeline` line that
answers it, read back as untrusted input (protocol/stream_timeline.py read_timeline: every value
checked, every part bounded), then the request's result. A machine that does not hold the team,
runs a teamtui too old to answer, is away or does not answer in time: NoHistory, in words.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from teamtui.protocol.errors import ProtocolError
from teamtui.session.actions import NoHistory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from teamtui.protocol.history.timeline import TeamHistory

    class Asks(Protocol):
        """Requests about one remote team (session/remote_team.py Asks)."""

        @property
        def name(self) -> str: ...
        @property
        def down(self) -> str: ...  # why nothing can be asked now ("" when connected)

        def request(
            self,
            op: str,
            what: str,
            *,
            on_result: Callable[[bool, str, str], None] | None = None,
            on_progress: Callable[[dict[str, Any]], None] | None = None,
            **fields: Any,
        ) -> str: ...
        def forget(self, rid: str) -> None: ...


WAIT = 30.0  # seconds the timeline waits for the machine's answer (its database read and the line's trip)


class RemoteTimeline:
    """TeamActions.timeline of a team on another machine (session/actions.py)."""

    def __init__(self, asks: Asks, wait: float = WAIT):
        self.asks, self.wait = asks, wait

    async def __call__(self) -> TeamHistory:
        from teamtui.protocol.stream_timeline import read_timeline

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


__all__ = ["WAIT", "RemoteTimeline", "why"]
