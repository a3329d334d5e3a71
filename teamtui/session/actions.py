"""What can be done to a team: the capabilities its source offers.

A team on this machine can be messaged, shut down and have its panes selected, by writing its
files (session/local_team.py); a team on another machine is asked over its stream
(session/remote_team.py); a workflow run takes no message at all. Each capability is an object
the source hands over, or None when the team has none: the screens ask which are there (and
dim the keys of those that are not, with the reason), never which kind of team it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from typing import Protocol

    from teamtui.protocol.changes import Change
    from teamtui.protocol.edits import Edit
    from teamtui.protocol.history.timeline import TeamHistory
    from teamtui.session.items import Item, Need, Outcome
    from teamtui.session.shutdown import Background, Report, SetTimer, ShutdownController

    class Messaging(Protocol):
        """Messages into the team's inboxes, under the honest sender."""

        # A write is done when `send` returns (a file here); else the source says later what became of it.
        confirmed: bool

        @property
        def sender(self) -> str: ...  # who a message from here is from: never a lead this process is not

        def send(self, to: str, text: str) -> list[Change]: ...
        def broadcast(self, text: str) -> tuple[list[str], list[Change]]: ...
        def recipients(self) -> list[str]: ...

    class Shutdowns(Protocol):
        """The team's graceful shutdown, and one teammate's."""

        def start(
            self, only: str | None, report: Report, set_timer: SetTimer, background: Background
        ) -> ShutdownController: ...

    class Panes(Protocol):
        """The team's own tmux panes, and teamtui's `follow` panes beside the dashboard. Slow (tmux,
        /proc): for the caller to run off its loop."""

        follow: tuple[Path, str] | None  # (root, team) a `teamtui follow` pane here can follow

        def pane_of(self, name: str, lead: bool = True) -> str | None: ...
        def select(self, name: str) -> str | None: ...
        def orphans(self, names: list[str]) -> dict[str, str] | None: ...
        def close_orphans(self, panes: dict[str, str]) -> tuple[list[str], list[str]]: ...

    class Diffs(Protocol):
        """A file's diff fetched from where the team is (its edits stay there): `done(edits,
        left_out, error)` is called once, on the caller's loop."""

        def fetch(self, member: str, path: str, done: Callable[[list[Edit], int, str], None]) -> None: ...

    class Answers(Protocol):
        """What waits for the person that they can answer, and answering it (session/answers.py):
        carried out by the machine the team is on, under its rules; the outcome reported back."""

        @property
        def where(self) -> str: ...  # "" : this machine; else the host the answer travels to

        def items(self) -> list[Item]: ...  # the permission requests hooks wait on; sessions waiting for a person
        def item_for(self, need: Need) -> Item | None: ...  # a need with the answers it takes (None: none)
        def answer(
            self,
            item_id: str,
            decision: str,
            message: str,
            *,
            via: str,
            where: str,
            report: Callable[[Outcome], None],
            background: Background,
        ) -> None: ...


class NoHistory(Exception):
    """Where the team's history is kept cannot give it (why, in words: not recorded there, a host
    that is away or too old): the timeline shows what is in memory instead, and says why."""


def _none() -> str | None:
    return None


@dataclass
class TeamActions:
    """A team's capabilities, each present or None, and the facts its source reads live."""

    sender: str = "teamtui"  # who a message from here would be from (said in the dialogs)
    messages: Messaging | None = None
    shutdowns: Shutdowns | None = None
    panes: Panes | None = None
    answers: Answers | None = None
    # Claude Code's hooks would let the room answer its permission requests (said once when not installed).
    hooks_help: bool = False
    # Where its panes are when not here (a host's name): said instead of selecting one.
    panes_elsewhere: str = ""
    # Whether its lead's process runs ("alive", "ended", "unknown"), None when it has no such lead.
    lead_state: Callable[[], str | None] = field(default=_none)
    # A workflow run's own word on how it stands (running, completed, failed ...), None for a team.
    run_status: Callable[[], str | None] = field(default=_none)
    # Its folder on this machine (where its files, and the files its teammates change, are): None
    # when it is elsewhere; and whether its teammates may work in git worktrees (a teamtui run).
    folder: Path | None = None
    worktrees: bool = False
    # A file's diff asked of the team's machine (a team elsewhere); None: its edits are here, or nowhere.
    diffs: Diffs | None = None
    # Its history for the timeline, read where it is recorded: this machine's database
    # (session/local_team.py), or its host's, asked over the stream (session/ops/timeline.py).
    # Awaited on the caller's loop; raises NoHistory (why) when that place has none of it. None:
    # nothing records it (the timeline shows what is in memory).
    timeline: Callable[[], Awaitable[TeamHistory]] | None = None


__all__ = ["NoHistory", "TeamActions"]
