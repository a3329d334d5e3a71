"""What every stream op is made of: its declaration (`Op`: its name, whether it names a team, the
lines that answer it before its result, its request record and the handler the host runs), the
room's side of asking (`Asks`, over a host's connection) and the host's side of answering
(`Server`, what a handler writes with). Each op's module (session/ops/) holds one of each; the
registry (session/ops/__init__.py) is the one list of them.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from teamtui.protocol.stream import MAX_REQUEST

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol, TypeVar

    from teamtui.session.items import Item
    from teamtui.session.local import LocalSource
    from teamtui.session.shutdown import Background
    from teamtui.session.source import AskedHost

    T = TypeVar("T")

    class Server(Protocol):
        """What of the stream server (session/stream_server.py Streamer) a handler writes with."""

        fleet: LocalSource

        @property
        def via(self) -> str: ...  # what carried the request: "ssh", "NATS"

        shutdowns: dict[Key, tuple[Any, Any]]  # a team's shutdown under way: its request's id, its controller

        def line(self, obj: dict[str, Any]) -> None: ...
        def result(self, rid: Any, ok: bool, error: str = "", detail: str = "") -> None: ...
        def changes_lines(self, key: Key, changes: list, *, full: bool = False) -> None: ...
        async def flush(self) -> None: ...

    class Host(AskedHost, Protocol):
        """The connection a remote team's requests go over (session/stream_reader.py StreamedHost):
        a host asked questions, and the permission requests its hooks wait on."""

        def hook_items(self, remote_key: Key | None) -> list[Item]: ...


Key = tuple[str, str, str]
# Who a request is about: "team" a team listed here; "host" the machine (what it names, it reads
# itself); "either" a team listed here when it names one, else the machine.
Scope = Literal["team", "host", "either"]
# handle(server, rid, key, session, its request record): key and session None unless it names a team
Handler = Callable[..., None]


@dataclass(frozen=True, slots=True)
class Op:
    """One request the stream carries, declared once: the host runs `handle(server, rid, key,
    session, request)` on `read(req)`'s record; `lines` are the line kinds that answer it before its result."""

    name: str
    handle: Handler
    read: Callable[[dict[str, Any]], Any] = lambda req: req
    scope: Scope = "team"
    lines: tuple[str, ...] = ()


def wire_fields(record: Any) -> dict[str, Any]:
    """A request record as the request's fields: each under its name (or its `wire` name); an
    `optional` one only when set."""
    return {
        f.metadata.get("wire", f.name): getattr(record, f.name)
        for f in dataclasses.fields(record)
        if not (f.metadata.get("optional") and getattr(record, f.name) is None)
    }


def string(req: dict[str, Any], field: str) -> str:
    """A request's field that must be a non-empty string (raises ValueError: said in its result)."""
    v = req.get(field)
    if not isinstance(v, str) or not v or len(v) > MAX_REQUEST:
        raise ValueError(f"{field} must be a non-empty string")
    return v


def in_thread(server: Server, rid: Any, work: Callable[[], T], answer: Callable[[T], None]) -> None:
    """`work()` in a thread (a read of the history, of git: what may take a while); then, on the
    loop, `answer(what it returned)` writes the answer line and the result, or the result says what
    `work` raised, in one line. Either way the stream is flushed."""

    def done(fut: asyncio.Future[T]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            server.result(rid, False, " ".join(str(exc).split())[:2000] or type(exc).__name__)
        else:
            answer(fut.result())
        asyncio.ensure_future(server.flush())

    asyncio.get_running_loop().run_in_executor(None, work).add_done_callback(done)


def background(failed: Callable[[BaseException, Callable[[Any], None]], None]) -> Background:
    """The `background` a session's work asks for, on this loop: `work()` in a thread, then
    `done(what it returned)` on the loop, or `failed(what it raised, done)`."""
    loop = asyncio.get_running_loop()

    def run(work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        def finished(fut: asyncio.Future) -> None:
            exc = None if fut.cancelled() else fut.exception()
            if exc is not None:
                failed(exc, done)
            elif not fut.cancelled():
                done(fut.result())

        loop.run_in_executor(None, work).add_done_callback(finished)

    return run


class Asks:
    """Requests about one remote team (None: about its machine), over its host's connection."""

    def __init__(self, host: Host, remote_key: Key | None):
        self.host, self.remote_key = host, remote_key

    @property
    def name(self) -> str:
        return self.host.name

    @property
    def down(self) -> str:
        """Why nothing can be asked of it now, in words ("" when connected)."""
        host = self.host
        return "" if host.connected else f"{host.name} is {host.status or 'not connected'}"

    def request(self, op: str, what: str, record: Any = None, **fields: Any) -> str:
        """Ask `op` of it; `record` (the op's request record) gives the request's fields."""
        return self.host.request(op, self.remote_key, what, **(wire_fields(record) if record else {}), **fields)

    def forget(self, rid: str) -> None:
        self.host.forget(rid)


__all__ = ["Asks", "Key", "Op", "Scope", "background", "in_thread", "string", "wire_fields"]
