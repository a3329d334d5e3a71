"""What `teamtui run` checks before it starts a team: that each teammate's program can be found,
and that the team does not share its root's task board with another team.

A teammate's command is a shell line (`sh -c`): its program is the first word after variable
assignments and wrappers (`exec`, `env`, `nohup`, `command`), looked up on the PATH the teammate
will get, or, when it names a path, from the teammate's folder. What only the shell can tell
(`$VAR`, a builtin, `cd dir && ...`) is left to the shell.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.layout import team_names
from teamtui.runtime.supervisor import search_path
from teamtui.runtime.teamfile import TeamFile

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = {"exec", "command", "nohup", "env", "time"}
# Found by the shell itself, never on PATH: keywords, and builtins that have no program of their name.
_SHELL_WORDS = {
    *("if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "function"),
    *("!", "{", "}", "(", ")", "[[", ".", ":", "source", "cd", "eval", "export", "set", "unset", "trap", "exit"),
    *("return", "shift", "read", "wait", "ulimit", "umask", "alias", "type", "readonly", "local", "break"),
    *("continue", "getopts", "hash", "jobs", "fg", "bg"),
}
# In a program's word these mean the shell expands it first: what it becomes is the shell's to say.
_EXPANDS = re.compile(r"[$`*?\[]")


def program_of(command: str) -> str | None:
    """The program `command` starts, as written (None: the shell decides, or the line does not parse)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None  # an unclosed quote: the shell says so in the teammate's log
    wrapped = False
    for word in words:
        if _ASSIGNMENT.match(word) or (wrapped and word.startswith("-")):
            continue  # `FOO=1 prog`, `env -i prog`
        if word in _WRAPPERS:
            wrapped = word == "env"
            continue
        if word in _SHELL_WORDS or _EXPANDS.search(word) or not word.strip():
            return None
        return word
    return None


@dataclass(frozen=True, slots=True)
class MissingProgram:
    program: str
    teammates: tuple[str, ...]
    why: str  # "is not on PATH", "does not exist in DIR", "is not executable"

    def __str__(self) -> str:
        who = ", ".join(self.teammates)
        return f"{self.program} ({'teammates' if len(self.teammates) > 1 else 'teammate'} {who}) {self.why}"


def _problem(program: str, cwd: Path, path: str | None) -> str:
    """Why `program` cannot be started from `cwd` with PATH `path` ('' when it can)."""
    if "/" not in program:
        if program in _SHELL_WORDS or shutil.which(program, path=path if path is not None else os.defpath):
            return ""
        return "is not on PATH"
    where = Path(os.path.expanduser(program))
    full = where if where.is_absolute() else cwd / where
    if not full.is_file():
        return "does not exist" if where.is_absolute() else f"does not exist in {cwd}"
    return "" if os.access(full, os.X_OK) else "is not executable"


def missing_programs(team: TeamFile) -> list[MissingProgram]:
    """Each teammate program that cannot be found, once per program (with every teammate that runs it)."""
    found: dict[tuple[str, str], list[str]] = {}
    for spec in team.teammates:
        program = program_of(spec.command)
        if program is None:
            continue
        why = _problem(program, team.teammate_cwd(spec), search_path({**os.environ, **spec.env}))
        if why:
            found.setdefault((program, why), []).append(spec.name)
    return [MissingProgram(program, tuple(names), why) for (program, why), names in found.items()]


def board_sharers(root: Path, team: str) -> list[str]:
    """The other teams under `root`: in the native layout every team of a root shares one task
    board (`.tasks/`), so a new team there would see and work their tasks."""
    return [name for name in team_names(root, "native") if name != team]


__all__ = ["MissingProgram", "board_sharers", "missing_programs", "program_of"]
