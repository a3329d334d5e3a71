"""A native team's `config.json`: decoding it, and every rewrite of it under the config lock."""

from __future__ import annotations

import time
from pathlib import Path

from teamtui.protocol.errors import ConflictError, NotFoundError, ParseError, ReadError
from teamtui.protocol.fsio import ensure_dir, ensure_inside, load_json_file, write_json_atomic
from teamtui.protocol.locks import FileLock
from teamtui.protocol.models import Member, TeamConfig, normalize_status
from teamtui.protocol.names import check_name
from teamtui.protocol.native.layout import NativeLayout
from teamtui.protocol.store import validation_reason
from teamtui.protocol.wire import ValidationError

TYPE_CHECKING = False  # not typing's: importing typing costs every CLI call ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class NativeConfig(NativeLayout):
    """Reading and rewriting the team file; an unparsable one is never rewritten."""

    def decode_config(self, data: Any, path: Path) -> TeamConfig:
        if not isinstance(data, dict):
            raise ParseError(ReadError(path, f"expected a JSON object, got {type(data).__name__}"))
        raw_members = data.get("members", [])
        if raw_members is None:
            raw_members = []
        if not isinstance(raw_members, list):
            raise ParseError(ReadError(path, "'members' must be a list"))
        members = []
        for i, rm in enumerate(raw_members):
            if not isinstance(rm, dict):
                raise ParseError(ReadError(path, f"members[{i}] must be an object"))
            md = dict(rm)
            md["status"] = normalize_status(rm.get("status"))
            try:
                m = Member.model_validate(md)
            except ValidationError as exc:
                raise ParseError(ReadError(path, f"members[{i}].{validation_reason(exc)}")) from None
            m._raw = rm
            members.append(m)
        td = {k: v for k, v in data.items() if k != "members"}
        td.setdefault("name", self.name)
        if not td.get("lead"):
            td["lead"] = "lead"
        try:
            cfg = TeamConfig.model_validate({**td, "members": []})
        except ValidationError as exc:
            raise ParseError(ReadError(path, validation_reason(exc))) from None
        cfg.members = members
        cfg._raw = data
        return cfg

    def _config_lock(self) -> FileLock:
        return FileLock(self.team_dir / "config.lock")

    def update_config(self, change: Callable[[dict[str, Any]], None]) -> TeamConfig:
        """Read-modify-write the config under a lock; an unparsable config is never rewritten."""
        if not self.team_dir.is_dir():
            raise NotFoundError(f"no team {self.name!r} at {self.team_dir}")
        ensure_inside(self.config_path, self.root)  # the lock and the rewrite both land beside it
        with self._config_lock():
            data = load_json_file(self.config_path)
            if isinstance(data, ReadError):
                raise ParseError(data)
            self.decode_config(data, self.config_path)  # refuse to rewrite what we cannot understand
            change(data)
            write_json_atomic(self.config_path, data)
            return self.decode_config(data, self.config_path)

    def create(self, description: str = "", lead: str = "lead") -> TeamConfig:
        check_name(lead, "lead name")
        self.root.mkdir(parents=True, exist_ok=True)  # making a team is the one write that may make its root
        ensure_dir(self.team_dir, self.root)
        ensure_dir(self.tasks_dir, self.root)
        with self._config_lock():
            if self.config_path.exists():
                raise ConflictError(f"team {self.name!r} already exists at {self.team_dir}")
            data: dict[str, Any] = {"name": self.name, "created_at": time.time(), "members": []}
            if description:
                data["description"] = description
            if lead != "lead":
                data["lead"] = lead
            write_json_atomic(self.config_path, data)
        return self.read_config()

    def add_member(self, name: str, *, status: str = "idle", **fields: Any) -> Member:
        check_name(name, "teammate name")
        if name == self.lead_name:
            raise ConflictError(f"{name!r} is the team's lead")

        def change(data: dict[str, Any]) -> None:
            members = data.setdefault("members", [])
            for m in members:
                if m.get("name") == name:
                    raise ConflictError(f"{name!r} is already a member of {self.name!r}")
            entry: dict[str, Any] = {"name": name, "agent_id": f"{name}@{self.name}", "status": status}
            entry.update({k: v for k, v in fields.items() if v not in (None, "")})
            entry.setdefault("joined_at", time.time())
            members.append(entry)

        cfg = self.update_config(change)
        member = cfg.member(name)
        assert member is not None
        return member

    def update_member(self, name: str, **fields: Any) -> Member:
        """Set fields on one member entry (e.g. status, pid, last_seen), keeping every other key."""

        def change(data: dict[str, Any]) -> None:
            for m in data.get("members", []):
                if m.get("name") == name:
                    for k, v in fields.items():
                        if v is None:
                            m.pop(k, None)
                        else:
                            m[k] = v
                    return
            raise NotFoundError(f"no member {name!r} in team {self.name!r}")

        cfg = self.update_config(change)
        member = cfg.member(name)
        assert member is not None
        return member
