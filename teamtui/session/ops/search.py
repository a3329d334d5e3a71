"""`search`: a machine's history searched, asked of each host the room follows (ssh hosts and each
host of a NATS server). The host searches its own database in a thread (SQLite's FTS5,
protocol/history/search.py) and answers with one `hits` line, bounded (protocol/stream_history.py),
then the result; the room reads the hits back as untrusted input (read_hits), labelled with the
host. A host that is down, or runs a teamtui too old to search, says so instead of its hits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.history.query import open_history
from teamtui.protocol.history.search import SearchHit, search
from teamtui.protocol.stream_history import hits_json, read_hits, search_request
from teamtui.session.ops.base import Op, in_thread, wire_fields
from teamtui.session.source import AsksHosts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.ops.base import Key, Server
    from teamtui.session.source import AskedHost, TeamSource
    from teamtui.session.team import TeamSession

# (host, its hits, why there are none: "" when it answered)
Answer = Callable[[str, list[SearchHit], str], None]


@dataclass(frozen=True, slots=True)
class Search:
    query: str
    limit: int
    since: float | None = field(default=None, metadata={"optional": True})

    @classmethod
    def read(cls, req: dict[str, Any]) -> Search:
        return cls(*search_request(req))


def handle(server: Server, rid: Any, key: Key | None, session: TeamSession | None, req: Search) -> None:
    def run() -> list[SearchHit]:
        con = open_history(import_journals=False)
        try:
            return search(con, req.query, limit=req.limit, since=req.since)
        finally:
            con.close()

    def answer(found: list[SearchHit]) -> None:
        hits, more = hits_json(found)
        server.line({"type": "hits", "id": rid, "hits": hits, "more": more})
        server.result(rid, True, detail=f"{len(hits)} hit{'s' if len(hits) != 1 else ''}")

    in_thread(server, rid, run, answer)


def search_hosts(sources: Iterable[TeamSource], query: str, limit: int, done: Answer) -> list[str]:
    """Ask every host of `sources` (this machine's teams aside: the room searches its own database
    itself); `done` is called once per host, on the loop, as each answers. The hosts asked, by name."""
    asked = []
    for source in sources:
        for host in source.hosts_asked() if isinstance(source, AsksHosts) else ():
            asked.append(host.name)
            _ask(host, query, limit, done)
    return asked


def _ask(host: AskedHost, query: str, limit: int, done: Answer) -> None:
    got: list[SearchHit] = []
    rid = ""

    def on_line(line: dict[str, Any]) -> None:
        if line.get("type") == "hits":
            got.extend(read_hits(line, host.name))

    def on_result(ok: bool, error: str, _detail: str) -> None:
        host.forget(rid)
        if ok:
            done(host.name, got, "")
        elif "unknown op" in error:
            done(host.name, [], "its teamtui is older and does not search: upgrade it there")
        else:
            done(host.name, [], error)

    if not host.connected:
        done(host.name, [], host.status or "not connected")
        return
    try:
        rid = host.request(
            "search", None, "", on_result=on_result, on_progress=on_line, **wire_fields(Search(query, limit))
        )
    except ProtocolError as exc:
        done(host.name, [], str(exc))


OPS = (Op("search", handle, Search.read, scope="host", lines=("hits",)),)


# Why a team opened from a search hit, no longer in the room, takes nothing.
RECORDED = "this team is no longer in the room: it is shown read-only from its history"


def recorded_team(team_id: int, *, sender: str, clock: Callable[[], float]) -> TeamSession:
    """A hit's team the room no longer lists, read back from this machine's history (a thread's
    work: SQLite): shown read-only, nothing followed, nothing written."""
    from teamtui.protocol.history.query import load_state, team
    from teamtui.session.local_team import ended_local

    con = open_history(import_journals=False)
    try:
        state, row = load_state(con, team_id), team(con, team_id)
    finally:
        con.close()
    ended_at = row.ended_at or row.last_seen if row is not None else clock()
    return ended_local(state, ended_at, RECORDED, sender=sender, clock=clock)
