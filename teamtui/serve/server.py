"""textual-serve's Server, made a control room's: the token guard, links to the address the browser
used, and a stop that ends every session's dashboard."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

from aiohttp import web
from textual_serve.server import Server

from teamtui.serve.guard import cookie_name, token_guard

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable

# How long the sessions' dashboards get to quit when the server stops.
STOP_TIMEOUT = 5.0
# Ctrl-C, kill, and the terminal closing: each stops the server the same clean way.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# The page: textual-serve's, with a <title>, its fonts from this server (nothing from a CDN), and a
# card saying the tab's dashboard is starting (and what to check when it does not, or ends).
TEMPLATES = Path(__file__).resolve().parent / "templates"


class ControlRoomServer(Server):
    """Runs `command` (a dashboard) once per browser session, for requests that carry `token`.
    `title()` names the page at each load (run in a thread: it may read the teams' folders)."""

    def __init__(self, command: str, sock: socket.socket, token: str, title: Callable[[], str] = lambda: "teamtui"):
        host, port = sock.getsockname()[:2]
        super().__init__(command, host=host, port=port, title="teamtui", templates_path=TEMPLATES)
        self.sock = sock
        self.token = token
        self.page_title = title
        self._sessions: set[asyncio.Task] = set()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(token_guard(self.token, cookie_name(self.port)))
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        title = await asyncio.to_thread(self.page_title)
        # The page's static and websocket links go to the address the browser used: the listening
        # address may be 0.0.0.0, and a cookie is sent only to the host that set it. (The page is
        # rendered before the handler next awaits, so no other request sees these values.)
        self.public_url = f"{request.scheme}://{request.host}"
        self.title = title
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        session = asyncio.current_task()
        assert session is not None
        self._sessions.add(session)
        try:
            return await super().handle_websocket(request)
        finally:
            self._sessions.discard(session)

    async def on_startup(self, app: web.Application) -> None:
        pass  # the CLI prints the URL: textual-serve's banner would print one without the token

    async def on_shutdown(self, app: web.Application) -> None:
        # A cancelled session quits its dashboard and waits for it (textual-serve's own handling).
        sessions = list(self._sessions)
        for session in sessions:
            session.cancel()
        if sessions:
            await asyncio.wait(sessions, timeout=STOP_TIMEOUT)
        await _dashboards_ended()

    async def run(self, ready: Callable[[], None]) -> None:
        """Serve until a stop signal, calling `ready` once requests are answered."""
        runner = web.AppRunner(
            await self._make_app(), handle_signals=False, access_log=None, shutdown_timeout=STOP_TIMEOUT
        )
        await runner.setup()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        try:
            await web.SockSite(runner, self.sock).start()
            for sig in STOP_SIGNALS:
                loop.add_signal_handler(sig, stop.set)
            ready()
            await stop.wait()
        finally:
            for sig in STOP_SIGNALS:
                loop.remove_signal_handler(sig)
            await runner.cleanup()


async def _dashboards_ended() -> None:
    """Wait until every session's dashboard process has ended and been reaped, killing any that outstays
    STOP_TIMEOUT. textual-serve waits only for a dashboard's output to end, not for its process: one
    still running when the event loop closes is killed from a closed loop (a traceback on Python 3.13)."""
    import psutil  # only when stopping

    loop = asyncio.get_running_loop()
    me = psutil.Process()
    killed = False
    deadline = loop.time() + STOP_TIMEOUT
    while me.children():  # the loop's child watcher reaps each one that exits
        if loop.time() > deadline:
            if killed:
                return
            for process in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    process.kill()
            killed, deadline = True, loop.time() + STOP_TIMEOUT
        await asyncio.sleep(0.05)


__all__ = ["ControlRoomServer", "STOP_TIMEOUT"]
