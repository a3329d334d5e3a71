"""Writing to a team: messages, broadcasts, shutdown requests, tasks and members, under the
honest sender (never a lead this process is not)."""

from __future__ import annotations

from abc import abstractmethod
from pathlib import Path

from teamtui.protocol.errors import NotMemberError, ProtocolError, ReadError, UnsupportedError
from teamtui.protocol.models import Member, Message, Task, TeamConfig
from teamtui.protocol.store.files import ONE_SHOT_SETTLE, InboxRead, TeamFiles
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar

    from teamtui.protocol.store import TeamStore


def refuse_stranger(cfg: TeamConfig, to: str, undone: str = "nothing was sent") -> None:
    """Refuse a recipient that is neither a member nor the lead: its inbox would be a phantom (a
    task's owner, `undone` "nothing was claimed": a teammate nobody in the team knows of)."""
    if to != cfg.lead and cfg.member(to) is None:
        names = ", ".join([cfg.lead, *(m.name for m in cfg.members[:10])]) + (", ..." if len(cfg.members) > 10 else "")
        raise NotMemberError(f"{to!r} is not a member of team {cfg.name!r} (members: {names}); {undone}")


def broadcast_recipients(cfg: TeamConfig, sender: str) -> list[str]:
    """Who a broadcast from `sender` reaches: every member still there, and the lead; never the sender."""
    from teamtui.protocol.names import is_safe_name

    names = [m.name for m in cfg.members if m.name != sender and m.status.value != "shutdown" and is_safe_name(m.name)]
    lead = cfg.lead
    if lead and lead != sender and lead not in names:
        names.append(lead)
    return names


def validation_reason(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ())) or "value"
    return f"{loc}: {first.get('msg', 'invalid')}"


