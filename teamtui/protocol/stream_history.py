"""The stream's part for the history: a `search` request answered by the remote machine's own
history database (protocol/history/search.py), as one `hits` line before its result. Read back
as untrusted input: every value checked, every string capped and made inert, at most HITS_CAP
hits, each with at most SEGMENTS_CAP parts of at most SEGMENT_CAP characters.
"""

from __future__ import annotations

from teamtui.protocol.stream import MAX_LINE, NAME_CAP, _float, _items, dumps, name, number, text, whole

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from teamtui.protocol.history.search import SearchHit

HITS_CAP = 100  # hits in one answer (a search asks for at most this many)
QUERY_CAP = 500  # characters of a search request's query
SEGMENTS_CAP = 40  # parts of one hit's text (matched and not)
SEGMENT_CAP = 2000  # characters of one part
HITS_BUDGET = MAX_LINE - 64 * 1024  # bytes of one hits line (the oldest hits left out past it)


def hit_json(h: SearchHit) -> dict[str, Any]:
    return {
        "team": h.team[:NAME_CAP],
        "host": h.host[:NAME_CAP],  # "" : the answering machine's own team
        "layout": h.layout[:NAME_CAP],
        "root": h.root[:4096],
        "at": _float(h.at),
        "kind": h.kind[:32],
        "who": h.who[:NAME_CAP],
        "ref": h.ref[:NAME_CAP],
        "segments": [[s[:SEGMENT_CAP], bool(m)] for s, m in h.segments[:SEGMENTS_CAP]],
    }


def hits_json(hits: list[SearchHit], budget: int = HITS_BUDGET) -> tuple[list[dict[str, Any]], bool]:
    """The hits (newest first) as a hits line's `hits`, within `budget` bytes; True when some were left out."""
    out: list[dict[str, Any]] = []
    size = 0
    for h in hits[:HITS_CAP]:
        item = hit_json(h)
        n = len(dumps(item))
        if size + n > budget:
            return out, True
        out.append(item)
        size += n
    return out, len(hits) > HITS_CAP


def read_hits(d: dict[str, Any], host: str) -> list[SearchHit]:
    """A hits line's hits, each checked, as this machine's SearchHits of `host`'s teams (a team that
    machine had from yet another one is `host/other`)."""
    from teamtui.protocol.history.search import SearchHit

    out = []
    for x in _items(d.get("hits"))[:HITS_CAP]:
        if not isinstance(x, dict):
            continue
        team, at, kind = name(x.get("team")), number(x.get("at")), name(x.get("kind"), 32)
        if not team or at is None or not kind:
            continue
        theirs = name(x.get("host")) or ""
        parts = []
        for seg in _items(x.get("segments"))[:SEGMENTS_CAP]:
            if isinstance(seg, list) and len(seg) == 2 and (said := text(seg[0], SEGMENT_CAP)) is not None:
                parts.append((said, seg[1] is True))
        out.append(
            SearchHit(
                0,
                0,
                team,
                f"{host}/{theirs}" if theirs else host,
                name(x.get("layout")) or "",
                name(x.get("root"), 4096) or "",
                at,
                kind,
                name(x.get("who")) or "",
                name(x.get("ref")) or "",
                parts,
            )
        )
    out.sort(key=lambda h: h.at, reverse=True)
    return out


def search_request(req: dict[str, Any]) -> tuple[str, int, float | None]:
    """A search request's query, limit and since, checked (raises ValueError: said in its result)."""
    query = req.get("query")
    if not isinstance(query, str) or not query.strip() or len(query) > QUERY_CAP:
        raise ValueError(f"query must be a non-empty string of at most {QUERY_CAP} characters")
    limit = whole(req.get("limit"))
    since = number(req.get("since"))
    return query, max(1, min(limit if limit is not None else 50, HITS_CAP)), since


__all__ = ["HITS_CAP", "QUERY_CAP", "hit_json", "hits_json", "read_hits", "search_request"]
