"""The lead's process and the teammates' panes, where a layout records them: each a capability a
layout has or not (checked where used: `isinstance(store, RecordsLead)`). ABCs, not typing's
Protocols: importing typing costs every CLI call ~2 ms."""

from __future__ import annotations

from abc import ABC, abstractmethod

from teamtui.protocol.models import Member
from teamtui.protocol.store.common import StoreBase

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import ClassVar


class LeadProcess(StoreBase):
    """Who leads the team, and how its teammates' processes are named."""

    # Teammates stop only at the lead's word (it signs its requests): a dashboard asks the lead to
    # shut them down instead of sending shutdown requests itself.
    shutdown_via_lead: ClassVar[bool] = False

    def agent_id(self, member: Member) -> str:
        """What identifies `member`'s process (Claude Code's `--agent-id NAME@TEAM`)."""
        return member.agent_id or f"{member.name}@{self.name}"


class RecordsLead(ABC):
    """A layout that records which process leads the team (Claude Code's config.json, a workflow run's session)."""

    @abstractmethod
    def lead_state(self) -> str | None:
        """Whether the lead's process is "alive", "ended" or "unknown"; None when the layout does
        not say which process leads (a native team led by a person)."""

    @abstractmethod
    def lead_pid(self) -> int | None:
        """The lead's process id, where the layout records it."""


class LeadsInTmux(ABC):
    """A layout whose lead runs its teammates in tmux panes it records (Claude Code's)."""

    @abstractmethod
    def lead_environment(self) -> dict[str, str] | None:
        """The lead's environment (its $TMUX: the tmux server the team runs on), where readable."""

    @abstractmethod
    def teammate_pane(self, member: Member) -> str | None:
        """The tmux pane `member` runs in (`%N`) as the team's files name it."""


class RunsLead(ABC):
    """A layout a teamtui lead (`teamtui run`) may run, asked through the team's files (native)."""

    @abstractmethod
    def running_lead(self) -> int | None:
        """The pid of a teamtui lead running this team, if one does."""

    @abstractmethod
    def ask_running_lead(self, sender: str, reason: str, deadline: float, teammates: list[str]) -> str:
        """Ask the teamtui lead running this team to shut `teammates` (all: []) down; the request id."""
