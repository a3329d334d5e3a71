"""Native inboxes: `<member>_inbox.jsonl`, one JSON message a line, appended and drained under a lock."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from teamtui.protocol.errors import ProtocolError, ReadError
from teamtui.protocol.fsio import (
    append_bytes,
    ensure_dir,
    ensure_inside,
    open_regular,
    parse_json_line,
    split_glued,
    write_json_atomic,
)
from teamtui.protocol.locks import FileLock
from teamtui.protocol.models import Message, decode_payload
from teamtui.protocol.names import check_name, is_safe_name
from teamtui.protocol.native.layout import INBOX_FILE, NativeLayout
from teamtui.protocol.store import InboxRead, validation_reason
from teamtui.protocol.store.files import Inbox, InboxNews
from teamtui.protocol.tail import TailBatch, TailReader
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The envelope (sender, content, timestamp) is the message's, not the protocol payload's.
_ENVELOPE_KEYS = ("sender", "content", "timestamp")
# What every inbox line carries: a whole line glued onto a torn one is known by it.
_LINE_KEYS = ("sender", "from")


def _as_float(v: Any) -> float:
    if isinstance(v, bool):
        return 0.0
    if isinstance(v, (int, float)):
        try:
            return float(v)
        except OverflowError:  # an int too large for a float (e.g. 10**400)
            return 0.0
    if isinstance(v, str):
        try:
            return float(v)
        except (ValueError, OverflowError):
            from datetime import datetime  # here: only a peer's ISO timestamp needs it (~1 ms a CLI call)

            try:
                return datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()
            except ValueError:
                return 0.0
    return 0.0


def decode_message_dict(d: Any, path: Path, recipient: str, line: int | None = None) -> Message | ReadError:
    if not isinstance(d, dict):
        return ReadError(path, f"expected a JSON object, got {type(d).__name__}", line)
    kind = d.get("type", "message")
    if not isinstance(kind, str):
        return ReadError(path, "'type' must be a string", line)
    try:
        payload = decode_payload({k: v for k, v in d.items() if k not in _ENVELOPE_KEYS})
        content = d.get("content", "")
        msg = Message(
            type=kind,
            sender=str(d.get("sender") or d.get("from") or ""),
            recipient=recipient,
            content=content if isinstance(content, str) else "" if content is None else json.dumps(content),
            timestamp=_as_float(d.get("timestamp")),
            payload=payload,
        )
    except ValidationError as exc:
        return ReadError(path, validation_reason(exc), line)
    msg._raw = d
    return msg


class AppendedInbox(Inbox):
    """JSON lines appended by senders and truncated by their owner: read on from the last offset."""

    def __init__(self, store: NativeInbox, member: str, limit: int):
        super().__init__(store, member, limit)
        self.tail = TailReader(self.path)

    def read(self) -> InboxNews:
        batch = self.tail.read_all()
        if batch.reset:  # truncated: its owner drained it, so everything so far was read
            for m in self.messages:
                m.read = True
        read = self.store.decode_inbox_batch(self.member, batch)
        for m in read.messages:
            m.read = False
        report = bool(read.errors or read.messages or batch.reset)
        return InboxNews(read.messages, read.errors, report=report, drained=batch.reset)


class NativeInbox(NativeLayout):
    """Sending, peeking and draining messages, the two-phase shutdown's messages among them."""

    def inbox_reader(self, member: str, limit: int) -> AppendedInbox:
        return AppendedInbox(self, member, limit)

    def inbox_owners(self) -> list[str]:
        try:
            names = [m.group(1) for p in self.team_dir.iterdir() if (m := INBOX_FILE.fullmatch(p.name))]
        except OSError:
            return []
        return sorted(n for n in names if is_safe_name(n))

    def decode_inbox_line(self, member: str, line: bytes, line_no: int | None) -> list[Message | ReadError]:
        """One line: its message or why not; a torn write with a line glued on gives both."""
        path = self.inbox_path(member)
        return [
            item if isinstance(item, ReadError) else decode_message_dict(item, path, member, line_no)
            for item in parse_json_line(path, line, line_no, _LINE_KEYS)
        ]

    def decode_inbox_batch(self, member: str, batch: TailBatch) -> InboxRead:
        out = InboxRead([], batch.read_errors(self.inbox_path(member)))
        for line, no in zip(batch.lines, batch.line_numbers, strict=True):  # one number per line
            for item in self.decode_inbox_line(member, line, no):
                if isinstance(item, ReadError):
                    out.errors.append(item)
                else:
                    out.messages.append(item)
        return out

    def peek(self, member: str) -> InboxRead:
        return self.decode_inbox_batch(member, TailReader(self.inbox_path(member)).read_all())

    def _append_line(self, member: str, obj: dict[str, Any]) -> None:
        ensure_dir(self.team_dir, self.root, self.team_dir)  # only into a team folder that is there
        path = ensure_inside(self.inbox_path(member), self.root)
        line = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        with FileLock(self.inbox_lock_path(member)):
            append_bytes(path, line)

    def send(self, to, content, sender, *, type="message", extra=None) -> Message:
        check_name(to, "recipient")
        check_name(sender, "sender")
        self.check_recipient(to)
        obj: dict[str, Any] = {"type": type, "sender": sender, "content": content, "timestamp": time.time()}
        if extra:
            obj.update({k: v for k, v in extra.items() if k not in obj})
        self._append_line(to, obj)
        msg = decode_message_dict(obj, self.inbox_path(to), to)
        assert isinstance(msg, Message)
        return msg

    def drain(self, member: str) -> InboxRead:
        """Read-and-clear the member's own inbox under its lock (learn-claude-code's read_inbox)."""
        path = self.inbox_path(member)
        out = InboxRead([], [])
        if not path.exists():
            return out
        ensure_inside(path, self.root)  # draining truncates: never a file outside the team
        with FileLock(self.inbox_lock_path(member)):
            try:
                # Non-blocking and regular files only: a FIFO or device here must not hang the drain.
                fd = open_regular(path, os.O_RDWR)
            except OSError as exc:
                out.errors.append(ReadError(path, f"cannot read: {exc.strerror or exc}"))
                return out
            except ProtocolError:
                out.errors.append(ReadError(path, "not a regular file"))
                return out
            with os.fdopen(fd, "r+b") as fh:
                data = fh.read()
                if data:
                    self._drain_lines(member, data, out)
                    fh.truncate(0)
        return out

    def take_out(self, member: str, drop: Callable[[Message], bool]) -> list[Message]:
        """Remove the messages `drop` picks from the member's inbox under its lock, every other line
        kept as it is and in order (one that does not parse too); returns those removed."""
        path = self.inbox_path(member)
        if not path.exists():
            return []
        ensure_inside(path, self.root)
        taken: list[Message] = []
        with FileLock(self.inbox_lock_path(member)):
            fd = open_regular(path, os.O_RDWR)
            with os.fdopen(fd, "r+b") as fh:
                kept = []
                for no, line in enumerate(fh.read().splitlines(keepends=True), 1):
                    items = self.decode_inbox_line(member, line.rstrip(b"\n"), no)
                    if len(items) == 1 and isinstance(items[0], Message) and drop(items[0]):
                        taken.append(items[0])
                    else:
                        kept.append(line)
                if taken:
                    fh.seek(0)
                    fh.truncate(0)
                    fh.write(b"".join(kept))
        return taken

    def _drain_lines(self, member: str, data: bytes, out: InboxRead) -> None:
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        bad: list[bytes] = []
        for no, line in enumerate(lines, 1):
            items = self.decode_inbox_line(member, line, no)
            for item in items:
                if isinstance(item, ReadError):
                    out.errors.append(item)
                else:
                    out.messages.append(item)
            if isinstance(items[0], ReadError):
                # A bad line is kept aside whole; a torn head is kept without the message glued after it.
                glued = split_glued(line, _LINE_KEYS) if len(items) == 2 else None
                bad.append(glued[0] if glued else line)
        if bad:
            self._keep_rejected(member, bad)

    def _keep_rejected(self, member: str, lines: list[bytes]) -> None:
        # A drained line that did not parse is kept aside, never thrown away.
        d = ensure_dir(self.team_dir / ".rejected", self.root, self.team_dir)
        path = ensure_inside(d / f"{check_name(member, 'teammate name')}_inbox.jsonl", self.root)
        append_bytes(path, b"".join(line + b"\n" for line in lines))

    # ------------------------------------------------------------ two-phase shutdown
    def send_shutdown_request(self, to: str, sender: str, reason: str, deadline_seconds: float) -> str:
        request_id = os.urandom(4).hex()  # as secrets.token_hex, without its hashlib/hmac imports
        self.send(
            to,
            reason or "Please finish up and shut down.",
            sender,
            type="shutdown_request",
            extra={
                "request_id": request_id,
                "reason": reason or "phase_complete",
                "deadline_seconds": deadline_seconds,
            },
        )
        return request_id

    def send_shutdown_response(
        self, sender, request_id, *, approve, status="clean", pending_work=None, artifacts_committed=False, reason=""
    ) -> None:
        self.send(
            self.lead_name,
            reason or ("Shutting down." if approve else "Not shutting down yet."),
            sender,
            type="shutdown_response",
            extra={
                "request_id": request_id,
                "approve": approve,
                "status": status,
                "pending_work": list(pending_work or []),
                "artifacts_committed": artifacts_committed,
            },
        )

    def write_shutdown_result(self, request_id: str, result: dict[str, Any]) -> Path:
        check_name(request_id, "request id")
        d = ensure_dir(self.shutdown_dir, self.root, self.team_dir)
        path = d / f"{request_id}.json"
        write_json_atomic(path, result)
        return path
