"""`ping`: whether the machine's stream answers at all; its result, nothing else."""

from __future__ import annotations

from typing import Any

from teamtui.session.ops.base import Op

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.ops.base import Key, Server
    from teamtui.session.team import TeamSession


def handle(server: Server, rid: Any, key: Key | None, session: TeamSession | None, req: Any) -> None:
    server.result(rid, True)


OPS = (Op("ping", handle, scope="host"),)
