"""What changed in a team, and how one member looks: the records TeamState hands to everyone
who follows a team (a screen, the journal, the lead, a stream). A leaf: it imports no other
part of the team's machinery, so the transcript feed and the journal can speak it too."""

from __future__ import annotations

from enum import StrEnum

from teamtui.protocol.models import LogEntry, Member, MemberStatus, Message, Task
from teamtui.protocol.record import Record

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path
    from typing import Any, Protocol

    from teamtui.protocol.claude.transcripts.reader import HeadCount, TranscriptUpdate
    from teamtui.protocol.models import TeamConfig

    class ChangeObserver(Protocol):
        """Told of every batch a TeamState applies (the journal is one)."""

        def observe(self, state: Any, changes: Iterable[Change]) -> None: ...
        def assignments(self, assigned: dict[str, Task]) -> None: ...

    class TranscriptAnswers(Protocol):
        """What the members' transcripts tell, as the screens ask it: a local feed's figures, or
        those a stream brought from the machine the files are on (session/remote_transcripts.py)."""

        def status_of(self, member: str) -> MemberStatus | None: ...
        @property
        def started(self) -> bool: ...
        def lead_view(self) -> MemberView | None: ...
        def stats(self, member: str) -> object: ...
        def members(self) -> list[str]: ...
        def total_tokens(self) -> int | None: ...
        def cost(self) -> Any: ...  # protocol/cost.py Cost, or None
        def member_cost(self, member: str) -> Any: ...
        def needs_you(self, now: float) -> list[Any]: ...
        def assignments(self, changes: Iterable[Change] = ()) -> dict[str, Task] | None: ...
        def drift(self) -> object: ...
        def drift_mark(self) -> tuple: ...
        def edits_mark(self) -> int: ...
        def files_changed_since(self, mark: int) -> list[str]: ...

    class TranscriptFiles(TranscriptAnswers, Protocol):
        """The members' transcript files, read on this machine (a Claude Code team's TranscriptFeed,
        a workflow run's RunFeed), answering from what they read."""

        def watch_dirs(self) -> list[Path]: ...
        def concerns(self, path: Path) -> bool: ...
        def read(self, *, from_end: bool = False) -> dict[str, TranscriptUpdate]: ...
        def take(self, updates: dict[str, TranscriptUpdate]) -> list[LogUpdate]: ...
        def apply(self, paths: Iterable[Path], *, rescan: bool = False) -> list[LogUpdate]: ...
        @property
        def counting(self) -> bool: ...
        @property
        def team(self) -> Any: ...
        def count_heads(self) -> dict[str, HeadCount]: ...
        def take_heads(self, heads: dict[str, HeadCount]) -> list[str]: ...


class ChangeKind(StrEnum):
    """What a Change is about; its key names the teammate, task or file. A str: `kind == "log"` holds."""

    CONFIG = "config"
    MEMBER_JOINED = "member_joined"  # key: teammate
    MEMBER_LEFT = "member_left"  # key: teammate
    MEMBER_STATUS = "member_status"  # key: teammate, detail: the new status
    TASK = "task"  # key: task id
    TASK_COMPLETED = "task_completed"  # key: task id, detail: subject
    TASK_REMOVED = "task_removed"  # key: task id
    INBOX = "inbox"  # key: the inbox's owner, messages: the new ones
    INBOX_READ = "inbox_read"  # key: the inbox's owner
    DELIVERED = "delivered"  # key: the inbox's owner, messages: those Claude Code took out of it
    LOG = "log"  # key: teammate, entries: the new lines
    ERROR = "error"  # key: the file, detail: the first problem
    ERROR_CLEARED = "error_cleared"  # key: the file
    DRIFT = "drift"  # the transcripts hold something new that teamtui does not know (a newer Claude Code's)
    FILES = "files"  # key: teammate: it changed a file (its transcript's edits; protocol/edits.py)
    TEAM_GONE = "team_gone"  # key: team name


class Change(Record):
    """One thing that changed."""

    __slots__ = ("kind", "key", "detail", "messages", "entries")

    def __init__(
        self,
        kind: ChangeKind,
        key: str = "",
        detail: str = "",
        messages: list[Message] | None = None,
        entries: list[LogEntry] | None = None,
    ):
        self.kind = kind
        self.key = key
        self.detail = detail
        self.messages: list[Message] = [] if messages is None else messages
        self.entries: list[LogEntry] = [] if entries is None else entries


class MemberView(Record):
    __slots__ = (
        "name",
        "status",
        "agent_type",
        "color",
        "current_task",
        "last_activity",
        "unread",
        "disappeared",
        "departed",
        "member",
    )

    def __init__(
        self,
        name: str,
        status: MemberStatus,
        agent_type: str = "",
        color: str = "",
        current_task: Task | None = None,
        last_activity: float | None = None,
        unread: int = 0,
        disappeared: bool = False,
        departed: bool = False,
        member: Member | None = None,
    ):
        self.name = name
        self.status = status
        self.agent_type = agent_type
        self.color = color
        self.current_task = current_task
        self.last_activity = last_activity
        self.unread = unread
        self.disappeared = disappeared
        self.departed = departed
        self.member = member


class LogUpdate(Record):
    """New lines of one member's log from somewhere other than a team file (a transcript):
    TeamState puts them into its log buffer and counts `last_write` as the member's activity."""

    __slots__ = ("member", "entries", "reset", "last_write", "received")

    def __init__(
        self,
        member: str,
        entries: list[LogEntry],
        reset: bool = False,
        last_write: float | None = None,
        received: list[tuple[str, str, float | None, str]] | None = None,
    ):
        self.member = member
        self.entries = entries
        self.reset = reset  # the source started over: so does the buffer
        self.last_write = last_write
        # Plain messages the member received, as (sender, text, when, key): a transcript's receipts.
        self.received: list[tuple[str, str, float | None, str]] = [] if received is None else received


class TeamLookups(Record):
    """What a transcript feed reads of its team, as values and callbacks: the feed never holds the team."""

    __slots__ = ("config", "lead", "said", "inbox", "messages", "departed", "views", "log_limit", "health_timeout", "note_edits")  # fmt: skip

    def __init__(
        self,
        *,
        config: Callable[[], TeamConfig | None],
        lead: Callable[[], str],
        said: Callable[[], Mapping[str, tuple[MemberStatus, float]]],  # what its hooks said ("": the lead's session)
        inbox: Callable[[str], list[Message]],
        messages: Callable[[], Iterable[Message]],
        departed: Callable[[], Mapping[str, Member]],
        views: Callable[[float], list[MemberView]],
        log_limit: int,
        health_timeout: float,
        note_edits: Callable[[list[Any]], None] | None = None,  # the history keeps them (history/recorder.py)
    ):
        self.config, self.lead, self.said, self.inbox, self.messages = config, lead, said, inbox, messages
        self.departed, self.views, self.note_edits = departed, views, note_edits
        self.log_limit, self.health_timeout = log_limit, health_timeout
