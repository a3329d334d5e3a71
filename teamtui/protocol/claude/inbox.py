"""A Claude Code inbox: one JSON array per member, rewritten whole under a lock, and since 2.1.178
a pending queue (the recipient removes what it took): an entry that leaves it was *delivered*."""

from __future__ import annotations

import json
import os
import time

from teamtui.protocol.claude.layout import ClaudeLayout, iso_now, parse_time
from teamtui.protocol.errors import DishonestSenderError, ParseError, ReadError, WriteError
from teamtui.protocol.fsio import ensure_dir, ensure_inside, load_json_file, write_json_atomic, write_whole
from teamtui.protocol.locks import DirLock
from teamtui.protocol.models import Message, decode_payload
from teamtui.protocol.names import check_name
from teamtui.protocol.store import InboxRead, validation_reason
from teamtui.protocol.store.files import Inbox, InboxNews
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Names only Claude Code itself writes as: an entry from outside under these arrives marked unverified.
RESERVED_SENDERS = ("team-lead", "user", "system")


def entry_key(msg: Message) -> str:
    """What identifies one inbox entry across rewrites: its `msg_id` (2.1.178+), else sender, time and text."""
    mid = msg.raw.get("msg_id") if isinstance(msg.raw, dict) else None
    if isinstance(mid, str) and mid:
        return "id:" + mid
    stamp = msg.raw.get("timestamp") if isinstance(msg.raw, dict) else None
    return f"{msg.sender}\x00{stamp!r}\x00{msg.type}\x00{msg.content}"


