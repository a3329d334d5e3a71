"""`teamtui serve`: the dashboard in a browser behind a token, run as a real server process.

The HTTP and websocket tests talk to it with aiohttp's client; the browser test drives a headless
Chromium over its DevTools protocol and reads what xterm.js drew.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import psutil
import pytest

from teamtui.cli import build_parser
from teamtui.cli.common import Context
from teamtui.cli.serve_cmd import dashboard_command
from teamtui.protocol.settings import load_settings
from tests.conftest import headless_chromium

TEAM = "refactor-auth"
URL = re.compile(r"http://\S+/\?token=(\S+)")
# Text the help screen (`?`) shows near its top, and no other screen.
HELP_TEXT = "Message the selected teammate"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A `teamtui serve` process, its printed URL and what it wrote."""

    def __init__(self, argv: list[str], tmp_path: Path):
        self.out_path = tmp_path / "serve.out"
        self.err_path = tmp_path / "serve.err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "teamtui", "serve", *argv], stdout=out, stderr=err, stdin=subprocess.DEVNULL
            )
        self.url = self._wait_for_url()
        self.base, self.token = self.url.split("/?token=")

    def _wait_for_url(self, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = URL.search(self.out_path.read_text())
            if found:
                return found.group(0)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"no URL from teamtui serve:\n{self.out_path.read_text()}\n{self.err_path.read_text()}")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()

    def stop(self) -> int:
        """Ctrl-C, as a user stops it; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def served(native_root: Path, tmp_path: Path) -> Iterator[Served]:
    server = Served(["--root", str(native_root), "--team", TEAM, "--port", str(_free_port())], tmp_path)
    try:
        yield server
    finally:
        server.stop()


def _client() -> aiohttp.ClientSession:
    # unsafe: aiohttp's cookie jar otherwise drops cookies from an IP address such as 127.0.0.1.
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


def _ws_url(server: Served) -> str:
    # What textual.js opens: the page's websocket URL plus the terminal's size.
    return server.base.replace("http://", "ws://") + "/ws?width=120&height=40"


async def _ws_status(session: aiohttp.ClientSession, url: str, **kw) -> int:
    try:
        ws = await session.ws_connect(url, **kw)
    except aiohttp.WSServerHandshakeError as exc:
        return exc.status
    await ws.close()
    return 101


async def _read_until(ws: aiohttp.ClientWebSocketResponse, text: bytes, server: Served, timeout: float = 60) -> bytes:
    """What the dashboard sent until `text` appeared in it."""
    got = b""
    try:
        async with asyncio.timeout(timeout):
            while text not in got:
                msg = await ws.receive()
                if msg.type == aiohttp.WSMsgType.BINARY:
                    got += msg.data
                elif msg.type != aiohttp.WSMsgType.TEXT:
                    raise AssertionError(f"the websocket ended ({msg.type.name})")
    except (AssertionError, TimeoutError) as exc:
        # The server writes a session's dashboard's stderr to its stdout, in full once it stops.
        server.stop()
        raise AssertionError(
            f"no {text!r} from the dashboard: {exc!r}; it sent {got[-500:]!r}\n"
            f"server stdout:\n{server.out_path.read_text()}\nserver stderr:\n{server.stderr}"
        ) from None
    return got


# ----------------------------------------------------------------------------- the token


async def test_without_the_token_the_page_static_files_and_websocket_are_refused(served: Served) -> None:
    async with _client() as session:
        for path in ("/", "/static/js/textual.js", "/static/css/xterm.css", "/ws", "/download/x"):
            async with session.get(served.base + path) as resp:
                assert resp.status == 403, path
        async with session.get(served.base + "/?token=" + "x" * len(served.token)) as resp:
            assert resp.status == 403, "a wrong token"
        assert await _ws_status(session, _ws_url(served)) == 403
        assert await _ws_status(session, _ws_url(served), origin=served.base) == 403
        assert not session.cookie_jar.filter_cookies(served.base), "a refused request set no cookie"


async def test_with_the_token_the_page_loads_and_its_websocket_runs_the_dashboard(served: Served) -> None:
    async with _client() as session:
        async with session.get(served.url) as resp:
            assert resp.status == 200
            page = await resp.text()
        # The page's links point back here, with no token in them: the cookie carries it.
        assert f'data-session-websocket-url="{served.base.replace("http://", "ws://")}/ws"' in page
        assert served.token not in page
        async with session.get(served.base + "/static/js/textual.js") as resp:
            assert resp.status == 200
        ws = await session.ws_connect(_ws_url(served), origin=served.base)
        try:
            await ws.send_str(json.dumps(["resize", {"width": 120, "height": 40}]))
            await _read_until(ws, TEAM.encode(), served)
        finally:
            await ws.close()


async def test_the_token_in_the_query_opens_the_websocket_too_but_another_sites_page_cannot(served: Served) -> None:
    async with _client() as session:  # no cookie: a client that is not a browser
        assert await _ws_status(session, _ws_url(served) + "&token=" + served.token) == 101
        async with session.get(served.url) as resp:
            assert resp.status == 200
        # The browser sends the cookie, but the page that opens the websocket is not ours.
        assert await _ws_status(session, _ws_url(served), origin="http://evil.example") == 403
        assert await _ws_status(session, _ws_url(served), origin=served.base) == 101


# ----------------------------------------------------------------------------- starting and stopping


async def _a_session(session: aiohttp.ClientSession, served: Served) -> tuple[aiohttp.ClientWebSocketResponse, list]:
    """A browser's session: the page loaded, its websocket open and the dashboard drawn; the
    websocket, and the server's processes (its dashboard) then."""
    async with session.get(served.url):
        pass
    ws = await session.ws_connect(_ws_url(served), origin=served.base)
    await _read_until(ws, TEAM.encode(), served)
    return ws, psutil.Process(served.proc.pid).children(recursive=True)


