"""`teamtui serve`: the dashboard in a browser, one per browser session, behind a token."""

from __future__ import annotations

import sys
from pathlib import Path

from teamtui.cli.app_cmds import add_dashboard_options
from teamtui.cli.common import EXIT_USAGE, CliError, Context, inert

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def register(sub, parents, only: str | None = None) -> None:
    p = sub.add_parser(
        "serve",
        parents=parents,
        help="open the dashboard in a browser (textual-serve)",
        description="Serve the dashboard `teamtui` opens, with the same --root, --team and --layout, to a browser: "
        "each browser tab gets its own dashboard. Every request needs the token in the printed URL "
        "(a new random one each start, or serve_token in the config file); without it the answer is 403. "
        "Ctrl-C stops the server and the dashboards it runs.",
        epilog="Anyone who can reach the address and has the URL can message, and shut down, your teams: "
        "keep the default 127.0.0.1 unless every machine on that network is yours.",
    )
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}: this machine only; 0.0.0.0: every network)",
    )
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT}; 0: any free port)"
    )
    add_dashboard_options(p)
    p.set_defaults(handler=serve)


def serve(ctx: Context) -> int:
    args = ctx.args
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be 0 to 65535, got {args.port}", EXIT_USAGE)
    if args.health_timeout is not None and not args.health_timeout > 0:
        raise CliError("--health-timeout must be a positive number of seconds", EXIT_USAGE)
    if args.log_lines is not None and args.log_lines < 1:
        raise CliError("--log-lines must be at least 1", EXIT_USAGE)
    if ctx.root is not None:
        from teamtui.protocol.fsio import folder_problem

        if problem := folder_problem(ctx.root):
            raise CliError(inert(problem))
    from teamtui.cli.common import settings as load_settings  # what is wrong with the file, on stderr
    from teamtui.serve.address import ServeError, is_local, listen, page_url
    from teamtui.serve.guard import new_token
    from teamtui.serve.server import ControlRoomServer

    settings = load_settings()
    token = settings.serve_token or new_token()
    try:
        sock = listen(args.host, args.port)
    except ServeError as exc:
        raise CliError(str(exc)) from None
    server = ControlRoomServer(dashboard_command(ctx), sock, token, title=lambda: page_title(ctx))
    # Each browser session's room answers as a browser, from here (tui/controllers/answers.py): the
    # sessions inherit this environment (textual-serve copies it for each).
    import os

    os.environ["TEAMTUI_ANSWER_VIA"] = "browser"
    os.environ["TEAMTUI_ANSWER_WHERE"] = f"{args.host}:{server.port}"

    def ready() -> None:
        print(f"teamtui: the dashboard at {page_url(args.host, server.port, token)}", flush=True)
        if not is_local(args.host):
            print(
                f"teamtui: warning: {args.host} is reachable from other machines: anyone on that network "
                "with this URL can act on your teams (message them, shut them down)",
                file=sys.stderr,
                flush=True,
            )
        print("teamtui: Ctrl-C stops the server", flush=True)

    import asyncio

    with sock:
        asyncio.run(server.run(ready))
    return 0


def page_title(ctx: Context) -> str:
    """The browser tab's name: teamtui and how many teams the dashboard opens on (found as `teamtui
    watch` finds them: this machine's, and those under --root), or the one --team names."""
    if ctx.team is not None:
        return f"teamtui · 1 team ({ctx.team})"
    from teamtui.protocol.fleet.discover import discover_fleet
    from teamtui.protocol.settings import load_settings

    root = Path(ctx.root) if ctx.root is not None else None
    try:
        teams = discover_fleet([root] if root is not None else [], cwd=root, settings=load_settings()).teams
    except Exception:  # noqa: BLE001 - a name for a tab: never worth a failed page
        return "teamtui"
    if ctx.layout is not None:
        teams = [t for t in teams if t.layout == ctx.layout]
    return f"teamtui · {len(teams)} team{'' if len(teams) == 1 else 's'}"


def dashboard_command(ctx: Context) -> str:
    """The shell command each browser session runs: `teamtui watch` (the bare `teamtui`), on the same team."""
    import shlex

    argv = [sys.executable, "-m", "teamtui", "watch", "--teammate-mode", "in-process"]  # no tmux panes in a browser
    if ctx.root is not None:
        argv += ["--root", str(Path(ctx.root).resolve())]
    for option, value in (
        ("--team", ctx.team),
        ("--layout", ctx.layout),
        ("--health-timeout", ctx.args.health_timeout),
        ("--log-lines", ctx.args.log_lines),
    ):
        if value is not None:
            argv += [option, str(value)]
    return shlex.join(argv)


__all__ = ["register", "serve", "dashboard_command"]