def stringify_protocol(payload: dict[str, Any]) -> str:
    """JSON stringified compactly into `text`, as Claude Code does."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


class QueueInbox(Inbox):
    """Claude Code 2.1.178+ treats an inbox as a pending queue: the recipient removes what it took
    within about a second. So every entry seen is kept (`pending`, by entry_key), and one that
    leaves the file is marked delivered and remembered in `gone` (older versions flip `read`
    instead, and that is followed too)."""

    def __init__(self, store: ClaudeInbox, member: str, limit: int):
        super().__init__(store, member, limit)
        self.pending: dict[str, Message] = {}
        self.gone: dict[str, None] = {}
        # Messages a transcript showed received before any read found them, by (sender, text): a
        # later read that still finds such an entry takes it as that message (its key in `receipted`).
        self.early: dict[tuple[str, str], int] = {}
        self.receipted: set[str] = set()

    def read(self) -> InboxNews:
        file_there = self.path.exists()
        read = self.store.peek(self.member)
        present: dict[str, Message] = {}
        for m in read.messages[-self.limit :]:
            present.setdefault(entry_key(m), m)
        flipped = False
        new: list[Message] = []
        for key, fresh in present.items():
            known = self.pending.get(key)
            if known is None:
                if key in self.gone:
                    continue  # an entry put back after it left: already recorded
                self.pending[key] = fresh
                if not self._shown_early(fresh, key):
                    new.append(fresh)
            elif known.read != fresh.read:
                known.read = fresh.read
                flipped = True
        delivered: list[Message] = []
        # A file that vanished went with its team, and one that failed to parse says nothing: only a
        # file that still reads can tell that an entry was taken.
        if file_there and not any(e.line is None for e in read.errors):
            for key in [k for k in self.pending if k not in present]:
                m = self.pending.pop(key)
                m.delivered = m.read = True
                self.gone[key] = None
                if key not in self.receipted:  # a transcript showed it delivered already
                    delivered.append(m)
            while len(self.gone) > self.limit:
                self.gone.pop(next(iter(self.gone)))
        return InboxNews(new, list(read.errors), report=True, delivered=delivered, flipped=flipped)

    def _shown_early(self, m: Message, key: str) -> bool:
        """A new entry a transcript showed received already (each such message once): not new again."""
        pair = (m.sender, m.content.strip())
        if not self.early.get(pair):
            return False
        self.early[pair] -= 1
        if not self.early[pair]:
            del self.early[pair]
        self.receipted.add(key)
        return True

    def unread(self) -> int:
        """The entries still in the file, not flipped to read."""
        return sum(1 for m in self.pending.values() if not m.read)

    def sent(self, message: Message) -> bool:
        key = entry_key(message)
        if key in self.pending or key in self.gone:
            return False  # a read found it first
        self.pending[key] = message
        return True

    def received_early(self, sender: str, body: str) -> None:
        self.early[(sender, body)] = self.early.get((sender, body), 0) + 1


class ClaudeInbox(ClaudeLayout):
    def inbox_reader(self, member: str, limit: int) -> QueueInbox:
        return QueueInbox(self, member, limit)

    def inbox_owners(self) -> list[str]:
        try:
            return sorted(p.name[:-5] for p in self.inbox_dir.iterdir() if p.name.endswith(".json"))
        except OSError:
            return []

    def decode_inbox(self, member: str, data: Any) -> InboxRead:
        path = self.inbox_path(member)
        out = InboxRead([], [])
        if not isinstance(data, list):
            out.errors.append(ReadError(path, f"expected a JSON array, got {type(data).__name__}"))
            return out
        for i, entry in enumerate(data):
            item = self.decode_entry(member, entry, i + 1)
            if isinstance(item, ReadError):
                out.errors.append(item)
            else:
                out.messages.append(item)
        return out

    def decode_entry(self, member: str, entry: Any, index: int) -> Message | ReadError:
        path = self.inbox_path(member)
        if not isinstance(entry, dict):
            return ReadError(path, f"entry {index} is not an object", index)
        text = entry.get("text", "")
        if not isinstance(text, str):
            text = json.dumps(text)
        payload = None
        kind = "message"
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                parsed = None
            if isinstance(parsed, dict) and isinstance(parsed.get("type"), str):
                try:
                    payload = decode_payload(parsed)
                except ValidationError:
                    payload = None
                if payload is not None:
                    kind = payload.type
        try:
            msg = Message(
                type=kind,
                sender=str(entry.get("from") or ""),
                recipient=member,
                content=text,
                timestamp=parse_time(entry.get("timestamp")),
                read=bool(entry.get("read", False)),
                summary=entry.get("summary") if isinstance(entry.get("summary"), str) else "",
                color=entry.get("color") if isinstance(entry.get("color"), str) else "",
                payload=payload,
            )
        except ValidationError as exc:
            return ReadError(path, validation_reason(exc), index)
        msg._raw = entry
        return msg

    def peek(self, member: str) -> InboxRead:
        data = load_json_file(self.inbox_path(member))
        if isinstance(data, ReadError):
            if data.reason == "file not found":
                return InboxRead([], [])
            return InboxRead([], [data])
        return self.decode_inbox(member, data)

    def may_write_as_lead(self) -> bool:
        """Never: the lead signs what it writes, so only Claude Code's lead writes as it."""
        return False

    def check_sender(self, sender: str) -> None:
        """teamtui writes under a name of its own: Claude Code marks an entry from outside as the lead,
        `user` or `system` unverified (the lead signs its own), so writing as them is refused."""
        lead = self.lead_name
        if sender in RESERVED_SENDERS or sender == lead:
            raise DishonestSenderError(
                f"refusing to send as {sender!r}: only Claude Code itself writes as {lead!r}, 'user' or 'system'; "
                'send under a name of your own (--from NAME, or sender = "..." in the config file; default teamtui)'
            )

    def send(self, to, content, sender, *, type="message", extra=None) -> Message:
        check_name(to, "recipient")
        check_name(sender, "sender")
        self.check_sender(sender)
        self.check_recipient(to)
        if type in ("message", "broadcast"):
            text = content
        else:
            text = stringify_protocol({"type": type, **(extra or {})})
        entry: dict[str, Any] = {"from": sender, "text": text, "timestamp": iso_now(), "read": False}
        if extra and type in ("message", "broadcast"):
            entry.update({k: v for k, v in extra.items() if k in ("color", "summary")})
        self._append_entry(to, entry)
        msg = self.decode_entry(to, entry, 0)
        assert isinstance(msg, Message)
        return msg

    def _append_entry(self, to: str, entry: dict[str, Any]) -> None:
        ensure_dir(self.inbox_dir, self.root, self.team_dir)  # a team whose folder went with its lead is not made again
        path = ensure_inside(self.inbox_path(to), self.root)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pass
        else:
            try:
                write_whole(fd, path, b"[]")
            except WriteError:
                os.unlink(path)  # a full disk: no empty inbox left for Claude Code to choke on
                raise
            finally:
                os.close(fd)
        with DirLock(path.with_name(path.name + ".lock")):
            data = load_json_file(path)
            if isinstance(data, ReadError):
                raise ParseError(data)
            if not isinstance(data, list):
                raise ParseError(ReadError(path, f"expected a JSON array, got {type(data).__name__}"))
            data.append(entry)
            write_json_atomic(path, data)

    def send_shutdown_request(self, to: str, sender: str, reason: str, deadline_seconds: float) -> str:
        request_id = f"shutdown-{int(time.time() * 1000)}@{to}"
        payload: dict[str, Any] = {"requestId": request_id, "from": sender}
        if reason:
            payload["reason"] = reason
        payload["timestamp"] = iso_now()
        self.send(to, "", sender, type="shutdown_request", extra=payload)
        return request_id

    def send_shutdown_response(
        self, sender, request_id, *, approve, status="clean", pending_work=None, artifacts_committed=False, reason=""
    ) -> None:
        if approve:
            payload: dict[str, Any] = {"requestId": request_id, "from": sender, "timestamp": iso_now()}
            self.send(self.lead_name, "", sender, type="shutdown_approved", extra=payload)
        else:
            payload = {"requestId": request_id, "from": sender, "reason": reason or status, "timestamp": iso_now()}
            self.send(self.lead_name, "", sender, type="shutdown_rejected", extra=payload)