async def test_ctrl_c_stops_the_server_and_every_sessions_dashboard(served: Served) -> None:
    async with _client() as session:
        ws, dashboards = await _a_session(session, served)
        assert dashboards, "the session runs a dashboard process"
        started = time.monotonic()
        served.proc.send_signal(signal.SIGINT)
        # The browser's side: the websocket closes (a browser then shows "Session ended").
        async with asyncio.timeout(15):
            while not ws.closed:
                if (await ws.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    break
        code = await asyncio.to_thread(served.proc.wait, 15)
    assert code == 0, served.stderr
    assert time.monotonic() - started < 10
    _, alive = psutil.wait_procs(dashboards, timeout=5)
    assert alive == [], f"left running: {alive}"
    assert "Traceback" not in served.stderr


async def test_closing_the_browser_tab_ends_its_dashboard_and_the_server_serves_on(served: Served) -> None:
    async with _client() as session:
        ws, dashboards = await _a_session(session, served)
        await ws.close()
        _, alive = await asyncio.to_thread(psutil.wait_procs, dashboards, 15)
        assert alive == [], f"left running: {alive}"
        ws = await session.ws_connect(_ws_url(served), origin=served.base)
        await _read_until(ws, TEAM.encode(), served)
        await ws.close()
    assert served.proc.poll() is None


def test_a_port_in_use_is_one_clear_error(native_root: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "teamtui", "serve", "--root", str(native_root), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 1
    assert (
        proc.stderr == f"teamtui: port {port} on 127.0.0.1 is in use: stop what holds it, or pick another with --port\n"
    )
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--port", "70000"], "teamtui: --port must be 0 to 65535, got 70000\n"),
        (["--root", "/no/such/root"], "teamtui: no such folder: /no/such/root\n"),
        (["--host", "no-such-host.invalid"], "teamtui: cannot listen on 'no-such-host.invalid': "),
    ],
)
def test_bad_input_is_one_line_before_anything_listens(argv: list[str], error: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "teamtui", "serve", *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode in (1, 2)
    assert proc.stderr.startswith(error) and proc.stderr.count("\n") == 1, proc.stderr


def test_the_default_address_is_this_machine_only_and_says_nothing_of_the_network(
    native_root: Path, tmp_path: Path
) -> None:
    server = Served(["--root", str(native_root), "--port", "0"], tmp_path)
    try:
        assert server.url.startswith("http://127.0.0.1:")
        listening = [c.laddr for c in psutil.Process(server.proc.pid).net_connections() if c.status == "LISTEN"]
        assert [a.ip for a in listening] == ["127.0.0.1"]
    finally:
        assert server.stop() == 0
    assert "warning" not in server.stderr


def test_another_address_is_served_with_a_warning(native_root: Path, tmp_path: Path) -> None:
    server = Served(["--root", str(native_root), "--host", "0.0.0.0", "--port", "0"], tmp_path)
    assert server.stop() == 0
    assert (
        "teamtui: warning: 0.0.0.0 is reachable from other machines: anyone on that network with this URL "
        "can act on your teams"
    ) in server.stderr


# ----------------------------------------------------------------------------- the token in config.toml


def _write_config(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "teamtui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_token_fixed_in_the_config_file_is_the_one_required(native_root: Path, tmp_path: Path) -> None:
    fixed = "my-bookmarked-token_0123456789"
    _write_config(f'serve_token = "{fixed}"\n')
    server = Served(["--root", str(native_root), "--port", "0"], tmp_path)
    try:
        assert server.token == fixed

        async def check() -> None:
            async with _client() as session:
                async with session.get(server.url) as resp:
                    assert resp.status == 200
                async with session.get(server.base + "/?token=" + fixed[:-1]) as resp:
                    assert resp.status == 200, "the cookie from the first load"
            async with _client() as session:
                async with session.get(server.base + "/?token=" + fixed[:-1]) as resp:
                    assert resp.status == 403

        asyncio.run(check())
    finally:
        server.stop()


def test_a_random_token_is_new_each_start(native_root: Path, tmp_path: Path) -> None:
    tokens = []
    for i in range(2):
        (tmp_path / str(i)).mkdir()
        server = Served(["--root", str(native_root), "--port", "0"], tmp_path / str(i))
        server.stop()
        tokens.append(server.token)
    assert tokens[0] != tokens[1] and all(len(t) >= 32 for t in tokens)


def test_a_bad_token_in_the_config_file_is_said_and_a_random_one_used(native_root: Path, tmp_path: Path) -> None:
    path = _write_config('serve_token = "secret word"\n')
    server = Served(["--root", str(native_root), "--port", "0"], tmp_path)
    server.stop()
    assert server.token != "secret word" and len(server.token) >= 32
    assert f"teamtui: warning: {path}: serve_token must be at least 16 letters, digits, '-' or '_'" in server.stderr
    assert "secret word" not in server.stderr, "the secret is not echoed"


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ('"short"', "got only 5 characters"),
        ('"has spaces in it, sixteen+"', "got other characters too"),
        ("12345678901234567", "got a number"),
        ('""', "got only 0 characters"),
    ],
)
def test_settings_refuse_a_weak_or_malformed_serve_token(value: str, got: str, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"serve_token = {value}\n")
    s = load_settings(path)
    assert s.serve_token is None
    (problem,) = s.problems
    assert problem.startswith(f"{path}: serve_token must be at least 16 letters") and got in problem


