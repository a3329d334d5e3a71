"""What every command shares: the global options, their environment defaults, and finding the team."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# One inert for every layer; the commands import it from here.
from teamtui.protocol.text import inert

TYPE_CHECKING = False  # not typing's: importing it costs every command ~2 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from teamtui.protocol.layout import LayoutName
    from teamtui.protocol.settings import Settings
    from teamtui.protocol.store import TeamStore

    Handler = Callable[["Context"], int]

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NONE_READY = 3


class CliError(Exception):
    """One line for stderr, and the exit code."""

    def __init__(self, message: str, code: int = EXIT_ERROR):
        super().__init__(message)
        self.code = code


def add_global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # SUPPRESS in subparsers so an option given before the subcommand is not reset after it.
    default = None if top else argparse.SUPPRESS
    g = parser.add_argument_group("team selection") if top else parser
    g.add_argument(
        "--root",
        type=Path,
        default=default,
        help="project root holding .teams/ (or a Claude Code folder); default $TEAMTUI_ROOT or .",
    )
    g.add_argument(
        "--team", default=default, help="team name; optional when the root holds one team; default $TEAMTUI_TEAM"
    )
    g.add_argument(
        "--layout", choices=("native", "claude"), default=default, help="force a layout instead of detecting it"
    )
    if top:  # the bare `teamtui` opens the dashboard; subcommands that do add it themselves
        from teamtui.tmux.mode import add_teammate_mode_option

        add_teammate_mode_option(parser, top=True)


class Context:
    """What a command runs with: its parsed arguments and the team they select."""

    __slots__ = ("args", "root", "team", "layout")

    def __init__(self, args: argparse.Namespace, root: Path | None, team: str | None, layout: LayoutName | None):
        self.args = args
        self.root = root
        self.team = team
        self.layout = layout

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Context:
        root = getattr(args, "root", None) or os.environ.get("TEAMTUI_ROOT") or None
        team = getattr(args, "team", None)
        if team is None:  # an explicit --team "" is checked (and refused), not replaced by a default
            team = os.environ.get("TEAMTUI_TEAM") or None
        return cls(args, Path(root) if root else None, team, getattr(args, "layout", None))

    @property
    def root_or_cwd(self) -> Path:
        return self.root if self.root is not None else Path.cwd()

    @property
    def me(self) -> str | None:
        """This process's own name, for teammates: $TEAMTUI_NAME."""
        return os.environ.get("TEAMTUI_NAME") or None

    def store(self) -> TeamStore:
        # Here, not at the top: `teamtui --help` and the dashboard's start need no layout.
        from teamtui.protocol.errors import NotFoundError, ProtocolError
        from teamtui.protocol.layout import find_team

        try:
            return find_team(self.root_or_cwd, self.team, self.layout)
        except NotFoundError as exc:
            if self.root is None:  # nothing here: Claude Code's folder, as the dashboard looks
                from teamtui.protocol.claude import default_claude_root

                try:
                    return find_team(default_claude_root(), self.team, self.layout)
                except ProtocolError:
                    pass
            raise CliError(str(exc)) from None
        except ProtocolError as exc:
            raise CliError(str(exc)) from None


def out(line: str = "") -> None:
    sys.stdout.write(line + "\n")


def warn(text: str) -> None:
    sys.stderr.write(f"teamtui: warning: {one_line(text)}\n")


def settings() -> Settings:
    """config.toml's settings for a command that reads them; what is wrong with the file on stderr."""
    from teamtui.protocol.settings import load_settings

    loaded = load_settings()
    for problem in loaded.problems:
        warn(problem)
    return loaded


def own_sender() -> str:
    """The name teamtui's own messages carry (config.toml's `sender`): read alone, without the
    settings' model (a hot command's start-up stays small); a bad one said on stderr."""
    from teamtui.protocol.config_file import configured_sender

    sender, problem = configured_sender()
    if problem:
        warn(problem)
    return sender


def one_line(text: object) -> str:
    """`text` inert on one line: its lines joined by spaces (an error message for stderr)."""
    return inert(" ".join(str(text).splitlines()))


def guarded(handler: Handler) -> Handler:
    """The protocol commands' handler wrapper: the protocol's errors (and an OSError or ValueError)
    become one terminal-safe stderr line and exit 1; a CliError keeps its code, made one line too."""

    def run(ctx: Context) -> int:
        from teamtui.protocol.errors import ProtocolError  # UnsupportedError among them

        try:
            return handler(ctx)
        except CliError as exc:
            raise CliError(one_line(exc), exc.code) from None
        except (ProtocolError, OSError, ValueError) as exc:
            raise CliError(one_line(exc)) from None

    return run
