"""TeamSession: one team as the screens see it, wherever it is.

Its model (protocol/model.py TeamModel: everything known, kept current by its source), the
capabilities its source offers (session/actions.py TeamActions: message it, shut it down, select
its panes; each there or not), whether it is live or shown as it was, and the health rule. A
screen is handed one and renders it; it never knows whether the team's files are on this machine
(session/local_team.py makes those) or on another one (session/remote_team.py).

Nothing here knows Textual: slow work (tmux, /proc) is a plain function the caller runs off its
loop, and shutdown progress is reported through a callable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from teamtui.protocol.changes import Change, ChangeKind
from teamtui.protocol.errors import UnsupportedError
from teamtui.protocol.health import disappears_at
from teamtui.protocol.model import TeamModel
from teamtui.protocol.models import MemberStatus
from teamtui.protocol.shutdown import live_teammates
from teamtui.session.actions import TeamActions
from teamtui.session.shutdown import Background, Report, SetTimer, ShutdownController

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.session.actions import Messaging


@dataclass
class Batch:
    """One team's part of a source's batch, already applied to its model."""

    changes: list[Change]
    full: bool = False  # a rescan: everything may have changed
    heads: bool = False  # the transcripts' heads were counted: the token figures are whole now


@dataclass
class Health:
    """Who crossed the health rule since the last look, and when to look next."""

    disappeared: list[str] = field(default_factory=list)  # newly silent while holding a task
    back: list[str] = field(default_factory=list)  # active again
    next_check_at: float | None = None  # when the next teammate could cross the timeout
    moved: bool = False  # the set of disappeared teammates changed


class TeamSession:
    """One team: its model, what can be done to it, whether it is live."""

    def __init__(
        self,
        state: TeamModel,
        actions: TeamActions,
        *,
        clock: Callable[[], float] = time.time,
        ended_at: float | None = None,
        read_only: str = "",
    ):
        self.state = state
        self.actions = actions
        self.clock = clock
        self.ended_at = ended_at  # the team ended (its folder deleted) or was opened from a record
        # Why nothing may be written ("": it may): the source's reason (an ended team, a workflow run).
        self.read_only = read_only
        self.disappeared: set[str] = set()

    # ------------------------------------------------------------------ what it is
    @property
    def name(self) -> str:
        return self.state.name

    @property
    def live(self) -> bool:
        """Its source keeps it current (not ended, not a record)."""
        return self.ended_at is None

    @property
    def sender(self) -> str:
        """Who a message from here is from: never a lead this process is not."""
        return self.actions.messages.sender if self.actions.messages is not None else self.actions.sender

    @property
    def panes_on(self) -> str:
        """ "" when the team's panes are on this machine; else the machine they are on (nothing to select here)."""
        return self.actions.panes_elsewhere

    @property
    def here(self) -> Path | None:
        """The team's folder when it is on this machine (None: elsewhere)."""
        return self.actions.folder

    @property
    def worktrees(self) -> bool:
        """Its teammates may work in git worktrees of its folder."""
        return self.actions.worktrees

    def lead_state(self) -> str | None:
        return self.actions.lead_state()

    def run_status(self) -> str | None:
        return self.actions.run_status()

    def note_changes(self, changes: list[Change]) -> bool:
        """After a batch: a team whose folder went with its lead (a Claude Code session team) has
        ended, and is kept on screen as it was. True when that just happened."""
        # The batch first: asking the lead's process (psutil) on every batch would cost the UI loop.
        if self.ended_at is not None or not any(c.kind == ChangeKind.TEAM_GONE for c in changes):
            return False
        if self.lead_state() is None:
            return False
        self.ended_at = self.clock()
        self.read_only = "the team has ended (its lead exited): it is shown as it was"
        return True

    def lead_gone(self) -> bool:
        """A team whose shutdown goes through its lead, and the lead has ended: nobody can approve one."""
        if not self.state.traits.shutdown_via_lead:
            return False
        return self.ended_at is not None or self.lead_state() == "ended"

    # ------------------------------------------------------------------ health
    def check_health(self) -> Health:
        """Who disappeared (silent past the timeout while holding a task) or came back since the
        last look, and when the next one could."""
        now = self.clock()
        views = self.state.member_views(now)
        current = {v.name for v in views if v.disappeared}
        health = Health(
            sorted(current - self.disappeared), sorted(self.disappeared - current), moved=current != self.disappeared
        )
        self.disappeared = current
        health.next_check_at = self._next_check(views)
        return health

    def next_health_check(self) -> float | None:
        """When the next teammate could cross the health timeout (nothing else changes)."""
        return self._next_check(self.state.member_views(self.clock()))

    def _next_check(self, views: list) -> float | None:
        due = [
            at
            for v in views
            if not v.disappeared
            and (
                at := disappears_at(
                    holds_task=v.current_task is not None,
                    stopped=v.departed or v.status == MemberStatus.SHUTDOWN,
                    last_activity=v.last_activity,
                    timeout=self.state.health_timeout,
                )
            )
            is not None
        ]
        return min(due) if due else None

    # ------------------------------------------------------------------ acting on it
    def _messages(self) -> Messaging:
        if self.actions.messages is None:
            raise UnsupportedError(self.read_only or "this team takes no message")
        return self.actions.messages

    def send(self, name: str, text: str) -> list[Change]:
        """`text` into `name`'s inbox, under the honest sender; what it changed (raises on refusal)."""
        return self._messages().send(name, text)

    def broadcast_recipients(self) -> list[str]:
        return self._messages().recipients()

    def broadcast(self, text: str) -> tuple[list[str], list[Change]]:
        return self._messages().broadcast(text)

    def live_teammates(self, only: str | None = None) -> list[str]:
        return live_teammates(self.state, only)

    def shutdown(
        self, only: str | None, report: Report, set_timer: SetTimer, background: Background
    ) -> ShutdownController:
        """How a shutdown of `only` (None: the whole team) is carried out, as the source decides."""
        if self.actions.shutdowns is None:
            raise UnsupportedError(self.read_only or "this team cannot be shut down from here")
        return self.actions.shutdowns.start(only, report, set_timer, background)

    # ------------------------------------------------------------------ panes (slow: tmux, /proc)
    def pane_of(self, name: str, lead: bool = True) -> str | None:
        """The tmux pane that answers for `name`: its own, else (with `lead`) the lead's."""
        return self.actions.panes.pane_of(name, lead) if self.actions.panes is not None else None

    def select_pane(self, name: str) -> str | None:
        """Bring `name`'s pane (or the lead's) forward; the pane, or None."""
        return self.actions.panes.select(name) if self.actions.panes is not None else None

    def orphan_panes(self, names: list[str]) -> dict[str, str] | None:
        """With the lead ended: of `names`, the teammates whose pane still runs them, name -> pane;
        None when the team's tmux server is unknown."""
        return self.actions.panes.orphans(names) if self.actions.panes is not None else None

    def close_orphan_panes(self, panes: dict[str, str]) -> tuple[list[str], list[str]]:
        """Close the panes the person confirmed, each checked again just before: (closed, errors)."""
        if self.actions.panes is None:
            return [], [f"the panes are on {self.panes_on}: close them there" if self.panes_on else "no panes here"]
        return self.actions.panes.close_orphans(panes)


__all__ = ["Batch", "Health", "TeamSession"]