def test_settings_keep_a_good_serve_token(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('serve_token = "Abc-def_0123456789"\n')
    s = load_settings(path)
    assert (s.serve_token, s.problems) == ("Abc-def_0123456789", [])
    assert load_settings(tmp_path / "none.toml").serve_token is None


# ----------------------------------------------------------------------------- the dashboard each session runs


def test_each_session_runs_the_dashboard_on_the_same_team_without_tmux_panes(tmp_path: Path) -> None:
    argv = ["--root", str(tmp_path), "serve", "--team", "t", "--layout", "native", "--log-lines", "50"]
    command = dashboard_command(Context.from_args(build_parser(argv).parse_args(argv)))
    assert command.split()[1:] == [
        "-m",
        "teamtui",
        "watch",
        "--teammate-mode",
        "in-process",
        "--root",
        str(tmp_path.resolve()),
        "--team",
        "t",
        "--layout",
        "native",
        "--log-lines",
        "50",
    ]
    assert command.split()[0] == sys.executable


def test_the_server_process_loads_no_dashboard() -> None:
    # Each session's dashboard is a process of its own: the server needs no Textual.
    code = (
        "import sys, teamtui.cli.serve_cmd, teamtui.serve.server\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('teamtui.tui', 'textual.')) or m == 'textual')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


# ----------------------------------------------------------------------------- a real browser

# Before textual.js runs: keep the xterm.js Terminal it creates (it assigns `this.terminal = new
# Terminal(...)`, which walks up to this setter), to read the text the terminal shows.
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && typeof value.write === "function" && value.buffer) window.__terminal = value;
  },
});
"""
# Every line of the terminal's screen, as text.
SCREEN_TEXT = """
(() => {
  const t = window.__terminal;
  if (!t) return "";
  const b = t.buffer.active, lines = [];
  for (let y = 0; y < t.rows; y++) { const l = b.getLine(b.viewportY + y); lines.push(l ? l.translateToString(true) : ""); }
  return lines.join("\\n");
})()
"""


class DevTools:
    """The least of the Chrome DevTools protocol: a command, its result."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.next_id = 0
        self.events: list[dict] = []  # the events that arrived meanwhile (a domain's, once enabled)

    async def send(self, method: str, **params) -> dict:
        self.next_id += 1
        await self.ws.send_json({"id": self.next_id, "method": method, "params": params})
        while True:  # events arrive in between: kept
            msg = await self.ws.receive_json()
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise AssertionError(f"{method}: {msg['error']}")
                return msg["result"]
            if "method" in msg:
                self.events.append(msg)

    async def evaluate(self, expression: str) -> object:
        return (await self.send("Runtime.evaluate", expression=expression, returnByValue=True))["result"]["value"]

    async def screen(self) -> str:
        return (await self.send("Runtime.evaluate", expression=SCREEN_TEXT, returnByValue=True))["result"]["value"]

    async def wait_for(self, text: str, timeout: float = 60) -> str:
        """The terminal's screen once it shows `text`."""
        shown = ""
        try:
            async with asyncio.timeout(timeout):
                while text not in (shown := await self.screen()):
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise AssertionError(f"the terminal never showed {text!r}; it shows:\n{shown}") from None
        if os.environ.get("SHOW_SCREENS"):
            print(f"---- the terminal, showing {text!r}:\n{shown}")
        return shown


