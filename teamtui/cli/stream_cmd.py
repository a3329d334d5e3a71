"""`teamtui stream`: this machine's teams as JSON lines on stdout, and requests read from stdin.

Another machine's control room runs it over its own ssh (`ssh box teamtui stream`,
session/remote.py): no daemon, no port, no server of teamtui's. The server is
session/stream_server.py's Streamer; this is its command line.
"""

from __future__ import annotations

from teamtui.cli.common import EXIT_USAGE, CliError, Context

DEFAULT_HEARTBEAT = 3.0  # as session/stream_server.py's: this module loads none of it for --help


def register(sub, parents, only: str | None = None) -> None:
    p = sub.add_parser(
        "stream",
        parents=parents,
        help="this machine's teams as JSON lines on stdout (for a control room over ssh)",
        description="Print every team of this machine (as `teamtui watch` finds them: Claude Code's folder, the "
        "current directory, each ROOT and config.toml's roots) as JSON lines, then their changes, with a heartbeat "
        "line every few seconds; read requests (send, broadcast, shutdown, diff) as JSON lines on stdin and answer "
        "each. "
        "Another machine's `teamtui watch` runs it over ssh ([[hosts]] in its config.toml, or ssh://host/ROOT). "
        "With --team or --layout, only the teams of that name or layout. Ends when stdin closes.",
    )
    p.add_argument("stream_roots", nargs="*", metavar="ROOT", help="a project root (or a Claude Code folder) to add")
    p.add_argument(
        "--heartbeat",
        type=float,
        default=DEFAULT_HEARTBEAT,
        metavar="S",
        help=f"seconds between heartbeat lines (default {DEFAULT_HEARTBEAT:g})",
    )
    p.set_defaults(handler=stream)


def stream(ctx: Context) -> int:
    beat = ctx.args.heartbeat
    if not 0 < beat <= 60:
        raise CliError("--heartbeat must be more than 0 and at most 60 seconds", EXIT_USAGE)
    import asyncio
    from pathlib import Path

    from teamtui.protocol.settings import load_settings
    from teamtui.session.local import LocalSource
    from teamtui.session.stream_server import Streamer

    roots = [*ctx.args.stream_roots, *([ctx.root] if ctx.root is not None else [])]
    settings = load_settings()
    fleet = LocalSource(
        settings,
        roots=[Path(r) for r in roots],
        log_limit=settings.log_lines,
        health_timeout=settings.health_timeout,
        only_team=ctx.team,
        only_layout=ctx.layout,
        hooks=_spool(),  # this machine's permission requests, for the room that follows the stream
    )
    try:
        asyncio.run(Streamer(fleet, heartbeat=beat).run())
    except (BrokenPipeError, ConnectionResetError):
        pass  # the other side went away: nothing left to tell
    return 0


def _spool():
    """The hooks' spool (made private); None, said on stderr, when it cannot be (another user's folder)."""
    import sys

    from teamtui.protocol.hooks.place import ensure_spool

    try:
        return ensure_spool()
    except OSError as exc:
        print(f"teamtui stream: permission requests cannot be answered from here: {exc}", file=sys.stderr)
        return None


__all__ = ["register", "stream"]
