"""The user's settings: $XDG_CONFIG_HOME/teamtui/config.toml, every key typed and documented here.

One pydantic model (dataclasses, so `HostSettings("box", "me@box")` still builds one) checks the
file. A key teamtui does not know, or a value of the wrong kind, is said in words naming the key and
the file (with "did you mean" for a near miss: `notify_command` -> `[notify] command`) and dropped;
the rest of the file still applies. Where the words go: `teamtui doctor`, stderr for the commands
that read the file, and the control room's problem line (`Settings.problems`).

Importing this module imports pydantic (~50 ms): the hot commands never do (`config_file.py` has
what they need). teamtui writes back only the theme (`save_theme`).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)
from pydantic.dataclasses import dataclass

from teamtui.protocol.config_file import (
    DEFAULT_ANSWER_WAIT,
    DEFAULT_SENDER,
    DEFAULT_THEME,
    MAX_ANSWER_WAIT,
    check_sender,
    config_path,
    read_config,
    save_theme,
)
from teamtui.protocol.near_miss import did_you_mean, norm

# Every table: no key it does not name; floats finite; schemas built on first use.
_TABLE = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)


@dataclasses.dataclass(frozen=True)
class Must:
    """What a key must be, in words, for its problem line; `each`: what each item must be (a list or table).
    `secret`: the value is never echoed (a token, a command holding a webhook's URL)."""

    text: str
    each: str = ""
    secret: bool = False


# A number above 0: an int or a float, never "24" or true.
Positive = Annotated[float, Strict(), Field(gt=0)]


def _plain_arg(v: object) -> str:
    if not isinstance(v, str) or not v or any(c in v for c in "\0\n\r"):
        raise ValueError("must be a string without line breaks")
    return v


PlainArg = Annotated[str, BeforeValidator(_plain_arg)]


def _folder(v: object) -> Path:
    """`~/src/api` or `/srv/web`: absolute, `~` expanded."""
    try:
        root = Path(v).expanduser() if isinstance(v, str) and v and "\0" not in v else None
    except RuntimeError:  # ~someone who is no user here
        root = None
    if root is None or not root.is_absolute():
        raise ValueError("must be an absolute folder or start with ~")
    return root


Folder = Annotated[Path, BeforeValidator(_folder)]


def _osc(v: object) -> int:
    if type(v) is not int or v not in (9, 777):
        raise ValueError("must be 9 or 777")
    return v


@dataclass(config=_TABLE)
class NotifySettings:
    """[notify]: how teamtui gets a person's attention (teamtui/notify)."""

    bell: Annotated[StrictBool, Must("be true or false")] = Field(default=True, description="Ring the terminal's bell.")
    desktop: Annotated[StrictBool, Must("be true or false")] = Field(
        default=True,
        description="A desktop notification the terminal shows (OSC 9 / OSC 777; tmux's message line when tmux blocks them).",
    )
    desktop_osc: Annotated[list[Annotated[int, BeforeValidator(_osc)]], Must("be a list of 9 and/or 777")] = Field(
        default_factory=list,
        description="Which of OSC 9 and 777 to send; empty: chosen by the terminal (both when it is not known).",
    )
    command: Annotated[
        list[PlainArg],
        Must('be a program and its arguments as a list of strings, like ["notify-send", "teamtui"]', secret=True),
    ] = Field(
        default_factory=list,
        description='A program run with each event as one JSON object on stdin, e.g. ["notify-send", "teamtui"]; empty: none.',
    )
    command_timeout: Annotated[Positive, Must("be a positive number of seconds")] = Field(
        default=10.0, description="Seconds the command may run before it is stopped."
    )
    mute_minutes: Annotated[Positive, Must("be a positive number of minutes")] = Field(
        default=30.0, description="How long the mute key (z) silences every notification."
    )

    def __post_init__(self) -> None:
        self.desktop_osc = list(dict.fromkeys(self.desktop_osc))


_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _host_name(v: object) -> str:
    if not isinstance(v, str) or not _HOST_NAME.fullmatch(v):
        raise ValueError("must be letters, digits, '.', '_' or '-' (at most 64)")
    return v


def _ssh_destination(v: object) -> str:
    # Never an option: `ssh -oProxyCommand=...` would run a command here.
    if not isinstance(v, str) or not v or v.startswith("-") or any(c.isspace() or ord(c) < 32 for c in v):
        raise ValueError("must be a destination as ssh takes it (me@box, or a Host of ~/.ssh/config)")
    return v


def _command(v: object) -> str:
    if not isinstance(v, str) or not v.strip() or any(c in v for c in "\0\n\r"):
        raise ValueError('must be the command that runs teamtui there, like "~/.local/bin/teamtui"')
    return v


@dataclass(config=_TABLE)
class HostSettings:
    """One [[hosts]] table: a machine whose teams are shown over SSH (session/remote.py)."""

    name: Annotated[str, BeforeValidator(_host_name)] = Field(description="How its rows say where they are.")
    ssh: Annotated[str, BeforeValidator(_ssh_destination)] = Field(
        description="A destination as ssh takes it: `user@box`, `box`, or a Host alias of ~/.ssh/config."
    )
    ssh_options: Annotated[list[PlainArg], Must('be a list of ssh arguments, like ["-p", "2222"]')] = Field(
        default_factory=list, description='Extra ssh arguments, e.g. ["-p", "2222"].'
    )
    roots: Annotated[list[PlainArg], Must('be a list of folders there, like ["~/src/api"]')] = Field(
        default_factory=list, description="Native roots there (Claude Code's folder is always read)."
    )
    teamtui: Annotated[str, BeforeValidator(_command)] = Field(
        default="teamtui", description="The command that runs teamtui there."
    )


def _nats_url(v: object) -> str:
    if not isinstance(v, str) or v.partition("://")[0] not in ("nats", "tls") or "://" not in v or " " in v:
        raise ValueError("must be nats://HOST:PORT or tls://HOST:PORT")
    return v


def _file(v: object) -> str:
    """A file's path, `~` expanded; "" for none."""
    try:
        if v == "" or (isinstance(v, str) and "\0" not in v):
            return str(Path(v).expanduser()) if v else ""
    except RuntimeError:  # ~someone who is no user here
        pass
    raise ValueError('must be the path of a file, like "~/.config/teamtui/nats.creds"')


def _subjects(v: object) -> str:
    from teamtui.protocol.nats_subjects import filter_problem

    if not isinstance(v, str):
        raise ValueError("must be a string in quotes")
    problem = filter_problem(v)
    if problem:
        raise ValueError(problem)
    return v


def _short_line(v: object) -> str:
    if not isinstance(v, str) or len(v) > 64 or any(ord(c) < 32 for c in v):
        raise ValueError("must be a short line of text (at most 64 characters)")
    return v


@dataclass(config=_TABLE)
class NatsSettings:
    """One [[nats]] table: a NATS server whose published teams the control room shows
    (session/nats_source.py; hosts publish with `teamtui stream --publish`)."""

    url: Annotated[str, BeforeValidator(_nats_url)] = Field(description="nats://HOST:PORT or tls://HOST:PORT.")
    # Never echoed when wrong: a token might have been put here in place of its file.
    credentials: Annotated[
        str, BeforeValidator(_file), Must('be the path of a file, like "~/nats.creds"', secret=True)
    ] = Field(default="", description="A file: a token, an nkey seed (SU…) or a .creds file; unset: none.")
    tls_ca: Annotated[str, BeforeValidator(_file), Must('be the path of a file, like "~/nats-ca.pem"', secret=True)] = (
        Field(
            default="", description="A file: the CA the server's certificate is checked against; unset: the system's."
        )
    )
    subjects: Annotated[str, BeforeValidator(_subjects)] = Field(
        default="teamtui.>", description="Which hosts and teams: teamtui.> for all, teamtui.HOST.> for one."
    )
    name: Annotated[str, BeforeValidator(_short_line)] = Field(
        default="", description="How its rows and problems name it; unset: the URL."
    )


Dollars = Annotated[float | None, Strict(), Field(gt=0), Must("be a positive number of dollars, like 20 or 7.5")]


@dataclass(config=_TABLE)
class BudgetSettings:
    """[budgets]: dollars (USD, as genai-prices prices them) that call you at 80 % and at 100 %, once
    each per period, through the [notify] channels; the control room's row says it too."""

    team: Dollars = Field(default=None, description="Per team, over its whole life; unset: none.")
    day: Dollars = Field(default=None, description="Per day (local time), every team together; unset: none.")
    teammate: Dollars = Field(
        default=None, description="Per teammate (the lead too), over its whole life; unset: none."
    )


_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,}")


