"""A stream request answered from a thread (a read of this machine's history database, which may
take a while): the work runs off the stream server's loop, then its answer line and the request's
result are written on the loop; an exception in the work is the result's error, in one line.
Used by the `search` (session/stream_search.py) and `timeline` (session/stream_timeline.py) ops.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol, TypeVar

    T = TypeVar("T")

    class Streamer(Protocol):
        """What of the stream server (session/stream_server.py Streamer) an answer writes with."""

        def line(self, obj: dict[str, Any]) -> None: ...
        def _result(self, rid: Any, ok: bool, error: str = "", detail: str = "") -> None: ...
        async def flush(self) -> None: ...


def answer_in_thread(streamer: Streamer, rid: Any, work: Callable[[], T], answer: Callable[[T], None]) -> None:
    """`work()` in a thread; then, on the loop, `answer(what it returned)` writes the answer line and
    the request's result, or the result says what `work` raised. Either way the stream is flushed."""
    import asyncio

    def done(fut: asyncio.Future[T]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            streamer._result(rid, False, " ".join(str(exc).split())[:2000] or type(exc).__name__)
        else:
            answer(fut.result())
        asyncio.ensure_future(streamer.flush())

    asyncio.get_running_loop().run_in_executor(None, work).add_done_callback(done)


__all__ = ["answer_in_thread"]
