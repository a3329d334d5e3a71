"""The stream server's answer to a `search` request: this machine's history database searched (in a
thread: SQLite's FTS5, protocol/history/search.py), the hits written as one `hits` line, bounded
(protocol/stream_history.py), then the request's result. A query that cannot be searched, or a
history that cannot be read, is the result's error.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Streamer(Protocol):
        """What of the stream server (session/stream_server.py Streamer) an answer writes with."""

        def line(self, obj: dict[str, Any]) -> None: ...
        def _result(self, rid: Any, ok: bool, error: str = "", detail: str = "") -> None: ...
        async def flush(self) -> None: ...


def answer_search(streamer: Streamer, rid: Any, req: dict[str, Any]) -> None:
    """Raises ValueError for a request it cannot read (the server answers it)."""
    import asyncio

    from teamtui.protocol.stream_history import search_request

    query, limit, since = search_request(req)

    def run() -> list:
        from teamtui.protocol.history.query import open_history
        from teamtui.protocol.history.search import search

        con = open_history(import_journals=False)
        try:
            return search(con, query, limit=limit, since=since)
        finally:
            con.close()

    def done(fut: asyncio.Future) -> None:
        from teamtui.protocol.stream_history import hits_json

        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            streamer._result(rid, False, " ".join(str(exc).split())[:2000] or type(exc).__name__)
        else:
            hits, more = hits_json(fut.result())
            streamer.line({"type": "hits", "id": rid, "hits": hits, "more": more})
            streamer._result(rid, True, detail=f"{len(hits)} hit{'s' if len(hits) != 1 else ''}")
        asyncio.ensure_future(streamer.flush())

    asyncio.get_running_loop().run_in_executor(None, run).add_done_callback(done)


__all__ = ["answer_search"]
