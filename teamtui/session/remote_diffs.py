"""A remote team's diffs, fetched on demand: the edits stay on the team's machine (its transcripts'
files); the changes view asks for one file's with a `diff` request and is given the `diff` line
that answers it, read back as untrusted input (protocol/stream_edits.py read_diff: every value
checked, the lines bounded as the EditLog bounds them), then the request's result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from teamtui.protocol.errors import ProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from teamtui.protocol.edits import Edit

    class Asks(Protocol):
        """Requests about one remote team (session/remote_team.py Asks)."""

        def request(self, op: str, what: str, **fields: Any) -> str: ...
        def forget(self, rid: str) -> None: ...


class RemoteDiffs:
    """TeamActions.diffs of a team on another machine (session/actions.py Diffs)."""

    def __init__(self, asks: Asks):
        self.asks = asks

    def fetch(self, member: str, path: str, done: Callable[[list[Edit], int, str], None]) -> None:
        from teamtui.protocol.stream_edits import read_diff

        got: dict[str, Any] = {}
        rid = ""

        def on_line(line: dict[str, Any]) -> None:
            if line.get("type") != "diff":
                return
            said = read_diff(line)
            if said is not None and (said["member"], said["path"]) == (member, path):
                got.update(said)

        def on_result(ok: bool, error: str, _detail: str) -> None:
            self.asks.forget(rid)
            if ok and "edits" in got:
                done(got["edits"], got["left_out"], "")
            else:
                done([], 0, error or "no diff came back")

        try:
            # No word of its own in the room: the changes view says what came (or why not).
            rid = self.asks.request("diff", "", on_result=on_result, on_progress=on_line, member=member, path=path)
        except ProtocolError as exc:
            done([], 0, str(exc))


__all__ = ["RemoteDiffs"]
