"""The room's search across its hosts (ssh hosts and each host of a NATS server): each connected host is asked (a `search` request over its
stream) and answers from its own history database; what comes back is read as untrusted input
(protocol/stream_history.py read_hits) and labelled with the host. A host that is down, or runs a
teamtui too old to search, says so instead of its hits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from teamtui.protocol.errors import ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.history.search import SearchHit
    from teamtui.session.source import AskedHost, TeamSource

# (host, its hits, why there are none: "" when it answered)
Answer = Callable[[str, list["SearchHit"], str], None]


def search_hosts(sources: Iterable[TeamSource], query: str, limit: int, done: Answer) -> list[str]:
    """Ask every host of `sources` (this machine's teams aside: the room searches its own database
    itself); `done` is called once per host, on the loop, as each answers. The hosts asked, by name."""
    asked = []
    for source in sources:
        for host in source.hosts_asked():
            asked.append(host.name)
            _ask(host, query, limit, done)
    return asked


def _ask(host: AskedHost, query: str, limit: int, done: Answer) -> None:
    from teamtui.protocol.stream_history import read_hits

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
        rid = host.request("search", None, "", on_result=on_result, on_progress=on_line, query=query, limit=limit)
    except ProtocolError as exc:
        done(host.name, [], str(exc))


__all__ = ["search_hosts"]
