"""What both layouts offer: one TeamStore interface over a team's files.

The dashboard, the CLI and the runtime only talk to a TeamStore, never to paths.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from pathlib import Path

from teamtui.protocol.errors import NotMemberError, ParseError, ProtocolError, ReadError, UnsupportedError
from teamtui.protocol.models import Member, Message, Task, TeamConfig
from teamtui.protocol.record import FrozenRecord, Record, init_field
from teamtui.protocol.tail import TailBatch
from teamtui.protocol.traits import TeamTraits
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Literal

    FileKind = Literal["config", "task", "task_sidecar", "inbox", "log", "shutdown", "touching"]


class FileRef(FrozenRecord):
    """What a changed path is to the team: its kind and key (member name, task id)."""

    __slots__ = ("kind", "key")
    kind: FileKind
    key: str

    def __init__(self, kind: FileKind, key: str = ""):
        init_field(self, "kind", kind)
        init_field(self, "key", key)


class InboxRead(Record):
    __slots__ = ("messages", "errors")

    def __init__(self, messages: list[Message], errors: list[ReadError]):
        self.messages = messages
        self.errors = errors


def refuse_stranger(cfg: TeamConfig, to: str) -> None:
    """Refuse a recipient that is neither a member nor the lead: its inbox would be a phantom."""
    if to != cfg.lead and cfg.member(to) is None:
        names = ", ".join([cfg.lead, *(m.name for m in cfg.members[:10])]) + (", ..." if len(cfg.members) > 10 else "")
        raise NotMemberError(f"{to!r} is not a member of team {cfg.name!r} (members: {names}); nothing was sent")


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


class TeamStore(ABC):
    """One team's files in one layout.

    A layout declares what it can do in the class flags below; callers ask a flag, never the
    store's class. An operation whose flag is False raises UnsupportedError.
    """

    layout: ClassVar[str]
    # A task writer: create_task, claim_task, complete_task, release_task, release_owner, update_task,
    # change_task, import_tasks.
    writes_tasks: ClassVar[bool] = False
    # Task fields kept in a sidecar file beside each task file: sidecar_paths, read_task_core,
    # sidecar_problem, merge_sidecar.
    has_task_sidecars: ClassVar[bool] = False
    # A log file per teammate in the team folder: log_files, log.
    has_teammate_logs: ClassVar[bool] = False
    # Inboxes are append-only JSON lines, read from the last offset and drained by their owner
    # (decode_inbox_batch, drain); otherwise an inbox is one JSON array rewritten whole.
    appends_to_inboxes: ClassVar[bool] = False
    # A shutdown's outcome is kept beside the team, one file per request: write_shutdown_result.
    writes_shutdown_results: ClassVar[bool] = False
    # Teammates stop only at the lead's word (it signs its requests): a dashboard asks the lead to
    # shut them down instead of sending shutdown requests itself.
    shutdown_via_lead: ClassVar[bool] = False
    # Each member's transcript lies under the root (Claude Code's `projects/<slug>/`): protocol/claude/transcripts.
    has_transcripts: ClassVar[bool] = False
    # A config writer: add_member, update_member (a teammate's status, pid, last_seen).
    writes_members: ClassVar[bool] = False
    # teamtui makes a team of this layout: create_team (a classmethod: asked before any store exists,
    # of the class protocol/layout.py's store_class gives).
    creates_teams: ClassVar[bool] = False
    # Protocol fields are spelled camelCase on the wire (Claude Code's idleReason), else snake_case
    # (idle_reason): protocol_key.
    camel_case_fields: ClassVar[bool] = False
    # The tasks are read from the files the config is (a workflow run's journal and record): a change
    # to the config re-reads every task too.
    tasks_follow_config: ClassVar[bool] = False
    # Its lead's and in-process teammates' permission requests reach Claude Code's PermissionRequest
    # hook (protocol/hooks): `teamtui hooks install` lets a room answer them.
    asks_through_hooks: ClassVar[bool] = False
    # Its files are on this machine (a team streamed from another host has none here): tmux panes
    # running `teamtui follow` on them, and a write that lands the moment it returns.
    files_here: ClassVar[bool] = True
    # Why nothing can be written to this team, not even a message (a workflow run); "" when it can.
    # A dashboard shows such a team read-only and says why.
    read_only_reason: ClassVar[str] = ""

    def __init__(self, root: Path, name: str):
        self.root = Path(root)
        self.name = name

    def traits(self) -> TeamTraits:
        """What the screens need to know of this team's kind (the model keeps them; a stream sends them)."""
        return TeamTraits(
            layout=self.layout,
            appends_to_inboxes=self.appends_to_inboxes,
            shutdown_via_lead=self.shutdown_via_lead,
            has_transcripts=self.has_transcripts,
            default_lead=self.default_lead,
            where=str(self.root),
        )

    # ------------------------------------------------------------------ paths
    @property
    @abstractmethod
    def team_dir(self) -> Path: ...

    @property
    @abstractmethod
    def tasks_dir(self) -> Path: ...

    @property
    def config_path(self) -> Path:
        return self.team_dir / "config.json"

    @abstractmethod
    def inbox_path(self, member: str) -> Path: ...

    @abstractmethod
    def log_paths(self, member: str) -> list[Path]: ...

    @abstractmethod
    def task_path(self, task_id: str) -> Path: ...

    @property
    def inbox_dir(self) -> Path:
        """The folder holding the inboxes."""
        return self.team_dir

    def file_dirs(self) -> list[Path]:
        """Every folder holding files `classify` knows: what a resync lists."""
        return list(dict.fromkeys([self.team_dir, self.tasks_dir, self.inbox_dir]))

    def watch_dirs(self) -> list[Path]:
        """Directories a watcher must cover to see every change to this team."""
        return [self.team_dir, self.tasks_dir]

    @abstractmethod
    def classify(self, path: Path) -> FileRef | None: ...

    # ---------------------------------------------------------------- reading
    @abstractmethod
    def decode_config(self, data: Any, path: Path) -> TeamConfig: ...

    def load_config(self) -> TeamConfig | ReadError:
        from teamtui.protocol.fsio import load_json_file

        data = load_json_file(self.config_path)
        if isinstance(data, ReadError):
            return data
        try:
            return self.decode_config(data, self.config_path)
        except ParseError as exc:
            return exc.error

    def read_config(self) -> TeamConfig:
        cfg = self.load_config()
        if isinstance(cfg, ReadError):
            raise ParseError(cfg)
        return cfg

    @property
    def lead_name(self) -> str:
        cfg = self.load_config()
        return cfg.lead if isinstance(cfg, TeamConfig) else self.default_lead

    default_lead = "lead"

    @abstractmethod
    def task_paths(self) -> list[Path]: ...

    @abstractmethod
    def read_task(self, path: Path) -> Task | ReadError:
        """Read one task, with whatever extras live beside it."""

    def list_tasks(self, include_internal: bool = False) -> tuple[list[Task], list[ReadError]]:
        tasks: list[Task] = []
        errors: list[ReadError] = []
        for p in self.task_paths():
            t = self.read_task(p)
            if isinstance(t, ReadError):
                errors.append(t)
            elif include_internal or not t.internal:
                tasks.append(t)
        tasks.sort(key=Task.sort_key)
        return tasks, errors

    def get_task(self, task_id: str) -> Task | ReadError:
        return self.read_task(self.task_path(task_id))

    @abstractmethod
    def inbox_owners(self) -> list[str]:
        """Names that have an inbox file."""

    @abstractmethod
    def peek(self, member: str) -> InboxRead:
        """Every message in `member`'s inbox, without consuming anything."""

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

    def check_recipient(self, to: str) -> None:
        """Refuse a recipient that is neither a member nor the lead: its inbox would be a phantom."""
        cfg = self.load_config()
        for _ in range(3):  # a peer may be mid-rewrite (native peers write without a lock)
            if not isinstance(cfg, ReadError) or cfg.reason == "file not found":
                break
            time.sleep(0.02)
            cfg = self.load_config()
        if isinstance(cfg, ReadError):
            raise ParseError(cfg)
        refuse_stranger(cfg, to)

    def members_for_broadcast(self, sender: str) -> list[str]:
        return broadcast_recipients(self.read_config(), sender)

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

    def _unsupported(self, what: str) -> UnsupportedError:
        return UnsupportedError(f"{what} is not supported for {self.layout} teams")

    # ------------------------------------------- what only some layouts can do (see the flags)
    def decode_inbox_batch(self, member: str, batch: TailBatch) -> InboxRead:
        raise self._unsupported("reading an inbox line by line")

    def drain(self, member: str) -> InboxRead:
        raise self._unsupported("draining an inbox")

    def log_files(self) -> list[Path]:
        raise self._unsupported("per-teammate logs")

    def log(self, member: str, text: str, level: str = "info") -> None:
        raise self._unsupported("writing a log")

    def write_shutdown_result(self, request_id: str, result: dict[str, Any]) -> Path:
        raise self._unsupported("keeping shutdown results")

    def sidecar_paths(self) -> list[Path]:
        raise self._unsupported("task sidecars")

    def read_task_core(self, path: Path) -> Task | ReadError:
        raise self._unsupported("task sidecars")

    def sidecar_problem(self, side: dict[str, Any]) -> str | None:
        raise self._unsupported("task sidecars")

    def merge_sidecar(self, task: Task, side: dict[str, Any] | None) -> Task:
        raise self._unsupported("task sidecars")

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

    def protocol_key(self, snake: str, camel: str) -> str:
        """A protocol field's name as this layout spells it on the wire (see camel_case_fields)."""
        return camel if self.camel_case_fields else snake

    def entry_key(self, msg: Message) -> str:
        """What identifies one inbox entry across rewrites of a whole-file inbox (not appends_to_inboxes)."""
        raise self._unsupported("whole-file inboxes")

    def read_queue(self, member: str, pending: dict[str, Message], gone: dict[str, None], limit: int) -> Any:
        """An inbox rewritten whole, followed as a pending queue: new, delivered (not appends_to_inboxes)."""
        raise self._unsupported("whole-file inboxes")

    def decode_entry(self, member: str, entry: Any, index: int) -> Message | ReadError:
        """One entry (at `index`) of a whole-file inbox as a Message, or what is wrong with it (not appends_to_inboxes)."""
        raise self._unsupported("whole-file inboxes")

    # ------------------------------------------- the lead's process and the teammates' panes
    def lead_state(self) -> str | None:
        """Whether the lead's process is "alive", "ended" or "unknown"; None when the layout does
        not say which process leads (a native team led by a person)."""
        return None

    def lead_pid(self) -> int | None:
        """The lead's process id, where the layout records it."""
        return None

    def lead_environment(self) -> dict[str, str] | None:
        """The lead's environment (its $TMUX: the tmux server the team runs on), where readable."""
        return None

    def running_lead(self) -> int | None:
        """The pid of a teamtui lead (`teamtui run`) running this team, if one does."""
        return None

    def ask_running_lead(self, sender: str, reason: str, deadline: float, teammates: list[str]) -> str:
        """Ask the teamtui lead running this team to shut `teammates` (all: []) down; the request id."""
        raise self._unsupported("asking a running lead")

    def teammate_pane(self, member: Member) -> str | None:
        """The tmux pane `member` runs in (`%N`) as the team's files name it."""
        return None

    def agent_id(self, member: Member) -> str:
        """What identifies `member`'s process (Claude Code's `--agent-id NAME@TEAM`)."""
        return member.agent_id or f"{member.name}@{self.name}"

    def transcript_feed(self, state: Any) -> Any:
        """The members' transcripts kept in step with `state` (has_transcripts)."""
        raise self._unsupported("transcripts")

    def run_status(self) -> str | None:
        """For a team that is one run of a script (a workflow run): "running", "completed", "failed",
        "killed" or "cut off" (its lead ended before the run did), "gone" when its files are; None
        for every other team."""
        return None

    def open_journal(self) -> Any:
        """Where a watcher records what it saw, for a layout whose files are pruned or deleted
        behind it (None: the files themselves are the record)."""
        return None
