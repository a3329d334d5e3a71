"""The Claude Code layout: `teams/<team>/` and `tasks/<team>/` under ~/.claude (or $CLAUDE_CONFIG_DIR)."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path

from teamtui.protocol.wire import ValidationError

from teamtui.protocol.errors import DishonestSenderError, ParseError, ReadError
from teamtui.protocol.fsio import ensure_dir, ensure_inside, load_json_file, write_json_atomic
from teamtui.protocol.leadproc import LeadProcess, parse_lead_process, task_list_id
from teamtui.protocol.locks import DirLock
from teamtui.protocol.models import Member, MemberStatus, Message, Task, TeamConfig, decode_payload
from teamtui.protocol.names import check_name, claude_sanitize
from teamtui.protocol.native import decode_task_dict
from teamtui.protocol.store import FileRef, InboxRead, TeamStore, validation_reason

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from typing import Any

# Claude Code's camelCase member keys and our field names.
_MEMBER_KEYS = {
    "agentId": "agent_id",
    "agentType": "agent_type",
    "tmuxPaneId": "tmux_pane_id",
    "backendType": "backend_type",
}


# Names only Claude Code itself writes as: an entry from outside under these arrives marked unverified.
RESERVED_SENDERS = ("team-lead", "user", "system")


def member_backend(member: Member) -> str:
    """`tmux`, `in-process`, `iterm2` or "" : from backendType, else from tmuxPaneId."""
    if member.backend_type:
        return member.backend_type
    pane = member.tmux_pane_id
    if pane.startswith("%"):
        return "tmux"
    if pane in ("in-process", "leader"):
        return "in-process"
    return ""


def member_pane(member: Member) -> str | None:
    """The tmux pane a teammate runs in (`%N`), or None (in-process, the lead, unknown)."""
    pane = member.tmux_pane_id
    return pane if pane.startswith("%") and pane[1:].isdigit() else None


def entry_key(msg: Message) -> str:
    """What identifies one inbox entry across rewrites: its `msg_id` (2.1.178+), else sender, time and text."""
    mid = msg.raw.get("msg_id") if isinstance(msg.raw, dict) else None
    if isinstance(mid, str) and mid:
        return "id:" + mid
    stamp = msg.raw.get("timestamp") if isinstance(msg.raw, dict) else None
    return f"{msg.sender}\x00{stamp!r}\x00{msg.type}\x00{msg.content}"


def default_claude_root() -> Path:
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else Path.home() / ".claude"


def iso_now() -> str:
    """ISO-8601 UTC with milliseconds and 'Z', as Claude Code writes timestamps."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(value: Any) -> float:
    """Claude Code times: epoch milliseconds (numbers) or ISO-8601 strings; returns epoch seconds."""
    if isinstance(value, bool) or value is None:
        return 0.0
    if isinstance(value, (int, float)):
        try:
            return value / 1000.0 if value > 1e11 else float(value)
        except OverflowError:  # an int too large for a float (e.g. 10**400)
            return 0.0
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return 0.0
    return 0.0


