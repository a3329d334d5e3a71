"""The `teamtui` command line. Each command group lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from teamtui import __version__
from teamtui.cli.common import EXIT_ERROR, EXIT_USAGE, CliError, Context, add_global_options

TYPE_CHECKING = False  # not typing's: importing it costs every command ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import NoReturn

# The module that registers each command (its register(subparsers, parents, only)); a command
# imports only its own module, so `teamtui send` never loads the dashboard, tmux or the runtime,
# and builds only its own parser (`only`; a module of one command may ignore it).
COMMANDS: dict[str, str] = {
    **dict.fromkeys(("status", "tasks"), "teamtui.cli.status_cmds"),
    **dict.fromkeys(("team", "send", "broadcast", "inbox", "task", "log"), "teamtui.cli.protocol_cmds"),
    **dict.fromkeys(("idle", "shutdown", "shutdown-reply"), "teamtui.cli.teammate_cmds"),
    "watch": "teamtui.cli.app_cmds",
    **dict.fromkeys(("run", "demo"), "teamtui.cli.run_cmds"),
    **dict.fromkeys(("follow", "cleanup"), "teamtui.cli.tmux_cmds"),
    "history": "teamtui.cli.history_cmds",
    "search": "teamtui.cli.search_cmd",
    "init": "teamtui.cli.init_cmd",
    "serve": "teamtui.cli.serve_cmd",
    "stream": "teamtui.cli.stream_cmd",
    "doctor": "teamtui.cli.doctor_cmd",
    **dict.fromkeys(("hook", "hooks", "requests", "answer"), "teamtui.cli.hooks_cmds"),
    "changes": "teamtui.cli.changes_cmd",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with one line
        self.print_usage(sys.stderr)
        print(f"teamtui: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse builds one per add_argument; left to find the width itself, it imports shutil (~2 ms).
        # typeshed's formatter_class promises only `prog`; every HelpFormatter takes `width` too.
        make: Callable[..., argparse.HelpFormatter] = self.formatter_class
        return make(prog=self.prog, width=_terminal_columns() - 2)


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns, as argparse asks it, without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            stdout = sys.__stdout__  # None without a stdout at start-up
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the arguments, only the module of the command they name (all for help or a typo)."""
    import importlib

    parser = _Parser(
        prog="teamtui",
        description="A terminal control room for AI agent teams. With no command, opens the dashboard.",
        epilog="Environment: TEAMTUI_ROOT, TEAMTUI_TEAM and TEAMTUI_NAME give defaults for --root, --team and --as/--from.",
    )
    parser.add_argument("--version", action="version", version=f"teamtui {__version__}")
    add_global_options(parser, top=True)
    common = _Parser(add_help=False)
    add_global_options(common, top=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    named = _command_in(argv) if argv is not None else None
    modules = [COMMANDS[named]] if named else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        importlib.import_module(name).register(sub, [common], only=named)
    return parser


class _PreParser(_Parser):
    def error(self, message: str) -> NoReturn:  # quiet: the full parser reports it
        raise _NoCommand


class _NoCommand(Exception):
    pass


def _command_in(argv: Sequence[str]) -> str | None:
    """The command `argv` names, as the full parser reads it; None for top-level help, no command or an unknown one."""
    pre = _PreParser(add_help=False)
    add_global_options(pre, top=True)
    pre.add_argument("command", nargs="?")
    try:
        command = pre.parse_known_args(argv)[0].command
    except _NoCommand:
        return None
    if command not in COMMANDS:
        return None
    before = argv[: list(argv).index(command)]
    if any(_top_level_flag(arg) for arg in before):  # `teamtui -h send`: the top help lists every command
        return None
    return command


def _top_level_flag(arg: str) -> bool:
    # argparse takes any unambiguous prefix of a long option.
    return arg == "-h" or (
        arg.startswith("--") and len(arg) > 2 and ("--help".startswith(arg) or "--version".startswith(arg))
    )


def bare_roots(argv: Sequence[str]) -> list[str]:
    """`teamtui ROOT [ROOT ...]` (a folder, or ssh://host/ROOT) is `teamtui watch ROOT ...`: the
    control room over those roots too. A path that is no folder goes there as well, to be told so
    (`teamtui ~/src/typo`: "no such folder"), not taken for a mistyped command."""
    first = argv[0] if argv else ""
    if first and first not in COMMANDS and (first.startswith("ssh://") or _path_like(first)):
        return ["watch", *argv]
    return list(argv)


def _path_like(arg: str) -> bool:
    return not arg.startswith("-") and (arg.startswith(("~", ".")) or "/" in arg or os.path.isdir(arg))


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if list(argv) == ["hook"]:
        # Claude Code runs this for every hooked event: no parser, one small module (protocol/hooks/hook.py).
        from teamtui.protocol.hooks.hook import main as hook

        return hook()
    argv = bare_roots(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    handler: Callable[[Context], int] | None = getattr(args, "handler", None)
    if handler is None:
        # No subcommand: the dashboard, when it exists.
        default = getattr(args, "default_handler", None) or _default_handler()
        if default is None:
            parser.print_help()
            return 0
        handler = default
    ctx = Context.from_args(args)
    try:
        return int(handler(ctx) or 0)
    except CliError as exc:
        print(f"teamtui: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed: not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        from teamtui.protocol.errors import ProtocolError

        if isinstance(exc, (ProtocolError, OSError)):
            print(f"teamtui: {exc}", file=sys.stderr)
            return EXIT_ERROR
        raise


def _default_handler() -> Callable[[Context], int] | None:
    try:
        from teamtui.cli.app_cmds import open_dashboard
    except ModuleNotFoundError:
        return None
    return open_dashboard


__all__ = ["main", "build_parser", "Path"]
