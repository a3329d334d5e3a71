"""`diff`: one member's edits to one file of a team on another machine. The edits stay there (its
transcripts', else its git worktree's): the room's changes view asks (RemoteDiffs), the host
answers with a `diff` line (protocol/stream_edits.py diff_json), then the result; read back here
as untrusted input (read_diff: every value checked, the lines bounded as the EditLog bounds them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.stream_edits import diff_json, read_diff
from teamtui.session.changes import changes_of
from teamtui.session.ops.base import Asks, Op, in_thread, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.edits import Edit
    from teamtui.session.ops.base import Key, Server
    from teamtui.session.team import TeamSession


@dataclass(frozen=True, slots=True)
class Diff:
    member: str
    path: str

    @classmethod
    def read(cls, req: dict[str, Any]) -> Diff:
        return cls(string(req, "member"), string(req, "path"))


def handle(server: Server, rid: Any, key: Key, session: TeamSession, req: Diff) -> None:
    """The edits its transcripts hold, at once; else its worktree's diff, read in a thread."""
    member, path = req.member, req.path
    changes = changes_of(session)
    edits = changes.edits(member, path)
    if edits:
        _answer(server, rid, key, req, edits)
        return
    unknown = f"no change of {member} to {path} is known here"
    if not changes.may_have_worktrees:
        raise ValueError(unknown)

    def found(edit: Edit | None) -> None:
        if edit is None:
            server.result(rid, False, unknown)
        else:
            _answer(server, rid, key, req, [edit])

    in_thread(server, rid, lambda: changes.git_diff_now(member, path), found)


def _answer(server: Server, rid: Any, key: Key, req: Diff, edits: list) -> None:
    out, left_out = diff_json(edits)
    line = {"type": "diff", "id": rid, "team": list(key), "member": req.member, "path": req.path}
    server.line({**line, "edits": out, "left_out": left_out})
    server.result(rid, True, detail=f"{len(out)} edit{'s' if len(out) != 1 else ''} of {req.member} to {req.path}")


class RemoteDiffs:
    """TeamActions.diffs of a team on another machine (session/actions.py Diffs)."""

    def __init__(self, asks: Asks):
        self.asks = asks

    def fetch(self, member: str, path: str, done: Callable[[list[Edit], int, str], None]) -> None:
        got: dict[str, Any] = {}
        rid = ""

        def on_line(line: dict[str, Any]) -> None:
            said = read_diff(line) if line.get("type") == "diff" else None
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
            rid = self.asks.request("diff", "", Diff(member, path), on_result=on_result, on_progress=on_line)
        except ProtocolError as exc:
            done([], 0, str(exc))


OPS = (Op("diff", handle, Diff.read, lines=("diff",)),)
