"""Another machine, for real: an OpenSSH server on 127.0.0.1 (its own sshd_config, throwaway host
and user keys) serving a second HOME on this machine that holds a native team and a Claude Code
team. The remote "user" is this one; the remote environment is set by the [[hosts]] `teamtui`
command (`env HOME=... python -m teamtui`), so `teamtui stream` there reads the second HOME.
The client side is ssh with `-F /dev/null` and its own known_hosts: nothing of the user's."""

from __future__ import annotations

import asyncio
import getpass
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from teamtui.protocol.settings import HostSettings
from teamtui.session.local import LocalSource
from teamtui.session.remote import RemoteHost, host_key
from tests.conftest import BatchFeed, apoll, copy_fixture as copy_tree, free_port, local_source, running, set_lead

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
CLAUDE_TEAM = "session-421dba11"
NATIVE_TEAM = "refactor-auth"
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


@dataclass
class Sshd:
    port: int
    key: Path  # the user's private key (its public half is the only authorized key)
    known_hosts: Path
    proc: subprocess.Popen
    log: Path

    def options(self, key: Path | None = None) -> list[str]:
        return [
            "-F",
            "/dev/null",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            f"UserKnownHostsFile={self.known_hosts}",
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "LogLevel=ERROR",
            "-i",
            str(key or self.key),
            "-p",
            str(self.port),
        ]

    def children(self) -> list[int]:
        """The per-connection sshd processes (the ones serving a session), newest last."""
        import psutil

        try:
            return [c.pid for c in sorted(psutil.Process(self.proc.pid).children(), key=lambda c: c.create_time())]
        except psutil.Error:
            return []


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    if not os.path.exists(SSHD) or shutil.which("ssh") is None:
        pytest.skip("OpenSSH (sshd and ssh) is not installed: apt-get install openssh-server")
    d = tmp_path_factory.mktemp("sshd")
    _keygen(d / "host_key")
    _keygen(d / "user_key")
    shutil.copy(d / "user_key.pub", d / "authorized_keys")
    port = free_port()
    config = d / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\nPidFile {d / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        f"KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
        f"AllowUsers {getpass.getuser()}\nPrintMotd no\nLogLevel ERROR\nAcceptEnv none\n"
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation folder
    log = d / "sshd.log"
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"sshd did not start: {log.read_text()[-2000:]}")
            time.sleep(0.05)
    try:
        yield Sshd(port, d / "user_key", d / "known_hosts", proc, log)
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Remote:
    """The second HOME: the "remote" machine's files."""

    home: Path
    claude: Path
    project: Path  # a native root, given as the host's `roots`
    lead: subprocess.Popen  # the Claude Code team's "lead" (a real process)
    sshd: Sshd

    @property
    def native_key(self) -> tuple[str, str, str]:
        return host_key("box", os.path.realpath(self.project), NATIVE_TEAM)

    @property
    def claude_key(self) -> tuple[str, str, str]:
        return host_key("box", os.path.realpath(self.claude), CLAUDE_TEAM)

    def teamtui(self) -> str:
        """The [[hosts]] `teamtui` command: this Python's teamtui, with the second HOME's environment."""
        env = {
            "HOME": self.home,
            "CLAUDE_CONFIG_DIR": self.claude,
            "XDG_CONFIG_HOME": self.home / ".config",
            "XDG_STATE_HOME": self.home / ".local" / "state",
        }
        return (
            "env "
            + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
            + f" {shlex.quote(sys.executable)} -m teamtui"
        )

    def spec(self, **kw) -> HostSettings:
        fields = {
            "name": "box",
            "ssh": f"{getpass.getuser()}@127.0.0.1",
            "ssh_options": self.sshd.options(),
            "roots": [str(self.project)],
            "teamtui": self.teamtui(),
        }
        fields.update(kw)
        return HostSettings(**fields)

    def host(self, stall: float = 10.0, heartbeat: float = 1.0, backoff_first: float = 1.0, **kw) -> RemoteHost:
        return RemoteHost(self.spec(**kw), stall=stall, heartbeat=heartbeat, backoff_first=backoff_first)


@pytest.fixture
def remote(tmp_path: Path, sshd: Sshd) -> Iterator[Remote]:
    home = tmp_path / "remote-home"
    claude = home / "claude"
    project = home / "proj"
    copy_tree(EXAMPLES / "claude-2.1.328" / "tmux-running", claude)
    copy_tree(EXAMPLES / "native", project)
    lead = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    set_lead(claude, CLAUDE_TEAM, lead.pid)
    try:
        yield Remote(home, claude, project, lead, sshd)
    finally:
        lead.kill()
        lead.wait()


def empty_local_fleet(tmp_path: Path) -> LocalSource:
    """This machine's side of a room with no team of its own: what stands beside the hosts."""
    empty = tmp_path / "empty"
    empty.mkdir()
    return local_source([], empty)


class Feed(BatchFeed):
    """A host followed by a task of its own; every batch kept."""

    def __init__(self, host: RemoteHost):
        super().__init__()
        self.host = host
        self.at: list[float] = []  # when each batch came (loop time)

    async def until(self, cond: Callable[[], bool], what: str, limit: float = 20.0) -> None:
        await apoll(
            cond,
            limit,
            lambda: asyncio.sleep(0.02),
            lambda: AssertionError(f"never happened: {what} (status {self.host.status!r}, notices {self.notices})"),
        )


@asynccontextmanager
async def following(host: RemoteHost) -> AsyncIterator[Feed]:
    feed = Feed(host)

    async def run(stop: asyncio.Event) -> None:
        async for batch in host.follow(stop):
            feed.batches.append(batch)
            feed.at.append(asyncio.get_running_loop().time())

    async with running(run):
        yield feed