@pytest.fixture
def outside() -> Iterator[int]:
    """The port of a proxy that takes every connection and never answers: a network that swallows
    what is sent to it (as a machine offline, or behind a firewall that drops). Every request the
    browser makes to another machine waits on it; one to this machine does not."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []

    def take() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    import threading

    threading.Thread(target=take, name="swallowing-proxy", daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for conn in held:
            conn.close()


@pytest.fixture
def chromium(tmp_path: Path, outside: int) -> Iterator[int]:
    """A headless Chromium; its DevTools port."""
    # Another machine never answers: a page that needs one waits (this machine is never proxied).
    proxy = f"--proxy-server=http://127.0.0.1:{outside}"
    with headless_chromium(tmp_path / "chromium-profile", proxy, "--window-size=1280,800") as port:
        yield port


@pytest.mark.browser
async def test_in_a_real_browser_the_dashboard_draws_and_answers_a_key(served: Served, chromium: int) -> None:
    http, target = await _page(chromium)
    async with http, http.ws_connect(target, max_msg_size=0) as ws:
        browser = DevTools(ws)
        await browser.send("Page.enable")
        await browser.send("Emulation.setFocusEmulationEnabled", enabled=True)  # headless: the page has focus
        await browser.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
        await browser.send("Page.navigate", url=served.url)
        drawn = await browser.wait_for(TEAM)
        assert HELP_TEXT not in drawn
        # Keys go to xterm.js's textarea, as when the user clicks the terminal.
        await browser.send("Runtime.evaluate", expression="window.__terminal.focus()")
        key = {"key": "?", "code": "Slash", "windowsVirtualKeyCode": 191, "modifiers": 8}  # shift+/
        await browser.send("Input.dispatchKeyEvent", type="keyDown", text="?", **key)
        await browser.send("Input.dispatchKeyEvent", type="keyUp", **key)
        await browser.wait_for(HELP_TEXT, timeout=20)


async def _page(chromium: int) -> tuple[aiohttp.ClientSession, str]:
    http = aiohttp.ClientSession()
    async with http.get(f"http://127.0.0.1:{chromium}/json/list") as resp:
        target = next(t for t in await resp.json() if t["type"] == "page")
    return http, target["webSocketDebuggerUrl"]


@pytest.mark.browser
async def test_in_a_real_browser_the_page_is_named_and_fetches_nothing_from_elsewhere(
    served: Served, chromium: int
) -> None:
    # It once fetched its font from Google's CDN: offline, the page waited on it before it drew
    # anything, and online it told a third party who looked at which teams.
    http, target = await _page(chromium)
    async with http, http.ws_connect(target, max_msg_size=0) as ws:
        browser = DevTools(ws)
        await browser.send("Network.enable")
        await browser.send("Page.enable")
        await browser.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
        await browser.send("Page.navigate", url=served.url)
        await browser.wait_for(TEAM)
        title = await browser.evaluate("document.title")
        font = await browser.evaluate(
            "document.fonts.check('16px \"Roboto Mono\"') && "
            "[...document.fonts].some(f => f.family.includes('Roboto Mono') && f.status === 'loaded')"
        )
    urls = [e["params"]["request"]["url"] for e in browser.events if e["method"] == "Network.requestWillBeSent"]
    assert urls and [u for u in urls if not u.startswith(served.base + "/")] == [], urls
    assert f"{served.base}/static/fonts/RobotoMono-VariableFont_wght.ttf" in urls
    assert font is True  # the terminal's font, from this server
    assert title == f"teamtui · 1 team ({TEAM})"


def test_the_page_title_names_teamtui_and_how_many_teams(native_root: Path, tmp_path: Path) -> None:
    from teamtui.cli.serve_cmd import page_title
    from teamtui.protocol.native import NativeTeam

    def title(*argv: str) -> str:
        args = build_parser(["serve", *argv]).parse_args(["serve", *argv])
        return page_title(Context.from_args(args))

    assert title("--root", str(native_root)) == "teamtui · 1 team"
    NativeTeam.create_team(native_root, "second")
    assert title("--root", str(native_root)) == "teamtui · 2 teams"
    assert title("--root", str(native_root), "--team", TEAM) == f"teamtui · 1 team ({TEAM})"


# What the page says while the dashboard starts (before its first byte), read at its first paint.
CARD_TEXT = "(() => { const c = document.querySelector('.intro-dialog .intro'); return c ? c.innerText : ''; })()"
# When the page was at each step, ms after it began to load (`-first-byte`: the dashboard drew).
STEPS = """
new Promise(done => {
  const at = {};
  const look = () => {
    const cls = document.body ? document.body.classList : {contains: () => false};
    if (!at.card && document.querySelector('.intro-dialog')) at.card = performance.now();
    if (!at.connected && cls.contains('-loaded')) at.connected = performance.now();
    if (cls.contains('-first-byte')) { at.drawn = performance.now(); done(at); } else setTimeout(look, 20);
  };
  look();
})
"""


@pytest.mark.browser
async def test_in_a_real_browser_the_card_says_what_is_starting_until_the_dashboard_draws(
    served: Served, chromium: int
) -> None:
    http, target = await _page(chromium)
    async with http, http.ws_connect(target, max_msg_size=0) as ws:
        browser = DevTools(ws)
        await browser.send("Page.enable")
        await browser.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
        await browser.send("Page.navigate", url=served.url)
        card = ""
        for _ in range(100):  # the card as the page first shows it (the dashboard is still starting)
            card = await browser.evaluate(CARD_TEXT) or ""
            if card:
                break
            await asyncio.sleep(0.01)
        steps = await browser.send("Runtime.evaluate", expression=STEPS, awaitPromise=True, returnByValue=True)
        await browser.wait_for(TEAM)
        hidden = await browser.evaluate("getComputedStyle(document.querySelector('.intro-dialog')).display")
        served.stop()  # the server gone: the page says so, and what to check
        closed = ""
        for _ in range(200):
            closed = await browser.evaluate(
                "document.body.classList.contains('-closed') ? document.querySelector('.closed-dialog').innerText : ''"
            )
            if closed:
                break
            await asyncio.sleep(0.05)
    at = steps["result"]["value"]
    # Measured, not asserted (a loaded machine is slower): -s shows it.
    print(f"\nserve page: connected at {at.get('connected', 0):.0f} ms, the dashboard drew at {at['drawn']:.0f} ms")
    assert f"teamtui · 1 team ({TEAM})" in card
    assert "Starting the control room" in card and "a few seconds" in card, card
    assert hidden == "none", "the card goes once the dashboard draws"
    assert "connection to teamtui serve was lost" in closed and "is still running" in closed, closed
