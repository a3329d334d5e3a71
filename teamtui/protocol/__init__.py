"""teamtui.protocol: read and write agent-team files in both layouts. Imports no Textual.

The names below are imported on first use (PEP 562), so `import teamtui.protocol.names`
does not pay for the models, the board and both layouts: the CLI's start-up is the protocol's hot path.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms

# name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "Board": "board",
    "TaskState": "board",
    "TaskView": "board",
    "ClaudeTeam": "claude",
    "default_claude_root": "claude",
    "ConflictError": "errors",
    "LockTimeout": "errors",
    "NotFoundError": "errors",
    "ParseError": "errors",
    "ProtocolError": "errors",
    "ReadError": "errors",
    "UnsafeNameError": "errors",
    "UnsupportedError": "errors",
    "candidate_roots": "layout",
    "detect_layout": "layout",
    "find_team": "layout",
    "open_team": "layout",
    "team_names": "layout",
    "DirLock": "locks",
    "FileLock": "locks",
    "LogBuffer": "logbuffer",
    "LogEntry": "models",
    "LogLevel": "models",
    "Member": "models",
    "MemberStatus": "models",
    "Message": "models",
    "Payload": "models",
    "ShutdownApproved": "models",
    "ShutdownRejected": "models",
    "ShutdownRequest": "models",
    "ShutdownResponse": "models",
    "Task": "models",
    "TaskAssignment": "models",
    "TaskStatus": "models",
    "TeamConfig": "models",
    "check_name": "names",
    "is_safe_name": "names",
    "NativeTeam": "native",
    "Change": "changes",
    "ChangeKind": "changes",
    "MemberView": "changes",
    "TeamState": "state",
    "FileRef": "store",
    "InboxRead": "store",
    "TeamStore": "store",
    "TailReader": "tail",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


# The same names for the type checker; `X as X` marks each an explicit re-export (PEP 484).
if TYPE_CHECKING:
    from teamtui.protocol.board import Board as Board, TaskState as TaskState, TaskView as TaskView
    from teamtui.protocol.changes import Change as Change, ChangeKind as ChangeKind, MemberView as MemberView
    from teamtui.protocol.claude import ClaudeTeam as ClaudeTeam, default_claude_root as default_claude_root
    from teamtui.protocol.errors import (
        ConflictError as ConflictError,
        LockTimeout as LockTimeout,
        NotFoundError as NotFoundError,
        ParseError as ParseError,
        ProtocolError as ProtocolError,
        ReadError as ReadError,
        UnsafeNameError as UnsafeNameError,
        UnsupportedError as UnsupportedError,
    )
    from teamtui.protocol.layout import (
        candidate_roots as candidate_roots,
        detect_layout as detect_layout,
        find_team as find_team,
        open_team as open_team,
        team_names as team_names,
    )
    from teamtui.protocol.locks import DirLock as DirLock, FileLock as FileLock
    from teamtui.protocol.logbuffer import LogBuffer as LogBuffer
    from teamtui.protocol.models import (
        LogEntry as LogEntry,
        LogLevel as LogLevel,
        Member as Member,
        MemberStatus as MemberStatus,
        Message as Message,
        Payload as Payload,
        ShutdownApproved as ShutdownApproved,
        ShutdownRejected as ShutdownRejected,
        ShutdownRequest as ShutdownRequest,
        ShutdownResponse as ShutdownResponse,
        Task as Task,
        TaskAssignment as TaskAssignment,
        TaskStatus as TaskStatus,
        TeamConfig as TeamConfig,
    )
    from teamtui.protocol.names import check_name as check_name, is_safe_name as is_safe_name
    from teamtui.protocol.native import NativeTeam as NativeTeam
    from teamtui.protocol.state import TeamState as TeamState
    from teamtui.protocol.store import FileRef as FileRef, InboxRead as InboxRead, TeamStore as TeamStore
    from teamtui.protocol.tail import TailReader as TailReader
