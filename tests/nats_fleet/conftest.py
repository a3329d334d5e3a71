"""Teams published through a real NATS server: Debian's `nats-server` on 127.0.0.1, on a free port,
with a config and a JetStream store of the test's own. A publishing host is a real
`teamtui stream --publish` process over a second HOME holding a native team (and, for some tests,
a Claude Code team); the room's side is a NatsSource (session/nats_source.py) in the test's loop.

`secured` runs the README's own server config (its `nats-server.conf` block), with an nkey per
user: two hosts that may publish only their own subjects, a person who may act, one who may only
watch."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from teamtui.protocol.settings import NatsSettings
from teamtui.session.nats_source import NatsSource
from tests.conftest import BatchFeed, apoll, copy_fixture as copy_tree, free_port, running

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "tests" / "fixtures" / "examples"
NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"
NATIVE_TEAM = "refactor-auth"
CLAUDE_TEAM = "session-421dba11"


@dataclass
class Server:
    """One nats-server: its config (JetStream in a folder of the test's), started and stopped at will."""

    folder: Path
    port: int
    config: str  # the config's text, without listen and the store (added here)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def start(self) -> None:
        conf = self.folder / "server.conf"
        conf.write_text(
            f"listen: 127.0.0.1:{self.port}\nmax_payload: 1048576\n"
            f'jetstream {{ store_dir: "{self.folder / "store"}" }}\n{self.config}\n'
        )
        with self.log.open("ab") as log:  # the server has its own copy of the file
            self.proc = subprocess.Popen([NATS_SERVER, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"nats-server did not start: {self.log.read_text()[-2000:]}")
                time.sleep(0.02)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def start_server(folder: Path, config: str = "") -> Server:
    if not os.path.exists(NATS_SERVER):
        pytest.skip("nats-server is not installed: apt-get install nats-server")
    folder.mkdir(parents=True, exist_ok=True)
    server = Server(folder, free_port(), config)
    server.start()
    return server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """An open server (no users): what the tests of the stream itself use."""
    s = start_server(tmp_path / "nats")
    try:
        yield s
    finally:
        s.stop()


# ------------------------------------------------------------------ the README's config


def readme_config() -> str:
    """The README's nats-server.conf, as a reader copies it."""
    text = (REPO / "README.md").read_text()
    found = re.search(r"```\n(# nats-server\.conf.*?)```", text, re.S)
    assert found, "README.md has no nats-server.conf block"
    return found.group(1)


@dataclass
class Users:
    """One nkey seed file per user of the README's config."""

    folder: Path
    seeds: dict[str, Path] = field(default_factory=dict)

    def creds(self, who: str) -> str:
        return str(self.seeds[who])


def make_users(folder: Path, config: str) -> tuple[str, Users]:
    """The config with a real nkey in place of each placeholder (UBOX1..., UANN...), and their seeds."""
    import nkeys

    users = Users(folder)
    for placeholder in sorted(set(re.findall(r"\bU[A-Z0-9_]+_NKEY\b", config))):
        seed = nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER)
        public = nkeys.from_seed(bytearray(seed)).public_key.decode()
        config = config.replace(placeholder, public)
        who = placeholder[1:-5].lower()  # UBOX1_NKEY -> box1
        path = folder / f"{who}.nk"
        path.write_bytes(seed + b"\n")
        path.chmod(0o600)
        users.seeds[who] = path
    return config, users


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[tuple[Server, Users]]:
    folder = tmp_path / "nats"
    folder.mkdir()
    body = readme_config()
    body = "\n".join(ln for ln in body.splitlines() if not ln.startswith(("listen", "jetstream")))
    config, users = make_users(folder, body)
    s = start_server(folder, config)
    try:
        yield s, users
    finally:
        s.stop()


# ------------------------------------------------------------------ a publishing host


@dataclass
class Host:
    """A machine's HOME with its teams, and its `teamtui stream --publish` process."""

    name: str
    home: Path
    project: Path
    claude: Path
    proc: subprocess.Popen | None = None
    err: Path | None = None

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.home / ".state"),
            "PYTHONPATH": str(REPO),
        }

    def command(self, url: str, *extra: str, heartbeat: float = 1.0) -> list[str]:
        return [
            sys.executable,
            "-m",
            "teamtui",
            "stream",
            "--publish",
            url,
            "--name",
            self.name,
            "--heartbeat",
            f"{heartbeat:g}",
            *extra,
            "--",
            str(self.project),
        ]

    def publish(self, url: str, *extra: str, heartbeat: float = 1.0) -> subprocess.Popen:
        self.err = self.home / f"publish-{time.monotonic_ns()}.err"
        with self.err.open("wb") as err:  # the process has its own copy of the file
            self.proc = subprocess.Popen(
                self.command(url, *extra, heartbeat=heartbeat),
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        return self.proc

    def run(self, url: str, *extra: str, timeout: float = 30) -> subprocess.CompletedProcess:
        """The command to its end (one that fails at once)."""
        return subprocess.run(
            self.command(url, *extra), env=self.env(), capture_output=True, text=True, timeout=timeout
        )

    def said(self) -> str:
        return self.err.read_text() if self.err is not None and self.err.exists() else ""

    def stop(self, sig: int = signal.SIGTERM) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.proc = None

    def shell(self) -> str:
        return " ".join(shlex.quote(a) for a in self.command("URL"))


def make_host(tmp_path: Path, name: str, claude: bool = False) -> Host:
    home = tmp_path / f"home-{name}"
    project, claude_root = home / "proj", home / "claude"
    copy_tree(EXAMPLES / "native", project)
    claude_root.mkdir(parents=True)
    if claude:
        copy_tree(EXAMPLES / "claude-2.1.328" / "tmux-running", claude_root)
    return Host(name, home, project, claude_root)


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[Callable[..., Host]]:
    made: list[Host] = []

    def make(name: str = "box1", claude: bool = False) -> Host:
        host = make_host(tmp_path, name, claude)
        made.append(host)
        return host

    try:
        yield make
    finally:
        for host in made:
            host.stop(signal.SIGKILL)


# ------------------------------------------------------------------ the room's side


class Feed(BatchFeed):
    """A NatsSource followed by a task of its own; every batch kept."""

    def __init__(self, source: NatsSource):
        super().__init__()
        self.source = source
        self.error: BaseException | None = None

    async def until(self, cond: Callable[[], bool], what: str, limit: float = 20.0) -> None:
        await apoll(
            cond,
            limit,
            lambda: asyncio.sleep(0.02),
            lambda: AssertionError(
                f"never happened: {what} (problems {self.source.problems}, notices {self.notices[-5:]})"
            ),
            lambda: None if self.error is None else AssertionError(f"the source failed before {what}: {self.error}"),
        )


@asynccontextmanager
async def following(source: NatsSource) -> AsyncIterator[Feed]:
    feed = Feed(source)

    async def run(stop: asyncio.Event) -> None:
        try:
            async for batch in source.follow(stop):
                feed.batches.append(batch)
        except Exception as exc:  # noqa: BLE001 - kept for the test to say
            feed.error = exc

    async with running(run):
        yield feed


def key_of(host: Host, claude: bool = False) -> tuple[str, str, str]:
    """The room's key of `host`'s native team (or, `claude`, of its Claude Code team)."""
    if claude:
        return (f"nats:{host.name}", os.path.realpath(host.claude), CLAUDE_TEAM)
    return (f"nats:{host.name}", os.path.realpath(host.project), NATIVE_TEAM)


@asynccontextmanager
async def box_followed(server: Server, hosts, stall: float = 3.0) -> AsyncIterator[tuple[Host, NatsSource, Feed]]:
    """box1 publishing its native team to `server`, and a room following the server once the team is in it."""
    box = hosts("box1")
    box.publish(server.url)
    source = room(server.url, stall=stall)
    async with following(source) as feed:
        await feed.until(lambda: key_of(box) in source.sessions, "the published team")
        yield box, source, feed


def room(url: str, *, credentials: str = "", stall: float = 3.0, subjects: str = "teamtui.>") -> NatsSource:
    return NatsSource(NatsSettings(url, credentials=credentials, subjects=subjects), stall=stall)


async def stream_made(url: str, credentials: str = "", limit: float = 20.0) -> None:
    """Until a publishing host has made the stream (a room that may not make it waits for one)."""
    import nats

    from teamtui.protocol.nats_subjects import STREAM

    nc = await nats.connect(url, **({"nkeys_seed": credentials} if credentials else {}))
    try:
        end = asyncio.get_running_loop().time() + limit
        while True:
            try:
                await nc.jetstream().stream_info(STREAM)
                return
            except Exception:
                if asyncio.get_running_loop().time() > end:
                    raise
                await asyncio.sleep(0.1)
    finally:
        await nc.close()
