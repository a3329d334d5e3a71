"""`teamtui stream`: this machine's teams as JSON lines on stdout, and requests read from stdin.

Another machine's control room runs it over its own ssh (`ssh box teamtui stream`,
session/remote.py): no daemon, no port, no server of teamtui's. With `--publish nats://…` the same
lines go to a NATS JetStream server instead, for any number of rooms (session/nats_publish.py),
and requests come from there. The server is session/stream_server.py's Streamer; this is its
command line.
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
        "With --team or --layout, only the teams of that name or layout. Ends when stdin closes: at once when it is "
        "/dev/null or none, after its requests when it is a file (under nohup, cron or a service: --publish). "
        "With --publish nats://HOST:PORT, the same lines go to that NATS server (JetStream) as this host's, for every "
        "control room with [[nats]] in its config.toml, and requests come from there: it runs until stopped, "
        "reconnecting when the server is away (README: NATS).",
    )
    p.add_argument("stream_roots", nargs="*", metavar="ROOT", help="a project root (or a Claude Code folder) to add")
    p.add_argument(
        "--heartbeat",
        type=float,
        default=DEFAULT_HEARTBEAT,
        metavar="S",
        help=f"seconds between heartbeat lines (default {DEFAULT_HEARTBEAT:g})",
    )
    p.add_argument(
        "--publish",
        metavar="URL",
        help="publish to this NATS server (nats://HOST:PORT or tls://HOST:PORT) instead of stdout",
    )
    p.add_argument("--creds", metavar="FILE", help="with --publish: a token, an nkey seed or a .creds file")
    p.add_argument("--tls-ca", metavar="FILE", help="with --publish: the CA that signed the server's certificate")
    p.add_argument(
        "--name",
        metavar="HOST",
        help="with --publish: the name this host publishes as (letters, digits, '-', '_'; default: the machine's "
        "name); the server's permissions let it publish only as its own",
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

    args = ctx.args
    if not args.publish and (args.creds or args.tls_ca or args.name):
        raise CliError("--creds, --tls-ca and --name go with --publish nats://HOST:PORT", EXIT_USAGE)
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
    if args.publish:
        return _publish(fleet, beat, args)
    try:
        asyncio.run(Streamer(fleet, heartbeat=beat).run())
    except (BrokenPipeError, ConnectionResetError):
        pass  # the other side went away: nothing left to tell
    return 0


def _publish(fleet, beat: float, args) -> int:
    """The stream into NATS until stopped (SIGTERM, SIGINT); a server that says no ends it, in words."""
    import asyncio
    import signal
    import socket

    from teamtui.protocol.nats_subjects import HOST_TOKEN, host_token
    from teamtui.session.nats_link import NatsLink, NatsUnavailable
    from teamtui.session.nats_publish import NatsSink
    from teamtui.session.stream_server import Streamer

    url = args.publish
    if url.split("://")[0] not in ("nats", "tls") or "://" not in url:
        raise CliError(f"--publish takes nats://HOST:PORT or tls://HOST:PORT, got {url!r}", EXIT_USAGE)
    name = args.name if args.name is not None else host_token(socket.gethostname())
    if not HOST_TOKEN.fullmatch(name):
        raise CliError(f"--name {name!r}: letters, digits, '-' and '_' only (at most 64)", EXIT_USAGE)
    link = NatsLink(url, args.creds or "", args.tls_ca or "", f"teamtui stream {name}")
    sink = NatsSink(link, name)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        main = asyncio.ensure_future(Streamer(fleet, heartbeat=beat, host=name, sink=sink).run())
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, main.cancel)
        try:
            await main
        except asyncio.CancelledError:
            pass

    try:
        asyncio.run(run())
    except NatsUnavailable as exc:
        raise CliError(str(exc)) from None
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
