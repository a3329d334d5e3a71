"""`teamtui watch` and the bare `teamtui`: open the dashboard."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from teamtui.cli.common import EXIT_USAGE, CliError, Context
from teamtui.cli.mode import teammate_mode
from teamtui.cli.terminal import detach_terminal
from teamtui.tmux.mode import add_teammate_mode_option


def register(sub, parents, only: str | None = None) -> None:
    p = sub.add_parser(
        "watch",
        parents=parents,
        help="open the dashboard on a team",
        description="Open the live dashboard on the team under ROOT (default: the current directory, then ~/.claude).",
    )
    p.add_argument("watch_root", nargs="?", type=Path, metavar="ROOT", help="project root or Claude Code folder")
    add_dashboard_options(p)
    add_teammate_mode_option(p, top=False)
    p.add_argument("--max-panes", type=int, default=None, metavar="N",
                   help="in tmux, at most N `teamtui follow` panes at once; the other teammates get theirs "
                   "when selected with enter (default 8, or max_panes from the config file)")
    p.set_defaults(handler=watch)


def add_dashboard_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--health-timeout", type=float, default=None, metavar="S",
                   help="seconds without activity before a teammate holding a task is flagged disappeared (default 60)")
    p.add_argument("--log-lines", type=int, default=None, metavar="N", help="lines kept per teammate log (default 1000)")


def watch(ctx: Context) -> int:
    root = getattr(ctx.args, "watch_root", None)
    if root is not None:
        ctx.root = root
    return open_dashboard(ctx)


def open_dashboard(ctx: Context) -> int:
    """Run the dashboard until the user quits; the exit code for the CLI."""
    health = getattr(ctx.args, "health_timeout", None)
    lines = getattr(ctx.args, "log_lines", None)
    if health is not None and not health > 0:
        raise CliError("--health-timeout must be a positive number of seconds", EXIT_USAGE)
    if lines is not None and lines < 1:
        raise CliError("--log-lines must be at least 1", EXIT_USAGE)
    max_panes = getattr(ctx.args, "max_panes", None)
    if max_panes is not None and max_panes < 1:
        raise CliError("--max-panes must be at least 1", EXIT_USAGE)
    if ctx.root is not None and not Path(ctx.root).is_dir():
        raise CliError(f"{ctx.root} is not a directory")
    from teamtui.protocol.settings import load_settings
    from teamtui.tmux.mode import make_panes

    settings = load_settings()
    mode = teammate_mode(ctx, settings)  # refuse `--teammate-mode tmux` outside tmux before the dashboard loads
    from teamtui.tui.app import TeamTUI

    # Panes beside the dashboard in tmux mode, else none; and a notice for the UI to toast.
    panes, notice = make_panes(mode, ctx.team or "", max_panes=max_panes or settings.max_panes)
    app = TeamTUI(ctx.root, ctx.team, ctx.layout, panes=panes, health_timeout=health, log_limit=lines, notice=notice)
    # SIGTERM and SIGHUP (terminal closed) end the app like `q`, so its panes close too.
    def on_signal(signum: int, frame: object) -> None:
        if signum == signal.SIGHUP:
            detach_terminal()  # the terminal is gone: the app's last writes must not fail
        app.exit()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        app.run()
    finally:
        app.close_panes()  # whatever ended the app, the panes it opened go with it
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return int(app.return_code or 0)


__all__ = ["register", "open_dashboard"]
