"""The TOML team file: a team, its teammates, its initial tasks, settings and hooks.

A bad file is refused with `TeamFileError` naming the file, the line and the reason.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator, model_validator

from teamtui.protocol.errors import ProtocolError
from teamtui.protocol.names import check_name
from teamtui.protocol.near_miss import did_you_mean, norm

HookEvent = Literal[
    "team-created", "teammate-spawned", "teammate-idle", "task-assigned", "task-completed", "team-shutdown"
]
HOOK_EVENTS: tuple[str, ...] = get_args(HookEvent)
# How the lead talks to a teammate: teamtui's files, Autohand's JSON-RPC over stdio, or one run per task.
Protocol = Literal["files", "jsonrpc", "per-task"]


class TeamFileError(Exception):
    def __init__(self, path: Path, line: int | None, reason: str):
        self.path, self.line, self.reason = path, line, reason
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {reason}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TeamSection(_Strict):
    name: str
    description: str = ""
    assign: Literal["self", "lead"] = "self"
    max_teammates: int = Field(5, ge=1, le=64)
    # Every teammate at once (up to max_teammates), idle until work is ready; else more start as it does.
    start_all: StrictBool = False
    # Health: a teammate holding a task with no activity for this long is "disappeared".
    health_timeout: float = Field(60.0, gt=0)
    # Then: only flag it; release its task to the board; or release it and restart the teammate.
    on_disappeared: Literal["flag", "release", "restart"] = "release"
    # A task lost this many times (crash, disappearance, `task fail`) is held as blocked until retried.
    max_failures: int = Field(3, ge=1)
    # Two-phase shutdown: wait this long for replies, then SIGTERM, then SIGKILL after the grace.
    shutdown_deadline: float = Field(30.0, ge=0)
    shutdown_grace: float = Field(5.0, ge=0)
    # How often a crashed teammate is restarted.
    restarts: int = Field(1, ge=0)
    hook_timeout: float = Field(10.0, gt=0)
    # Seconds between a teammate's inbox/board checks while idle (passed as TEAMTUI_POLL).
    poll_interval: float = Field(1.0, gt=0)
    # A git worktree per teammate (a teammate's own `worktree` overrides this).
    worktree: StrictBool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _checked(v, "team name")


class TeammateSpec(_Strict):
    name: str
    command: str
    agent_type: str = ""
    color: str = ""
    model: str = ""
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    protocol: Protocol = "files"
    worktree: StrictBool | None = None  # None: the team's setting

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        v = _checked(v, "teammate name")
        if v == "lead":
            raise ValueError("'lead' is the team's lead, not a teammate")
        return v

    @field_validator("command")
    @classmethod
    def _command(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("command must not be empty")
        return v


class TaskSpec(_Strict):
    subject: str
    description: str = ""
    blocked_by: list[int] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)

    @field_validator("subject")
    @classmethod
    def _subject(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("subject must not be empty")
        return v


class TeamFile(_Strict):
    team: TeamSection
    teammates: list[TeammateSpec] = Field(min_length=1)
    tasks: list[TaskSpec] = Field(default_factory=list)
    hooks: dict[HookEvent, str | list[str]] = Field(default_factory=dict)
    # Where the file was read from: relative commands and cwds start there.
    base_dir: Path = Field(default=Path("."), exclude=True)

    @model_validator(mode="after")
    def _unique(self) -> TeamFile:
        seen: set[str] = set()
        for t in self.teammates:
            if t.name in seen:
                raise ValueError(f"teammate {t.name!r} is defined twice")
            seen.add(t.name)
        return self

    def hook_commands(self, event: str) -> list[str]:
        v = self.hooks.get(cast(HookEvent, event), [])  # any other name: no commands
        return [v] if isinstance(v, str) else list(v)

    def teammate_cwd(self, spec: TeammateSpec) -> Path:
        return (self.base_dir / spec.cwd).resolve() if spec.cwd else self.base_dir

    def uses_worktree(self, spec: TeammateSpec) -> bool:
        return self.team.worktree if spec.worktree is None else spec.worktree


def _checked(v: str, what: str) -> str:
    try:
        return check_name(v, what)
    except ProtocolError as exc:
        raise ValueError(str(exc)) from None


def load_team_file(path: Path) -> TeamFile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TeamFileError(path, None, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TeamFileError(path, None, "not UTF-8 text") from None
    return parse_team_file(text, path)


def parse_team_file(text: str, path: Path) -> TeamFile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message ends "(at line L, column C)": split it into our form.
        m = re.search(r"\(at line (\d+), column \d+\)$", str(exc))
        reason = str(exc)[: m.start()].strip() if m else str(exc)
        raise TeamFileError(path, int(m.group(1)) if m else None, f"TOML syntax: {reason}") from None
    try:
        tf = TeamFile.model_validate({**data, "base_dir": path.resolve().parent})
    except ValidationError as exc:
        errors = exc.errors()
        # A mistyped key is both a key missing and one too many: the one too many says which.
        err = next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])
        loc = tuple(err.get("loc", ()))
        where = ".".join(str(p) for p in loc if p != "[key]") or "file"
        msg = err.get("msg", "invalid").removeprefix("Value error, ")
        if loc[:1] == ("hooks",) and "[key]" in loc:
            near = did_you_mean(str(loc[1]), {norm(e): e for e in HOOK_EVENTS})
            msg = f"unknown hook event {loc[1]!r}{near}; known: {', '.join(HOOK_EVENTS)}"
        elif err.get("type") == "extra_forbidden" and loc:
            msg = _unknown_key(loc)
        raise TeamFileError(path, locate(text, loc), f"{where}: {msg}") from None
    _check_tasks(tf, text, path)
    return tf


# Each table of a team file, as a person writes its header.
_TABLES: dict[str, tuple[type[BaseModel], str]] = {
    "team": (TeamSection, "[team]"),
    "teammates": (TeammateSpec, "[[teammates]]"),
    "tasks": (TaskSpec, "[[tasks]]"),
}


def _unknown_key(loc: tuple[Any, ...]) -> str:
    """What pydantic calls an extra input, said as a key the file may not hold, with a near miss:
    first among its own table's keys, then the other tables' (named with their header), then the tables."""
    key = str(loc[-1])
    table = _TABLES.get(str(loc[0])) if len(loc) > 1 else None
    forms: dict[str, str] = {}
    if table is not None:
        forms.update({norm(k): k for k in table[0].model_fields})
    for model, header in _TABLES.values():
        if table is None or model is not table[0]:
            for k in model.model_fields:
                forms.setdefault(norm(k), f"{k} under {header}")
    for name, (_, header) in _TABLES.items():
        forms.setdefault(norm(name), header)
    forms.setdefault("hooks", "[hooks]")
    if table is None:
        return f"not a table of a team file{did_you_mean(key, forms)}"
    return f"not a key of {table[1]}{did_you_mean(key, forms)}"


def _check_tasks(tf: TeamFile, text: str, path: Path) -> None:
    for i, task in enumerate(tf.tasks):
        for dep in task.blocked_by:
            if dep == i + 1:
                raise TeamFileError(
                    path, locate(text, ("tasks", i, "blocked_by")), f"tasks.{i}.blocked_by: task {i + 1} blocks itself"
                )


_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\"'-]+)\s*=")


def locate(text: str, loc: tuple[Any, ...]) -> int | None:
    """The line of the TOML key a validation error points at: its key, else its table, else None."""
    if not loc:
        return None
    table = str(loc[0])
    index = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
    rest = [str(p) for p in loc[(2 if index is not None else 1) :]]
    key = rest[0] if rest else None
    current: str | None = None
    counts: dict[str, int] = {}
    table_line: int | None = None
    in_target = False
    for no, line in enumerate(text.splitlines(), 1):
        h = _HEADER.match(line)
        if h:
            current = h.group(2).strip().strip("\"'")
            if h.group(1) == "[[":
                counts[current] = counts.get(current, -1) + 1
            in_target = current == table and (index is None or counts.get(current) == index)
            if in_target:
                table_line = no
            elif table_line is not None and current.split(".")[0] != table:
                pass
            continue
        k = _KEY.match(line)
        if current is None and k and k.group(1).strip("\"'") == table:
            return no  # e.g. `teammates = []` at top level
        if in_target and k and key is not None and k.group(1).strip("\"'") == key:
            return no
    return table_line