def _serve_token(v: object) -> str | None:
    if v is None:
        return None
    # The value is a secret: say what is wrong with it, never echo it.
    if isinstance(v, str) and _TOKEN.fullmatch(v):
        return v
    got = (
        _got(v, secret=True)
        if not isinstance(v, str)
        else f"only {len(v)} characters"
        if len(v) < 16
        else "other characters too"
    )
    raise ValueError(
        "must be at least 16 letters, digits, '-' or '_' "
        f"(e.g. from `python -c 'import secrets; print(secrets.token_urlsafe())'`), got {got}; "
        "using a new random token"
    )


@dataclass(config=_TABLE)
class Settings:
    """config.toml: the top-level keys, then its tables."""

    theme: Annotated[StrictStr, Must("be a theme's name in quotes")] = Field(
        default=DEFAULT_THEME, description="The colour theme (teamtui writes it back when you pick one with ctrl+p)."
    )
    keymap: Annotated[dict[str, StrictStr], Must("be a table", each='be keys in quotes, like "ctrl+q"')] = Field(
        default_factory=dict, description='[keymap]: a binding id = the keys for it, e.g. quit = "ctrl+q".'
    )
    log_lines: Annotated[StrictInt, Field(gt=0), Must("be a positive whole number")] = Field(
        default=1000, description="Log lines kept per teammate."
    )
    health_timeout: Annotated[Positive, Must("be a positive number of seconds")] = Field(
        default=60.0,
        description="Seconds without activity, while holding a task, before a teammate counts as disappeared.",
    )
    teammate_mode: Literal["auto", "in-process", "tmux"] = Field(
        default="auto",
        description="Where teammates show: tmux panes beside the dashboard, in-process, or auto (tmux inside tmux).",
    )
    max_panes: Annotated[StrictInt, Field(ge=1), Must("be a whole number of at least 1")] = Field(
        default=8,
        description="At most this many `teamtui follow` panes at once in tmux mode; the others open when selected.",
    )
    sender: Annotated[StrictStr, BeforeValidator(lambda v: check_sender(v) if isinstance(v, str) else v)] = Field(
        default=DEFAULT_SENDER,
        description="The name messages teamtui sends carry (never a Claude Code team's lead, `user` or `system`).",
    )
    fleet_keep_hours: Annotated[Positive, Must("be a positive number")] = Field(
        default=24.0, description="How long the control room lists a team after it ended."
    )
    history_keep_days: Annotated[Positive, Must("be a positive number of days")] = Field(
        default=90.0, description="How long the history database keeps what every team did (teamtui search, history)."
    )
    roots: Annotated[
        list[Folder],
        Must('be a list of folders, like roots = ["~/src/api"]', each="be an absolute folder or start with ~"),
    ] = Field(default_factory=list, description="Native roots the control room looks at besides the current directory.")
    serve_token: Annotated[str | None, BeforeValidator(_serve_token), Must("be a token", secret=True)] = Field(
        default=None,
        description="`teamtui serve`'s token, fixed so a bookmarked URL keeps working; unset: a new one each start.",
    )
    notify: Annotated[NotifySettings, Must("be a table ([notify] with bell, desktop, command, mute_minutes)")] = Field(
        default_factory=NotifySettings, description="[notify]: how teamtui calls you."
    )
    budgets: Annotated[BudgetSettings, Must("be a table ([budgets] with team, day, teammate)")] = Field(
        default_factory=BudgetSettings, description="[budgets]: what the teams may cost before you are called."
    )
    hosts: Annotated[
        list[HostSettings],
        Must('be [[hosts]] tables (name = "box", ssh = "me@box")', each="be a table with name and ssh"),
    ] = Field(
        default_factory=list, description="[[hosts]]: other machines whose teams the control room shows, over ssh."
    )
    nats: Annotated[
        list[NatsSettings],
        Must('be [[nats]] tables (url = "nats://HOST:4222")', each="be a table with url"),
    ] = Field(
        default_factory=list,
        description="[[nats]]: NATS servers whose published teams the control room shows (teamtui stream --publish).",
    )
    answer_wait: Annotated[
        float,
        Strict(),
        Field(ge=0, le=MAX_ANSWER_WAIT),
        Must(f"be seconds from 0 (never wait) to {MAX_ANSWER_WAIT:g}"),
    ] = Field(
        default=DEFAULT_ANSWER_WAIT,
        description="Seconds a permission request waits for an answer from a room before it is left to the "
        "lead's terminal (0: never offered to a room).",
    )
    # Not a key: why a setting was dropped, for the places that say so.
    problems: list[str] = dataclasses.field(default_factory=list, init=False)


