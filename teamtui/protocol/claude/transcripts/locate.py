"""Where a Claude Code team's transcripts are (FORMATS.md §3, "Transcripts").

- the lead: `projects/<slug>/<leadSessionId>.jsonl`;
- a pane teammate: its own session file in `projects/<slug>/`, told by the `teamName` and
  `agentName` on its lines (newest file first; only the head of each candidate is read);
- an in-process teammate: `projects/<slug>/<leadSessionId>/subagents/agent-a<name>-<16 hex>.jsonl`
  with `.meta.json` beside it.

`<slug>` is the member's `cwd` with every character outside [A-Za-z0-9] replaced by `-`.
Nothing here builds a path from a name: slugs cannot climb, and a session id that is not a plain
id is ignored.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamtui.protocol.fsio import read_bytes_bounded

# How much of a candidate session file is read to learn whose it is.
HEAD_BYTES = 64 * 1024
_META_BYTES = 64 * 1024
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_SUBAGENT = re.compile(r"agent-a(?P<name>.+)-(?P<hex>[0-9a-f]{16})\.jsonl")
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9]")


def project_slug(cwd: str) -> str:
    """`/src/app` → `-src-app`: the folder name Claude Code gives a working directory."""
    return _SLUG_UNSAFE.sub("-", cwd)


@dataclass(frozen=True, slots=True)
class TranscriptSource:
    member: str
    path: Path
    # "lead" | "pane" | "in-process"
    backend: str
    # The model named by an in-process teammate's .meta.json, if any.
    model: str | None = None


@dataclass(frozen=True, slots=True)
class _Member:
    name: str
    cwd: str
    in_process: bool


class TranscriptFinder:
    """Finds the transcripts of one team, given its config.json (as a dict) and the Claude
    folder. `watch_dirs` are the folders to watch; on a change there, `concerns(path)` says
    whether it could add or replace a transcript, and `resolve()` looks again, cheaply (each
    candidate's head is read once it can no longer change)."""

    def __init__(self, config_dir: Path, config: Mapping[str, object]):
        self.config_dir = Path(config_dir)
        # path -> (size when read, (teamName, agentName) or None): a head under HEAD_BYTES may still grow.
        self._heads: dict[Path, tuple[int, tuple[str, str] | None]] = {}
        self.update_config(config)

    def update_config(self, config: Mapping[str, Any]) -> None:
        """A new config.json (members come and go)."""
        self.team = config.get("name") if isinstance(config.get("name"), str) else ""
        sid = config.get("leadSessionId")
        self.lead_session = sid if isinstance(sid, str) and _SESSION_ID.fullmatch(sid) else None
        created = config.get("createdAt")
        # Session files last written before the team existed cannot be its teammates'.
        self.created = _seconds(created)
        lead_id = config.get("leadAgentId")
        members = [m for m in config.get("members") or [] if isinstance(m, dict) and isinstance(m.get("name"), str)]
        lead = next((m for m in members if lead_id and m.get("agentId") == lead_id), None)
        lead = lead or next((m for m in members if m.get("name") == "team-lead"), None)
        self.lead = lead["name"] if lead else "team-lead"
        self.lead_cwd = lead.get("cwd") if lead and isinstance(lead.get("cwd"), str) else None
        self.members = [
            _Member(m["name"], m["cwd"] if isinstance(m.get("cwd"), str) else (self.lead_cwd or ""), _in_process(m))
            for m in members
            if m["name"] != self.lead
        ]

    def _project(self, cwd: str | None) -> Path | None:
        return self.config_dir / "projects" / project_slug(cwd) if cwd else None

    @property
    def watch_dirs(self) -> list[Path]:
        """The project folders holding this team's transcripts (watch recursively: in-process
        teammates appear under `<leadSessionId>/subagents/`). They may not exist yet."""
        cwds = {self.lead_cwd, *(m.cwd for m in self.members)}
        return sorted({p for p in (self._project(c) for c in cwds if c) if p is not None})

    def concerns(self, path: Path) -> bool:
        """Could a change at `path` add or replace one of this team's transcripts?"""
        path = path if isinstance(path, Path) else Path(path)  # Path(a Path) parses every part again
        if path.suffix not in (".jsonl", ".json"):
            return False
        known = self._heads.get(path)
        if known is not None and known[0] >= HEAD_BYTES and (known[1] is None or known[1][0] != self.team):
            return False  # another session's file, growing: its head already said whose it is
        return any(
            path.parent == d or (path.parent.name == "subagents" and path.parent.parent.parent == d)
            for d in self.watch_dirs
        )

    def resolve(self) -> dict[str, TranscriptSource]:
        """Member name → its transcript, for those whose transcript exists now."""
        found: dict[str, TranscriptSource] = {}
        lead_dir = self._project(self.lead_cwd)
        if lead_dir is not None and self.lead_session:
            lead_file = lead_dir / f"{self.lead_session}.jsonl"
            if _is_file(lead_file):
                found[self.lead] = TranscriptSource(self.lead, lead_file, "lead")
        in_process = [m for m in self.members if m.in_process]
        if in_process and lead_dir is not None and self.lead_session:
            found.update(self._in_process(lead_dir / self.lead_session / "subagents", {m.name for m in in_process}))
        panes: dict[Path, set[str]] = {}
        for m in self.members:
            d = self._project(m.cwd)
            if not m.in_process and d is not None:
                panes.setdefault(d, set()).add(m.name)
        for d, names in panes.items():
            found.update(self._panes(d, names))
        return found

    def _in_process(self, sub: Path, names: set[str]) -> dict[str, TranscriptSource]:
        found: dict[str, tuple[float, TranscriptSource]] = {}
        for entry in _scan(sub):
            if not (entry.name.startswith("agent-") and entry.name.endswith(".jsonl")):
                continue
            # The name: from .meta.json, else from `agent-a<name>-<16 hex>` (older files may have neither).
            meta = _read_meta(sub / (entry.name[: -len(".jsonl")] + ".meta.json"))
            m = _SUBAGENT.fullmatch(entry.name)
            name = meta.get("name") if isinstance(meta.get("name"), str) else m.group("name") if m else None
            team = meta.get("teamName")
            if name not in names or (isinstance(team, str) and self.team and team != self.team):
                continue
            mtime = _mtime(entry)
            if mtime is None:
                continue
            model = meta.get("model") if isinstance(meta.get("model"), str) else None
            if name not in found or mtime > found[name][0]:
                found[name] = (mtime, TranscriptSource(name, Path(entry.path), "in-process", model))
        return {n: src for n, (_, src) in found.items()}

    def _panes(self, project: Path, names: set[str]) -> dict[str, TranscriptSource]:
        candidates = []
        for entry in _scan(project):
            if not entry.name.endswith(".jsonl") or entry.name == f"{self.lead_session}.jsonl":
                continue
            mtime = _mtime(entry)
            if mtime is not None and (self.created is None or mtime >= self.created - 1.0):
                candidates.append((mtime, Path(entry.path)))
        found: dict[str, TranscriptSource] = {}
        for _, path in sorted(candidates, reverse=True):  # newest first: a restarted teammate's latest session
            who = self._whose(path)
            if who and who[0] == self.team and who[1] in names and who[1] not in found:
                found[who[1]] = TranscriptSource(who[1], path, "pane")
                if len(found) == len(names):
                    break
        return found

    def _whose(self, path: Path) -> tuple[str, str] | None:
        """(teamName, agentName) from the head of a session file, remembered once it is final."""
        try:
            size = path.stat().st_size
        except OSError:
            return None
        known = self._heads.get(path)
        if known is not None and (known[0] >= HEAD_BYTES or known[0] == size):
            return known[1]
        who = _head_owner(path)
        self._heads[path] = (size, who)
        return who

    def forget(self, path: Path) -> None:
        """Drop what was remembered of a file that was removed or replaced."""
        self._heads.pop(Path(path), None)


def _seconds(ms: object) -> float | None:
    """Epoch milliseconds as seconds; None when not a number a float can hold (a peer's 10**400)."""
    if not isinstance(ms, (int, float)) or isinstance(ms, bool):
        return None
    try:
        return ms / 1000.0
    except OverflowError:
        return None


def _in_process(member: Mapping[str, object]) -> bool:
    return member.get("backendType") == "in-process" or member.get("tmuxPaneId") == "in-process"


def _scan(d: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(d) as it:
            return list(it)
    except OSError:
        return []


def _mtime(entry: os.DirEntry) -> float | None:
    try:
        st = entry.stat()  # follows a symlink: a transcript must be a regular file
    except OSError:
        return None
    return st.st_mtime if stat.S_ISREG(st.st_mode) else None


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _read_meta(path: Path) -> dict[str, Any]:
    data = read_bytes_bounded(path, _META_BYTES)
    if not isinstance(data, bytes):
        return {}
    try:
        meta = json.loads(data)
    except (ValueError, RecursionError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _head_owner(path: Path) -> tuple[str, str] | None:
    """The first complete line in the head that names a team and an agent."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.pread(fd, HEAD_BYTES, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in head.split(b"\n")[:-1]:  # the last piece may be cut short
        if b'"teamName"' not in line:
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(rec, dict) and isinstance(rec.get("teamName"), str) and isinstance(rec.get("agentName"), str):
            return rec["teamName"], rec["agentName"]
    return None
