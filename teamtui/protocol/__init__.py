"""teamtui.protocol: read and write agent-team files in both layouts. Imports no Textual."""

from teamtui.protocol.board import Board, TaskState, TaskView
from teamtui.protocol.claude import ClaudeTeam, default_claude_root
from teamtui.protocol.errors import (
    ConflictError,
    LockTimeout,
    NotFoundError,
    ParseError,
    ProtocolError,
    ReadError,
    UnsafeNameError,
    UnsupportedError,
)
from teamtui.protocol.layout import candidate_roots, detect_layout, find_team, open_team, team_names
from teamtui.protocol.locks import DirLock, FileLock
from teamtui.protocol.logbuffer import LogBuffer
from teamtui.protocol.models import (
    LogEntry,
    LogLevel,
    Member,
    MemberStatus,
    Message,
    Payload,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    ShutdownResponse,
    Task,
    TaskAssignment,
    TaskStatus,
    TeamConfig,
)
from teamtui.protocol.names import check_name, is_safe_name
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.state import Change, ChangeKind, MemberView, TeamState
from teamtui.protocol.store import FileRef, InboxRead, TeamStore
from teamtui.protocol.tail import TailReader

__all__ = [
    "Board", "Change", "ChangeKind", "ClaudeTeam", "ConflictError", "DirLock", "FileLock", "FileRef", "InboxRead",
    "LockTimeout", "LogBuffer", "LogEntry", "LogLevel", "Member", "MemberStatus", "MemberView", "Message",
    "NativeTeam", "NotFoundError", "ParseError", "Payload", "ProtocolError", "ReadError",
    "ShutdownApproved", "ShutdownRejected", "ShutdownRequest", "ShutdownResponse", "TailReader",
    "Task", "TaskAssignment", "TaskState", "TaskStatus", "TaskView", "TeamConfig", "TeamState",
    "TeamStore", "UnsafeNameError", "UnsupportedError", "candidate_roots", "check_name",
    "default_claude_root", "detect_layout", "find_team", "is_safe_name", "open_team", "team_names",
]
