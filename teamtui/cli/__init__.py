"""The `teamtui` command line. Each command group lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from teamtui import __version__
from teamtui.cli.common import EXIT_ERROR, EXIT_USAGE, CliError, Context, add_global_options

# Modules that add subcommands: each defines register(subparsers, parents).
_COMMAND_MODULES = (
    "teamtui.cli.protocol_cmds",
    "teamtui.cli.teammate_cmds",
    "teamtui.cli.app_cmds",
    "teamtui.cli.run_cmds",
    "teamtui.cli.tmux_cmds",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors exit 2 with one line
        self.print_usage(sys.stderr)
        print(f"teamtui: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = _Parser(
        prog="teamtui",
        description="A terminal control room for AI agent teams. With no command, opens the dashboard.",
        epilog="Environment: TEAMTUI_ROOT, TEAMTUI_TEAM and TEAMTUI_NAME give defaults for --root, --team and --as/--from.",
    )
    parser.add_argument("--version", action="version", version=f"teamtui {__version__}")
    add_global_options(parser, top=True)
    common = argparse.ArgumentParser(add_help=False)
    add_global_options(common, top=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # a command group not built yet
            raise
        module.register(sub, [common])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
