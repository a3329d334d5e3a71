"""`teamtui watch` and the bare `teamtui`: open the dashboard."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from teamtui.cli.common import EXIT_USAGE, CliError, Context, inert
from teamtui.cli.mode import teammate_mode
from teamtui.cli.terminal import detach_terminal, need_terminal
from teamtui.tmux.mode import add_teammate_mode_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.settings import HostSettings, Settings
    from teamtui.session.fleet import Fleet


def register(sub, parents, only: str | None = None) -> None:
    p = sub.add_parser(
        "watch",
        parents=parents,
        help="open the control room: every team, or the dashboard of the only one",
        description="Open the control room on every team of this machine: Claude Code's (~/.claude, or "
        "$CLAUDE_CONFIG_DIR), the native teams under the current directory, under each ROOT and under config.toml's "
        "roots, and those a `teamtui run` leads. With one team, its dashboard; with --team, that team's. "
        "`teamtui ROOT [ROOT ...]` is the same as `teamtui watch ROOT [ROOT ...]`. A ROOT ssh://[user@]host[:port]/PATH "
        "adds that machine's teams over ssh (teamtui must be installed there), as [[hosts]] in config.toml does.",
    )
    # str, not Path: Path would fold ssh://host/x into ssh:/host/x.
    p.add_argument(
        "watch_roots",
        nargs="*",
        metavar="ROOT",
        help="a project root (or a Claude Code folder) to add, or ssh://[user@]host[:port]/PATH on another machine",
    )
    add_dashboard_options(p)
    add_teammate_mode_option(p, top=False)
    p.add_argument(
        "--max-panes",
        type=int,
        default=None,
        metavar="N",
        help="in tmux, at most N `teamtui follow` panes at once; the other teammates get theirs "
        "when selected with enter (default 8, or max_panes from the config file)",
    )
    p.set_defaults(handler=watch)


def add_dashboard_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--health-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds without activity before a teammate holding a task is flagged disappeared (default 60)",
    )
    p.add_argument(
        "--log-lines", type=int, default=None, metavar="N", help="lines kept per teammate log (default 1000)"
    )


def watch(ctx: Context) -> int:
    return open_dashboard(ctx)


def _ssh_urls(ctx: Context) -> list[str]:
    return [str(r) for r in getattr(ctx.args, "watch_roots", None) or [] if str(r).startswith("ssh://")]


def _local_roots(ctx: Context) -> list[Path]:
    return [Path(r) for r in getattr(ctx.args, "watch_roots", None) or [] if not str(r).startswith("ssh://")]


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
    from teamtui.protocol.fsio import folder_problem

    roots = _local_roots(ctx)
    for root in [*roots, *([Path(ctx.root)] if ctx.root is not None else [])]:
        if problem := folder_problem(root):
            raise CliError(inert(problem))
    from teamtui.protocol.settings import load_settings
    from teamtui.tmux.mode import make_panes

    settings = load_settings()
    mode = teammate_mode(ctx, settings)  # refuse `--teammate-mode tmux` outside tmux before the dashboard loads
    hosts = _hosts(ctx, settings)  # a bad ssh:// ROOT is a usage error, whatever the terminal
    need_terminal("`teamtui status --all` prints the teams as text")
    from teamtui.tui.app import TeamTUI

    # Panes beside the dashboard in tmux mode, else none; and a notice for the UI to toast.
    panes, notice = make_panes(mode, ctx.team or "", max_panes=max_panes or settings.max_panes)
    fleet = _fleet(ctx, settings, roots, hosts, health, lines)
    app = TeamTUI(fleet, focus=ctx.team, panes=panes, log_limit=lines, notice=notice)

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


def _fleet(
    ctx: Context,
    settings: Settings,
    roots: list[Path],
    hosts: list[HostSettings],
    health: float | None,
    lines: int | None,
) -> Fleet:
    """Every team this control room shows: this machine's (those under the ROOTs and --root too;
    with --team or --layout only those), each [[hosts]] machine's or ssh:// ROOT's over ssh, and
    the hosts publishing to each [[nats]] server."""
    from teamtui.session.fleet import open_fleet

    chosen = ctx.team is not None or ctx.layout is not None
    return open_fleet(
        settings,
        roots=[*roots, *([Path(ctx.root)] if ctx.root is not None else [])],
        cwd=Path(ctx.root) if ctx.root is not None else None,  # --root stands for the current directory
        team=ctx.team,
        layout=ctx.layout,
        only_root=Path(ctx.root) if ctx.root is not None and chosen else None,
        hosts=hosts,
        nats=settings.nats,
        log_limit=lines,
        health_timeout=health,
        hooks=_spool(),
    )


def _spool() -> Path | None:
    """This machine's hooks' spool, followed by the room for the permission requests it answers;
    None when it cannot be made private (another user's folder: the room says nothing is answered)."""
    from teamtui.protocol.hooks.place import ensure_spool

    try:
        return ensure_spool()
    except OSError as exc:
        print(f"teamtui: permission requests cannot be answered from this room: {inert(exc)}", file=sys.stderr)
        return None


def _hosts(ctx: Context, settings: Settings) -> list[HostSettings]:
    urls = _ssh_urls(ctx)
    if not urls and not settings.hosts:
        return []
    from teamtui.session.remote import hosts_for

    try:
        return hosts_for(settings.hosts, urls)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


__all__ = ["register", "open_dashboard"]
