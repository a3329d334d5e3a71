"""Reading a team: where its files are, what a changed path is, its config, tasks and inboxes, and
the readers a monitor (TeamState) follows them with: `Inbox` and `TaskReader` here, each layout's
own beside its files (native/inbox.py AppendedInbox, claude/inbox.py QueueInbox, native/tasks.py
SidecarTasks, workflow/tasks.py ConfigTasks). TeamState only calls them."""

from __future__ import annotations

import time
from abc import abstractmethod
from collections import deque
from pathlib import Path

from teamtui.protocol.errors import ParseError, ReadError
from teamtui.protocol.models import Message, Task, TeamConfig
from teamtui.protocol.record import FrozenRecord, Record, init_field
from teamtui.protocol.store.common import StoreBase
from teamtui.protocol.tail import TailBatch

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any, ClassVar, Literal

    FileKind = Literal["config", "task", "task_sidecar", "inbox", "log", "shutdown", "touching"]

# A read of a file caught mid-rewrite tries again this often (TeamFiles.load_config_whole).
TORN_REREAD_WAIT = 0.01
# What a one-shot read gives a peer's rewrite to finish: far above a write's milliseconds, far below
# what a person notices.
ONE_SHOT_SETTLE = 0.5


def _torn(error: ReadError) -> bool:
    """A file read mid-rewrite: empty, or JSON cut short."""
    return error.reason == "empty file" or error.reason.startswith("invalid JSON")


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


class InboxNews(Record):
    """What one read of an inbox found: the new messages, the entries that left a pending queue
    (`delivered`: the recipient took them), whether its owner drained it (an appended inbox
    truncated: everything so far read) or flipped an entry's `read`, and whether `errors` replace
    those reported (`report`; else the last read's stand)."""

    __slots__ = ("new", "errors", "report", "delivered", "drained", "flipped")

    def __init__(
        self, new: list[Message], errors: list[ReadError], *, report: bool, delivered: list[Message] | None = None,
        drained: bool = False, flipped: bool = False,
    ):  # fmt: skip
        self.new, self.errors, self.report, self.drained, self.flipped = new, errors, report, drained, flipped
        self.delivered = delivered or []


class Inbox:
    """What a monitor knows of one inbox: its messages (bounded) and how to read more."""

    def __init__(self, store: TeamFiles, member: str, limit: int):
        self.store = store
        self.member = member
        self.path = store.inbox_path(member)
        self.limit = limit
        self.messages: deque[Message] = deque(maxlen=limit)

    def read(self) -> InboxNews:
        """What is new in the file (a layout without inboxes: nothing)."""
        return InboxNews([], [], report=False)

    def unread(self) -> int:
        return sum(1 for m in self.messages if m.read is not True)

    def sent(self, message: Message) -> bool:
        """Take a message this process just wrote; False when the next read will find it anyway."""
        return False

    def received_early(self, sender: str, body: str) -> None:
        """A transcript showed this message received before any read found it in the file."""


class TaskReader:
    """Task files read whole: each file is its task."""

    def __init__(self, store: TeamFiles):
        self.store = store

    def read(self, path: Path) -> Task | ReadError:
        return self.store.read_task(path)

    def keep(self, task: Task) -> Task:
        """`task` as read, remembered; as shown."""
        return task

    def forget(self, task_id: str) -> None:
        """Its file is gone."""

    def sidecar_paths(self) -> list[Path]:
        return []

    def read_sidecar(self, path: Path, task_id: str) -> tuple[Task | None, list[ReadError]]:
        """A sidecar re-read: the task as now shown (None: unchanged), and what is wrong with the file."""
        return None, []

    def with_config(self, known: list[Path]) -> list[Path]:
        """The task files a change to the config re-reads (and those of `known` gone since)."""
        return []


class TeamFiles(StoreBase):
    """What a team's files say, read in its layout. Flags say what the layout's files hold."""

    # A log file per teammate in the team folder: log_files (and TeamWriter.log).
    has_teammate_logs: ClassVar[bool] = False
    # Inboxes are append-only JSON lines, read from the last offset and drained by their owner
    # (decode_inbox_batch, TeamWriter.drain); otherwise an inbox is one JSON array rewritten whole.
    appends_to_inboxes: ClassVar[bool] = False
    # Protocol fields are spelled camelCase on the wire (Claude Code's idleReason), else snake_case
    # (idle_reason): protocol_key.
    camel_case_fields: ClassVar[bool] = False

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

    def load_config_whole(self, settle: float) -> TeamConfig | ReadError:
        """load_config, read again every 10 ms for up to `settle` seconds while the file is empty or
        cut short: a peer that rewrites it in place (Claude Code does; native peers write without a
        lock) is about done. For a read that has no last good config to fall back on."""
        cfg = self.load_config()
        deadline = time.monotonic() + settle
        while isinstance(cfg, ReadError) and _torn(cfg) and time.monotonic() < deadline:
            time.sleep(TORN_REREAD_WAIT)
            cfg = self.load_config()
        return cfg

    def read_config(self, settle: float = 0.0) -> TeamConfig:
        """The config, or ParseError; `settle` as for load_config_whole."""
        cfg = self.load_config_whole(settle)
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

    # ------------------------------------------- how TeamState follows the files (store/readers.py)
    def inbox_reader(self, member: str, limit: int) -> Inbox:
        """`member`'s inbox as a monitor follows it (a layout's own: read on from its last offset,
        or as a pending queue); here, where a layout keeps no inboxes, one that reads nothing."""
        return Inbox(self, member, limit)

    def task_reader(self) -> TaskReader:
        """How a monitor reads the task files (here: each file whole)."""
        return TaskReader(self)

    def teammate_logs(self) -> list[Path]:
        """The teammates' log files a monitor reads (none where the layout keeps none)."""
        return self.log_files() if self.has_teammate_logs else []

    # ------------------------------------------- what only some layouts' files hold (see the flags)
    def decode_inbox_batch(self, member: str, batch: TailBatch) -> InboxRead:
        raise self._unsupported("reading an inbox line by line")

    def log_files(self) -> list[Path]:
        raise self._unsupported("per-teammate logs")

    def protocol_key(self, snake: str, camel: str) -> str:
        """A protocol field's name as this layout spells it on the wire (see camel_case_fields)."""
        return camel if self.camel_case_fields else snake

    def decode_entry(self, member: str, entry: Any, index: int) -> Message | ReadError:
        """One entry (at `index`) of a whole-file inbox as a Message, or what is wrong with it (not appends_to_inboxes)."""
        raise self._unsupported("whole-file inboxes")