# ------------------------------------------------------------------ loading


def load_settings(path: Path | None = None) -> Settings:
    """The file's settings; what is wrong with it is in `problems` and left out, the rest applies."""
    path = path or config_path()
    data, problem = read_config(path)
    if data is None:
        s = Settings()
        if problem:
            s.problems.append(problem)
        return s
    return _validated(data, path)


@functools.cache
def _adapter() -> TypeAdapter[Settings]:
    return TypeAdapter(Settings)  # its schema is built on first use, not on import


def _validated(data: dict[str, Any], path: Path) -> Settings:
    data = _copy(data)
    problems: list[str] = []
    for _ in range(8):  # each round drops what was wrong; what is left validates by the second
        try:
            s: Settings = _adapter().validate_python(data)
        except ValidationError as exc:
            drops: list[tuple[Any, ...]] = []
            order = {key: i for i, key in enumerate(data)}  # said in the order the file has them
            for err in sorted(exc.errors(), key=lambda e: order.get(str(e["loc"][0]), len(order)) if e["loc"] else -1):
                where = _Where.of(tuple(err["loc"]))
                problems.append(f"{path}: {where.problem(err, data)}")
                drops.append(where.drop)
            for loc in sorted(set(drops), key=_drop_order):
                _drop(data, loc)
            continue
        s.hosts = _unique_hosts(s.hosts, path, problems)
        s.nats = _unique_nats(s.nats, path, problems)
        s.problems = problems
        return s
    s = Settings()  # not reached: a table that keeps failing is dropped whole in the rounds above
    s.problems = [*problems, f"{path}: could not be read; using defaults"]
    return s