def stringify_protocol(payload: dict[str, Any]) -> str:
    """JSON stringified compactly into `text`, as Claude Code does."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


class ClaudeTeam(TeamStore):
    layout = "claude"
    writes_tasks = False
    has_task_sidecars = False
    has_teammate_logs = False
    appends_to_inboxes = False
    writes_shutdown_results = False
    shutdown_via_lead = True
    has_transcripts = True
    default_lead = "team-lead"

    def __init__(self, root: Path, name: str, *, task_list: str | None = None):
        super().__init__(root, check_name(name, "team name"))
        self.dir_name = claude_sanitize(name)
        # The lead's process as config.json last said (2.1.178+), and the task list it routes to.
        self.lead_process: LeadProcess | None = None
        self._task_list = claude_sanitize(check_name(task_list, "task list id")) if task_list else None
        self._task_list_fixed = task_list is not None
        self._task_list_pid: int | None = None

    @property
    def task_list(self) -> str:
        """The task list's folder name: $CLAUDE_CODE_TASK_LIST_ID of the live lead when it set one, else the team."""
        return self._task_list or self.dir_name

    def _learn_lead(self, raw: Any) -> None:
        lead = parse_lead_process(raw)
        self.lead_process = lead
        if self._task_list_fixed or lead is None or lead.pid == self._task_list_pid:
            return
        # Read once per lead process: its environment does not change.
        self._task_list_pid = lead.pid
        found = task_list_id(lead)
        if found:
            self._task_list = claude_sanitize(found[:64]) or None

    @property
    def team_dir(self) -> Path:
        base = self.root / "teams"
        d = base / self.dir_name
        # Some versions lower-case the folder: look both up.
        if not d.exists() and (base / self.dir_name.lower()).exists():
            return base / self.dir_name.lower()
        return d

    @property
    def tasks_dir(self) -> Path:
        base = self.root / "tasks"
        name = self.task_list
        d = base / name
        if not d.exists() and (base / name.lower()).exists():
            return base / name.lower()
        return d

    def highwatermark(self) -> int | None:
        """The largest task id ever used in this list (Claude Code writes it, without a newline)."""
        try:
            text = (self.tasks_dir / ".highwatermark").read_text(encoding="ascii")[:32].strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isdigit() else None

    @property
    def inbox_dir(self) -> Path:
        return self.team_dir / "inboxes"

    def inbox_path(self, member: str) -> Path:
        return self.inbox_dir / f"{claude_sanitize(check_name(member, 'teammate name'))}.json"

    def log_paths(self, member: str) -> list[Path]:
        # Claude Code keeps no per-teammate log in the team folder.
        return []

    def task_path(self, task_id: str) -> Path:
        return self.tasks_dir / f"{claude_sanitize(check_name(str(task_id), 'task id'))}.json"

    def watch_dirs(self) -> list[Path]:
        return [self.team_dir, self.tasks_dir]

    def classify(self, path: Path) -> FileRef | None:
        path = Path(path)
        if path.parent == self.team_dir and path.name == "config.json":
            return FileRef("config")
        if path.parent == self.inbox_dir and path.name.endswith(".json"):
            return FileRef("inbox", path.name[:-5])
        if path.parent == self.tasks_dir and path.name.endswith(".json") and not path.name.startswith("."):
            return FileRef("task", path.name[:-5])
        return None

    # ----------------------------------------------------------------- config
    def decode_config(self, data: Any, path: Path) -> TeamConfig:
        if not isinstance(data, dict):
            raise ParseError(ReadError(path, f"expected a JSON object, got {type(data).__name__}"))
        self._learn_lead(data.get("leadProcess"))
        raw_members = data.get("members") or []
        if not isinstance(raw_members, list):
            raise ParseError(ReadError(path, "'members' must be a list"))
        lead_id = data.get("leadAgentId") if isinstance(data.get("leadAgentId"), str) else ""
        lead = ""
        members = []
        for i, rm in enumerate(raw_members):
            if not isinstance(rm, dict):
                raise ParseError(ReadError(path, f"members[{i}] must be an object"))
            md = {_MEMBER_KEYS.get(k, k): v for k, v in rm.items()}
            md["joined_at"] = parse_time(rm.get("joinedAt")) or None
            active = rm.get("isActive")
            md["status"] = (
                MemberStatus.WORKING if active is True else MemberStatus.IDLE if active is False else MemberStatus.UNKNOWN
            )
            try:
                m = Member.model_validate(md)
            except ValidationError as exc:
                raise ParseError(ReadError(path, f"members[{i}].{validation_reason(exc)}")) from None
            m._raw = rm
            if lead_id and m.agent_id == lead_id:
                lead = m.name
                continue
            members.append(m)
        if not lead:
            lead = lead_id.split("@", 1)[0] if lead_id else self.default_lead
        try:
            cfg = TeamConfig(
                name=data.get("name") if isinstance(data.get("name"), str) else self.name,
                description=data.get("description") if isinstance(data.get("description"), str) else "",
                created_at=parse_time(data.get("createdAt")) or None,
                lead=lead,
            )
        except ValidationError as exc:
            raise ParseError(ReadError(path, validation_reason(exc))) from None
        cfg.members = members
        cfg._raw = data
        return cfg

    # ----------------------------------------------------------------- inboxes
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
            (out.errors if isinstance(item, ReadError) else out.messages).append(item)
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
                "send under a name of your own (--from NAME, or sender = \"...\" in the config file; default teamtui)"
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
        ensure_dir(self.inbox_dir, self.root)
        path = ensure_inside(self.inbox_path(to), self.root)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("[]")
        except FileExistsError:
            pass
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

    # ------------------------------------------------------------------- tasks
    def task_paths(self) -> list[Path]:
        try:
            return [p for p in self.tasks_dir.iterdir() if p.name.endswith(".json") and not p.name.startswith(".")]
        except OSError:
            return []

    def read_task(self, path: Path) -> Task | ReadError:
        data = load_json_file(path)
        if isinstance(data, ReadError):
            return data
        try:
            task = decode_task_dict(data, path)
        except ParseError as exc:
            return exc.error
        if claude_sanitize(task.id) != path.stem:
            # Claude Code writes <id>.json: another id here would shadow that task.
            return ReadError(path, f"id {task.id[:40]!r} does not match the file name")
        return task
