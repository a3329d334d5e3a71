"""What the control room reads of a source of teams: this machine's files (session/local.py),
another machine over ssh (session/remote.py), each behind the same small interface, so a team is
shown, followed and acted on the same way wherever it is (session/fleet.py puts them together).

A source keeps one TeamSession per team it has and yields a FleetBatch for each batch of news,
already applied to those sessions. It may fail; the fleet restarts it and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from teamtui.session.team import Batch

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    from collections.abc import AsyncIterator, Callable, Collection, Mapping
    from typing import Protocol

    from teamtui.protocol.fleet.overview import FleetRow
    from teamtui.session.team import TeamSession

Key = tuple[str, str, str]  # (where, root, name): a row of the control room


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
    notices: list[tuple[str, str]] = field(default_factory=list)
    # The source's hooks changed: a permission request came or went, a session waits or moved on.
    hooks: bool = False


if TYPE_CHECKING:

    class TeamSource(Protocol):
        """One place teams come from."""

        name: str  # said in its rows and problems: "this machine", a host's name
        clock: Callable[[], float]

        @property
        def sessions(self) -> Mapping[Key, TeamSession]: ...
        @property
        def problems(self) -> list[str]: ...
        def rows(self, now: float, changed: Collection[Key] | None = None) -> list[FleetRow]: ...
        def prune(self) -> list[Key]: ...
        def follow(self, stop: asyncio.Event) -> AsyncIterator[FleetBatch]: ...


__all__ = ["FleetBatch", "Key"]