def _copy(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def _drop_order(loc: tuple[Any, ...]) -> tuple:
    # The later items of a list first: dropping one must not move the next one to drop.
    return tuple((0, -p) if isinstance(p, int) else (1, str(p)) for p in loc)


def _drop(data: Any, loc: tuple[Any, ...]) -> None:
    for part in loc[:-1]:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return
    try:
        del data[loc[-1]]
    except (KeyError, IndexError, TypeError):
        pass


def _unique_hosts(hosts: list[HostSettings], path: Path, problems: list[str]) -> list[HostSettings]:
    out: list[HostSettings] = []
    for host in hosts:
        if any(h.name == host.name for h in out):
            problems.append(f"{path}: [[hosts]] ({host.name}): the name is used again; this one is ignored")
        else:
            out.append(host)
    return out


def _unique_nats(servers: list[NatsSettings], path: Path, problems: list[str]) -> list[NatsSettings]:
    out: list[NatsSettings] = []
    for n in servers:
        if any((o.url, o.subjects) == (n.url, n.subjects) for o in out):
            problems.append(f"{path}: [[nats]] ({n.url}): it is there twice; this one is ignored")
        else:
            out.append(n)
    return out


# ------------------------------------------------------------------ saying what is wrong


def _fields(cls: Any) -> dict[str, Any]:
    """A table's keys (`problems` is none: it is not given, only said)."""
    return {k: v for k, v in getattr(cls, "__pydantic_fields__", {}).items() if v.init is not False}


def _must(info: Any) -> Must | None:
    return next((m for m in info.metadata if isinstance(m, Must)), None)


def _table_of(annotation: Any) -> tuple[Any, bool]:
    """(the settings class a key holds, whether it is a list of them) or (None, False)."""
    if _fields(annotation):
        return annotation, False
    if get_origin(annotation) is list and (args := get_args(annotation)) and _fields(args[0]):
        return args[0], True
    return None, False


_TABLE_NAMES = {
    NotifySettings: "[notify]",
    BudgetSettings: "[budgets]",
    HostSettings: "[[hosts]]",
    NatsSettings: "[[nats]]",
}


class _Where:
    """The key (or item) a validation error points at: how a problem names it, and what is dropped."""

    def __init__(self, words: str, table: Any, info: Any, key: tuple[Any, ...], drop: tuple[Any, ...]):
        self.words = words  # theme, [notify] bell, [[hosts]] #2 (box) ssh, roots #3, [keymap] quit
        self.table = table  # the table the key is in (Settings: the top of the file)
        self.info = info  # the key's FieldInfo; None: a key teamtui does not know
        self.key = key  # where the value the words name is
        self.drop = drop  # what leaves the data: the key, one item of it, or a whole host

    @classmethod
    def of(cls, loc: tuple[Any, ...]) -> _Where:
        table: Any = Settings
        prefix, i = "", 0
        while True:
            key = loc[i] if i < len(loc) else None
            fields = _fields(table)
            if key not in fields:
                return cls(f"{prefix}{key}", table, None, loc[: i + 1], loc[: i + 1])
            info, rest = fields[key], loc[i + 1 :]
            sub, many = _table_of(info.annotation)
            if sub is not None and not many and rest:  # [notify] bell
                prefix, table, i = f"{_TABLE_NAMES[sub]} ", sub, i + 1
                continue
            if sub is not None and many and rest and isinstance(rest[0], int):  # [[hosts]] #2 ...
                host = loc[: i + 2]
                words = f"{_TABLE_NAMES[sub]} #{rest[0] + 1}"
                if len(rest) == 1:
                    return cls(words, table, info, host, host)
                field = rest[1]
                if field not in _fields(sub):  # an unknown key: only it goes, the host stays
                    return cls(f"{words} {field}", sub, None, loc[: i + 3], loc[: i + 3])
                return cls(f"{words} {field}", sub, _fields(sub)[field], loc[: i + 3], host)
            if rest and key in ("roots", "keymap") and table is Settings:  # one item, dropped alone
                words = f"[keymap] {rest[0]}" if key == "keymap" else f"{key} #{rest[0] + 1}"
                return cls(words, table, info, loc[: i + 2], loc[: i + 2])
            return cls(f"{prefix}{key}", table, info, loc[: i + 1], loc[: i + 1])

    def problem(self, err: Any, data: dict[str, Any]) -> str:
        words = self._named(data)
        if self.info is None:
            return f"{words} is not a setting{_did_you_mean(str(self.drop[-1]), self.table)}; ignored"
        if err["type"] == "missing":
            return f"{words} is missing; {self._then()}"
        cause = str((err.get("ctx") or {}).get("error") or "")
        if ", got " in cause:  # a check that said what it saw (a secret's kind) and what happens
            return f"{words} {cause}"
        must = _must(self.info)
        item = isinstance(self.key[-1], int) or (self.key[:1] == ("keymap",) and len(self.key) == 2)
        if must is not None and (must.each if item else must.text):
            said = f"must {must.each if item else must.text}"
        elif err["type"] == "value_error" and len(err["loc"]) == len(self.key):
            said = str(cause or err["msg"])
        else:
            said = _said(err)
        return f"{words} {said}, got {_got(_at(data, self.key), must is not None and must.secret)}; {self._then()}"

    def _named(self, data: dict[str, Any]) -> str:
        """The words, with the name of the [[hosts]] table they are in, when it has a readable one."""
        if self.key[:1] != ("hosts",) or len(self.key) < 2:
            return self.words
        table = _at(data, self.key[:2])
        name = table.get("name") if isinstance(table, dict) else None
        if not isinstance(name, str) or not _HOST_NAME.fullmatch(name):
            return self.words
        head, _, rest = self.words.partition(" #")
        number, _, field = rest.partition(" ")
        return f"{head} #{number} ({name})" + (f" {field}" if field else "")

    def _then(self) -> str:
        if self.drop[:1] == ("hosts",) and len(self.drop) == 2:
            return "this host is ignored"
        if self.drop[:1] == ("nats",) and len(self.drop) == 2:
            return "this server is ignored"
        one_item = isinstance(self.drop[-1], int) or (self.drop[:1] == ("keymap",) and len(self.drop) == 2)
        return "ignored" if one_item else "the default is used"


def _at(data: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


_SAID = {
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "string_type": "must be a string in quotes",
    "list_type": "must be a list, like [...]",
    "dict_type": "must be a table",
    "dataclass_type": "must be a table",
    "finite_number": "must be a finite number",
}


def _said(err: Any) -> str:
    ctx = err.get("ctx") or {}
    if err["type"] == "greater_than":
        return "must be a positive number" if ctx.get("gt") == 0 else f"must be more than {ctx.get('gt')}"
    if err["type"] == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if err["type"] == "literal_error":
        return f"must be {ctx.get('expected')}"
    return _SAID.get(err["type"]) or str(err["msg"]).removeprefix("Value error, ").replace("Input should", "must")


def _got(value: Any, secret: bool) -> str:
    if secret:
        kind = {str: "a string", list: "a list", int: "a number", float: "a number", bool: "true or false"}
        return kind.get(type(value), f"a {type(value).__name__}")
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:79] + "…"


# ------------------------------------------------------------------ did you mean


def _known_keys() -> list[tuple[Any, str, str]]:
    """(table, key, how to name it) for every key of the file, the top-level ones first."""
    out: list[tuple[Any, str, str]] = []
    for k, info in _fields(Settings).items():  # a table by its header: [notify], [[hosts]], [keymap]
        sub = _table_of(info.annotation)[0]
        out.append((Settings, k, _TABLE_NAMES[sub] if sub is not None else "[keymap]" if k == "keymap" else k))
    for table, name in _TABLE_NAMES.items():
        out += [(table, k, f"{name} {k}") for k in _fields(table)]
    return out


def _did_you_mean(key: str, table: Any) -> str:
    """ " (did you mean [notify] command?)" for a near miss, else ""."""
    # Each known key under the forms it may be mistyped as: itself, and `table_key` at the top
    # (notify_command for [notify] command). The keys of the table it was found in come first.
    forms: dict[str, str] = {}
    for where, k, words in sorted(_known_keys(), key=lambda t: t[0] is not table):
        if where is Settings and table is not Settings:
            words = f"{k}, at the top of the file before any [table]"
        if where is not Settings:
            forms.setdefault(f"{_TABLE_NAMES[where].strip('[]')}_{norm(k)}", words)
        forms.setdefault(norm(k), words)
    return did_you_mean(key, forms)


__all__ = [
    "BudgetSettings",
    "DEFAULT_SENDER",
    "DEFAULT_THEME",
    "HostSettings",
    "NatsSettings",
    "NotifySettings",
    "Settings",
    "config_path",
    "load_settings",
    "save_theme",
]
