"""The stream server's answer to a `search` request: this machine's history database searched (in a
thread: SQLite's FTS5, protocol/history/search.py), the hits written as one `hits` line, bounded
(protocol/stream_history.py), then the request's result. A query that cannot be searched, or a
history that cannot be read, is the result's error.
"""

from __future__ import annotations

from teamtui.session.stream_thread import answer_in_thread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.history.search import SearchHit
    from teamtui.session.stream_thread import Streamer


def answer_search(streamer: Streamer, rid: Any, req: dict[str, Any]) -> None:
    """Raises ValueError for a request it cannot read (the server answers it)."""
    from teamtui.protocol.stream_history import search_request

    query, limit, since = search_request(req)

    def run() -> list[SearchHit]:
        from teamtui.protocol.history.query import open_history
        from teamtui.protocol.history.search import search

        con = open_history(import_journals=False)
        try:
            return search(con, query, limit=limit, since=since)
        finally:
            con.close()

    def answer(found: list[SearchHit]) -> None:
        from teamtui.protocol.stream_history import hits_json

        hits, more = hits_json(found)
        streamer.line({"type": "hits", "id": rid, "hits": hits, "more": more})
        streamer._result(rid, True, detail=f"{len(hits)} hit{'s' if len(hits) != 1 else ''}")

    answer_in_thread(streamer, rid, run, answer)


__all__ = ["answer_search"]
