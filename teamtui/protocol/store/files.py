"""Reading a team: where its files are, what a changed path is, its config, tasks and inboxes."""

from __future__ import annotations

import time
from abc import abstractmethod
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


class TeamFiles(StoreBase):
    """What a team's files say, read in its layout. Flags say what the layout's files hold."""

    # Task fields kept in a sidecar file beside each task file: sidecar_paths, read_task_core,
    # sidecar_problem, merge_sidecar.
    has_task_sidecars: ClassVar[bool] = False
    # A log file per teammate in the team folder: log_files (and TeamWriter.log).
    has_teammate_logs: ClassVar[bool] = False
    # Inboxes are append-only JSON lines, read from the last offset and drained by their owner
    # (decode_inbox_batch, TeamWriter.drain); otherwise an inbox is one JSON array rewritten whole.
    appends_to_inboxes: ClassVar[bool] = False
    # Protocol fields are spelled camelCase on the wire (Claude Code's idleReason), else snake_case
    # (idle_reason): protocol_key.
    camel_case_fields: ClassVar[bool] = False
    # The tasks are read from the files the config is (a workflow run's journal and record): a change
    # to the config re-reads every task too.
    tasks_follow_config: ClassVar[bool] = False

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

    # ------------------------------------------- what only some layouts' files hold (see the flags)
    def decode_inbox_batch(self, member: str, batch: TailBatch) -> InboxRead:
        raise self._unsupported("reading an inbox line by line")

    def log_files(self) -> list[Path]:
        raise self._unsupported("per-teammate logs")

    def sidecar_paths(self) -> list[Path]:
        raise self._unsupported("task sidecars")

    def read_task_core(self, path: Path) -> Task | ReadError:
        raise self._unsupported("task sidecars")

    def sidecar_problem(self, side: dict[str, Any]) -> str | None:
        raise self._unsupported("task sidecars")

    def merge_sidecar(self, task: Task, side: dict[str, Any] | None) -> Task:
        raise self._unsupported("task sidecars")

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
