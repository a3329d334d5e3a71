"""`send` and `broadcast`: a message written on the team's machine, by its rules (under
TeamSession.sender there, never a lead that process is not); the room asks (RemoteMessaging), the
host writes it (`handle_send`, `handle_broadcast`) and answers with its result line. What it
wrote comes back in the stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from teamtui.protocol.changes import Change
from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.store import broadcast_recipients, refuse_stranger
from teamtui.session.ops.base import Asks, Op, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from teamtui.protocol.models import TeamConfig
    from teamtui.session.ops.base import Key, Server
    from teamtui.session.team import TeamSession

    class Team(Protocol):
        """The streamed model of a remote team (session/remote_team.py StreamedTeam)."""

        config: TeamConfig | None
        sender: str  # who a message from here is written as, there

        @property
        def name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Send:
    to: str
    text: str

    @classmethod
    def read(cls, req: dict[str, Any]) -> Send:
        return cls(string(req, "to"), string(req, "text"))


@dataclass(frozen=True, slots=True)
class Broadcast:
    text: str

    @classmethod
    def read(cls, req: dict[str, Any]) -> Broadcast:
        return cls(string(req, "text"))


def writable(session: TeamSession) -> None:
    if session.read_only:
        raise ValueError(session.read_only)


def handle_send(server: Server, rid: Any, key: Key, session: TeamSession, req: Send) -> None:
    writable(session)
    server.changes_lines(key, session.send(req.to, req.text))
    server.result(rid, True, detail=f"written to {req.to}'s inbox as {session.sender}")


def handle_broadcast(server: Server, rid: Any, key: Key, session: TeamSession, req: Broadcast) -> None:
    writable(session)
    recipients, changes = session.broadcast(req.text)
    server.changes_lines(key, changes)
    server.result(rid, True, detail=f"written to {', '.join(recipients) or 'nobody'} as {session.sender}")


class RemoteMessaging:
    """A message or broadcast asked of the remote: refused here already for someone not in the
    streamed config; what the remote wrote arrives in the stream, and its result line says how it went."""

    confirmed = False

    def __init__(self, asks: Asks, team: Team):
        self.asks, self.team = asks, team

    @property
    def sender(self) -> str:
        return self.team.sender  # the remote decides who a message from this control room is from

    def _config(self):
        if self.team.config is None:
            raise ProtocolError(
                f"team {self.team.name!r} on {self.asks.name}: its config has not arrived; nothing was sent"
            )
        return self.team.config

    def send(self, to: str, text: str) -> list[Change]:
        refuse_stranger(self._config(), to)
        self.asks.request("send", f"message to {to}", Send(to, text))
        return []

    def recipients(self) -> list[str]:
        return broadcast_recipients(self._config(), self.sender)

    def broadcast(self, text: str) -> tuple[list[str], list[Change]]:
        names = self.recipients()
        self.asks.request("broadcast", "broadcast", Broadcast(text))
        return names, []


OPS = (Op("send", handle_send, Send.read), Op("broadcast", handle_broadcast, Broadcast.read))