class TeamWriter(TeamFiles):
    """What can be written to a team in its layout. An operation whose flag is False raises
    UnsupportedError."""

    # A task writer: create_task, claim_task, complete_task, release_task, release_owner, update_task,
    # change_task, import_tasks.
    writes_tasks: ClassVar[bool] = False
    # A shutdown's outcome is kept beside the team, one file per request: write_shutdown_result.
    writes_shutdown_results: ClassVar[bool] = False
    # A config writer: add_member, update_member (a teammate's status, pid, last_seen).
    writes_members: ClassVar[bool] = False
    # teamtui makes a team of this layout: create_team (a classmethod: asked before any store exists,
    # of the class protocol/layout.py's store_class gives).
    creates_teams: ClassVar[bool] = False
    # Why nothing can be written to this team, not even a message (a workflow run); "" when it can.
    # A dashboard shows such a team read-only and says why.
    read_only_reason: ClassVar[str] = ""

    # ---------------------------------------------------------------- writing
    @abstractmethod
    def send(
        self,
        to: str,
        content: str,
        sender: str,
        *,
        type: str = "message",
        extra: dict[str, Any] | None = None,
    ) -> Message:
        """Append one message to `to`'s inbox in this layout's wire format."""

    def config_problems(self, cfg: TeamConfig) -> list[ReadError]:
        """What is wrong in a config that parsed: members listed twice, names unsafe as file names."""
        from collections import Counter

        from teamtui.protocol.names import is_safe_name

        path = self.config_path
        counts = Counter(m.name for m in cfg.members)
        problems = [ReadError(path, f"member {name!r} is listed {n} times") for name, n in counts.items() if n > 1]
        problems += [
            ReadError(path, f"member name {m.name!r} is not a safe file name: its inbox and logs are not read")
            for m in cfg.members
            if not is_safe_name(m.name)
        ]
        return problems

    def outgoing_sender(self, configured: str) -> str:
        """Who a message from the dashboard or the CLI is from, unless named. Native teams: their lead
        when no teamtui lead runs the team (the person at the terminal is its lead) or this process
        is that lead or one it started (a hook); else `configured` (teamtui's own name): never a
        lead it is not."""
        return self.lead_name if self.may_write_as_lead() else configured

    def may_write_as_lead(self) -> bool:
        """Whether this process may write under the lead's name (see `outgoing_sender`): never,
        unless the layout says when (a native team's: protocol/native/leadpid.py)."""
        return False

    def check_recipient(self, to: str, undone: str = "nothing was sent") -> None:
        """Refuse a recipient that is neither a member nor the lead: its inbox would be a phantom."""
        refuse_stranger(self.read_config(ONE_SHOT_SETTLE), to, undone)  # a peer may be mid-rewrite

    def members_for_broadcast(self, sender: str) -> list[str]:
        return broadcast_recipients(self.read_config(ONE_SHOT_SETTLE), sender)

    def broadcast(self, content: str, sender: str) -> list[Message]:
        """Write `content` into every member's inbox except the sender's; returns what was written.
        A write that fails stops it, and the error says who already has it."""
        sent: list[Message] = []
        for name in self.members_for_broadcast(sender):
            try:
                sent.append(self.send(name, content, sender, type="broadcast"))
            except (OSError, ProtocolError) as exc:
                if not sent:
                    raise
                have = ", ".join(m.recipient for m in sent)
                has = "has" if len(sent) == 1 else "have"
                raise ProtocolError(f"the broadcast stopped at {name} ({exc}); {have} already {has} it") from exc
        return sent

    @abstractmethod
    def send_shutdown_request(self, to: str, sender: str, reason: str, deadline_seconds: float) -> str:
        """Phase one of the two-phase shutdown; returns the request id."""

    @abstractmethod
    def send_shutdown_response(
        self,
        sender: str,
        request_id: str,
        *,
        approve: bool,
        status: str = "clean",
        pending_work: list[str] | None = None,
        artifacts_committed: bool = False,
        reason: str = "",
    ) -> None:
        """A teammate's answer to a shutdown request, into the lead's inbox."""

    # ------------------------------------------- what only some layouts can do (see the flags)
    def drain(self, member: str) -> InboxRead:
        raise self._unsupported("draining an inbox")

    def log(self, member: str, text: str, level: str = "info") -> None:
        raise self._unsupported("writing a log")

    def write_shutdown_result(self, request_id: str, result: dict[str, Any]) -> Path:
        raise self._unsupported("keeping shutdown results")

    def create_task(
        self,
        subject: str,
        *,
        description: str = "",
        blocked_by: list[str] | None = None,
        files: list[str] | None = None,
        owner: str = "",
    ) -> Task:
        raise self._unsupported("creating tasks")

    def claim_task(self, task_id: str | None, owner: str) -> Task | None:
        raise self._unsupported("claiming tasks")

    def complete_task(self, task_id: str, result: str | None = None) -> Task:
        raise self._unsupported("completing tasks")

    def release_task(self, task_id: str) -> Task:
        raise self._unsupported("releasing tasks")

    def release_owner(self, owner: str) -> list[str]:
        raise self._unsupported("releasing tasks")

    def update_task(self, task_id: str, **fields: Any) -> Task:
        raise self._unsupported("updating tasks")

    def change_task(self, task_id: str, change: Callable[[Task], dict[str, Any] | None]) -> Task:
        """Read-modify-write one task under the board's lock: `change` returns the fields to set, or None."""
        raise self._unsupported("changing tasks")

    def import_tasks(self, build: Callable[[int], list[dict[str, Any]]]) -> list[Task]:
        """Create several tasks at once: `build(first_id)` returns their dicts."""
        raise self._unsupported("importing a plan")

    def add_member(self, name: str, *, status: str = "idle", **fields: Any) -> Member:
        raise self._unsupported("adding a teammate")

    def update_member(self, name: str, **fields: Any) -> Member:
        """Set fields on one member (None removes one); NotFoundError when it is not in the config."""
        raise self._unsupported("updating a teammate")

    @classmethod
    def create_team(cls, root: Path, name: str, description: str = "") -> TeamStore:
        """Make a new team of this layout under `root` (creates_teams); its store."""
        raise UnsupportedError(f"creating a team is not supported for {cls.layout} teams")
