"""What the control room reads of a source of teams: this machine's files (session/local.py),
another machine over ssh (session/remote.py), each behind the same small interface, so a team is
shown, followed and acted on the same way wherever it is (session/fleet.py puts them together).

A source keeps one TeamSession per team it has and yields a FleetBatch for each batch of news,
already applied to those sessions. It may fail; the fleet restarts it and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from teamtui.session.team import Batch

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncIterator, Callable, Collection, Mapping
    from pathlib import Path

    from teamtui.protocol.changes import Change
    from teamtui.protocol.fleet.overview import FleetRow
    from teamtui.protocol.models import Message
    from teamtui.session.actions import Answers
    from teamtui.session.team import TeamSession

Key = tuple[str, str, str]  # (where, root, name): a row of the control room
# How much a notice matters: the levels of a Textual toast (its SeverityLevel; this layer imports no textual).
Severity = Literal["information", "warning", "error"]
# A row whose team had no change is built again after this long: what moves with time alone (the
# lead's process, a teammate past the health timeout, "silent" owners) is never older than this.
ROW_FRESH = 2.0


@dataclass
class FleetBatch:
    """One batch of news from a source, applied to the sessions it concerns."""

    changes: dict[Key, Batch] = field(default_factory=dict)  # per team, what changed
    appeared: list[Key] = field(default_factory=list)
    gone: list[Key] = field(default_factory=list)  # no longer listed (aged out, or never read)
    rediscovered: bool = False  # the teams were looked for again: a row's problem may have changed
    read_seconds: float = 0.0
    source: str = ""  # which source it came from
    # What to tell the person, as (text, severity): a request's result, a connection lost or back.
    notices: list[tuple[str, Severity]] = field(default_factory=list)
    # The source's hooks changed: a permission request came or went, a session waits or moved on.
    hooks: bool = False


# What a source offers beyond its teams, each only where it has it (Fleet asks those that do).
@runtime_checkable
class Prunes(Protocol):
    """Drops the teams it keeps past their time itself (session/local.py); a host's ended teams
    leave with its `gone` line instead."""

    def prune(self) -> list[Key]: ...


@runtime_checkable
class FindsTeams(Protocol):
    """Looks for teams in folders (this machine's: session/local.py)."""

    def looked_at(self) -> list[Path]: ...  # where teams would appear (an empty room says so)
    def left_out(self) -> list[str]: ...  # teams found but not asked for: "name (where)"


@runtime_checkable
class TakesDrained(Protocol):
    """Holds the team a lead of this process leads (session/local.py): what it drains goes in."""

    def ingest(self, recipient: str, messages: list[Message]) -> dict[Key, list[Change]]: ...


@runtime_checkable
class FollowsHooks(Protocol):
    """Follows this machine's Claude Code hooks (session/local.py): their requests and spool."""

    @property
    def hook_spool(self) -> Path | None: ...
    def recheck_hooks(self) -> bool: ...
    def hook_news(self) -> list[str]: ...
    def next_hook_deadline(self) -> float | None: ...


@runtime_checkable
class AnswersLoose(Protocol):
    """Answers its machines' permission requests of no team it lists, by machine."""

    def loose(self) -> list[tuple[str, Answers]]: ...


@runtime_checkable
class AsksHosts(Protocol):
    """Reads other machines over a stream, each asked a question of its own (the room's search):
    an ssh host itself, each host of a NATS server."""

    def hosts_asked(self) -> list[AskedHost]: ...


if TYPE_CHECKING:

    class TeamSource(Protocol):
        """One place teams come from (what more it offers: the capabilities above)."""

        name: str  # said in its rows and problems: "this machine", a host's name
        clock: Callable[[], float]

        @property
        def sessions(self) -> Mapping[Key, TeamSession]: ...
        @property
        def problems(self) -> list[str]: ...
        def rows(self, now: float, changed: Collection[Key] | None = None) -> list[FleetRow]: ...
        def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]: ...

    class AskedHost(Protocol):
        """A machine a source reads over a stream, asked a question of its own (stream_reader.py
        StreamedHost: an ssh host, a host of a NATS server)."""

        name: str
        connected: bool

        @property
        def status(self) -> str: ...  # why it is not connected ("" when it is)

        def request(
            self,
            op: str,
            remote_key: Key | None,
            what: str,
            *,
            on_result: Callable[[bool, str, str], None] | None = None,
            on_progress: Callable[[dict[str, object]], None] | None = None,
            **fields: object,
        ) -> str: ...
        def forget(self, rid: str) -> None: ...


__all__ = ["AnswersLoose", "AsksHosts", "FindsTeams", "FleetBatch", "FollowsHooks", "Key", "Prunes", "TakesDrained"]
