"""Errors raised by the protocol layer, and the error item readers return instead of raising."""

from __future__ import annotations

from teamtui.protocol.record import FrozenRecord, init_field

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from pathlib import Path


class ProtocolError(Exception):
    """Base of every error the protocol layer raises on purpose."""


class UnsafeNameError(ProtocolError, ValueError):
    """A team or teammate name that cannot safely become part of a path."""


class LockTimeout(ProtocolError):
    """A lock could not be taken in time (and was not stale)."""


class NotFoundError(ProtocolError):
    """A team, member or task that does not exist."""


class FolderGoneError(NotFoundError, FileNotFoundError):
    """A write into a folder that was removed (a team that ended, a demo's temp folder): never made again."""


class ParseError(ProtocolError):
    """A file could not be parsed; carries the ReadError that says why."""

    def __init__(self, error: ReadError):
        super().__init__(str(error))
        self.error = error


class WriteError(ProtocolError, OSError):
    """A write that could not be made whole (a full disk, a quota): nothing of it is left in the file."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}; that file is as it was"


class ConflictError(ProtocolError):
    """A write that would break the board's rules (claiming a taken task, ...)."""


class UnsupportedError(ProtocolError):
    """An operation the layout does not offer (e.g. creating tasks in a Claude Code team)."""


class ReadError(FrozenRecord):
    """One unreadable item: the reader returns it and goes on with the rest."""

    __slots__ = ("path", "reason", "line")
    path: Path
    reason: str
    line: int | None

    def __init__(self, path: Path, reason: str, line: int | None = None):
        init_field(self, "path", path)
        init_field(self, "reason", reason)
        init_field(self, "line", line)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self.reason}"


class NotMemberError(ProtocolError):
    """A message to a name that is not in the team: writing it would create a phantom inbox."""


class DishonestSenderError(ProtocolError):
    """A sender teamtui must not write as (the lead of a team it does not lead, `user`, `system`)."""
