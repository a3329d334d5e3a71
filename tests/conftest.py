"""Shared fixtures: real team directories copied from the format examples; the helpers every
folder's tests share (copying a checked-in fixture, waiting for a condition, a lead process)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

# A copy of ../shared/formats/examples, so a clone tests without shared/ beside it
# (tests/protocol/test_examples.py checks the copy still matches when shared/ is there).
EXAMPLES = Path(__file__).parent / "fixtures" / "examples"
SHARED_EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "formats" / "examples"
CLAUDE_328 = EXAMPLES / "claude-2.1.328"  # the recorded Claude Code 2.1.328 folders, one a case
EDITS = EXAMPLES / "claude-2.1.332-edits" / ".claude"
WORKFLOWS = Path(__file__).parent / "fixtures" / "claude-workflow"


def writable(root: Path, touch: bool = False) -> Path:
    """`root` and all below it made writable (the fixtures are checked in read-only); `touch`: every
    file written now, so what reads ages by mtime sees it fresh."""
    now = time.time()
    for p in [root, *root.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
        if touch:
            os.utime(p, (now, now))
    return root


def copy_fixture(src: Path, dest: Path) -> Path:
    """A checked-in fixture folder copied to `dest`, writable."""
    shutil.copytree(src, dest, dirs_exist_ok=True)
    return writable(dest)


def copy_example(name: str, dest: Path) -> Path:
    """An example team folder (tests/fixtures/examples/NAME) copied to `dest`."""
    shutil.copytree(EXAMPLES / name, dest)
    return dest


def poll(check: Callable[[], Any], timeout: float, period: float, error: Callable[[], BaseException]) -> Any:
    """What `check()` returns once it is truthy, checked every `period` s; after `timeout` s, `error()`
    is raised: a wait for what another process brings about, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise error()
        time.sleep(period)


async def apoll(
    cond: Callable[[], object],
    limit: float,
    pause: Callable[[], Awaitable[object]],
    error: Callable[[], BaseException],
    problem: Callable[[], BaseException | None] = lambda: None,
) -> None:
    """Await `pause()` until `cond()` holds; `error()` after `limit` s (loop time), or at once what
    `problem()` returns: the one async wait behind every `until` of the suite."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not cond():
        failed = problem()
        if failed is not None:
            raise failed
        if loop.time() > end:
            raise error()
        await pause()


class BatchFeed:
    """What a followed source (a remote host, a NATS room) gave: every batch kept, and their notices."""

    def __init__(self) -> None:
        self.batches: list = []

    @property
    def notices(self) -> list[str]:
        return [text for b in self.batches for text, _ in b.notices]


@asynccontextmanager
async def running(follow: Callable[[asyncio.Event], Awaitable[None]]) -> AsyncIterator[None]:
    """`follow(stop)` as a task of its own while the block runs; then stopped (15 s at the most)."""
    stop = asyncio.Event()
    task = asyncio.create_task(follow(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)


def set_lead(claude: Path, team: str, pid: int, start: str | None = None) -> None:
    """Point a Claude team's config.json leadProcess at a real process of this machine (its start
    time read from /proc unless given)."""
    from teamtui.protocol import processes

    path = claude / "teams" / team / "config.json"
    cfg = json.loads(path.read_text())
    cfg["leadProcess"] = {
        "pid": pid,
        "pidSpace": "vm#" + processes.pid_space(),
        "claimedAt": int(time.time() * 1000),
        "procStart": processes.start_of(pid) if start is None else start,
    }
    path.write_text(json.dumps(cfg, indent=2))


def free_port() -> int:
    """A TCP port of 127.0.0.1 free now, for a server a test starts."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def native_team(root: Path, name: str, members: list[str], tasks: list[str] = ()):
    """A native team made as `teamtui` makes one: its members joined, its tasks created, in order."""
    from teamtui.protocol.native import NativeTeam

    team = NativeTeam(root, name)
    team.create(description="")
    for m in members:
        team.add_member(m)
    for subject in tasks:
        team.create_task(subject)
    return team


def local_source(roots: list[Path], empty: Path, cls: type | None = None, **kw: Any):
    """This machine's source (LocalSource or `cls`) on `roots`, discovered: no config file, and its cwd,
    Claude folder, runs and journal in the folder `empty` (each overridable by keyword)."""
    from teamtui.protocol.settings import load_settings
    from teamtui.session.local import LocalSource

    where = {"cwd": empty, "claude_root": empty, "registry": empty / "runs", "journal": empty / "journal", **kw}
    source = (cls or LocalSource)(load_settings(empty / "none.toml"), roots=roots, **where)
    source.discover()
    return source


async def shutdown_through_the_lead(session, until, lead_inbox: Callable[[], list[dict]], what: str) -> None:
    """`S` on a Claude Code team of another machine's: its lead is asked (as teamtui), and the run says so."""
    news: list = []
    controller = session.shutdown(None, news.append, lambda d, f: None, lambda w, d: None)
    controller.start(session.live_teammates(), "done for today", 30.0)
    await until(lambda: any(n.run is not None and n.run.note for n in news), what)
    note = next(n.run.note for n in news if n.run is not None and n.run.note)
    assert note.startswith("asked team-lead (as teamtui) to shut down")
    asked = [e for e in lead_inbox() if "done for today" in e.get("text", "")]
    assert asked and asked[-1]["from"] == "teamtui"
    controller.stop()


def find_chromium() -> str:
    """The Chromium binary; without one the browser test skips (fails on CI, which installs it: .ci/run)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    why = "no chromium on PATH: `apt-get install -y chromium` (Debian) to run the browser test"
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


@contextmanager
def headless_chromium(profile: Path, *flags: str) -> Iterator[int]:
    """A headless Chromium with its own profile (and `flags`, e.g. its window size); its DevTools port."""
    import signal
    import subprocess

    proc = subprocess.Popen(
        [
            find_chromium(),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            *flags,
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        active = profile / "DevToolsActivePort"  # Chromium writes the port it took here
        deadline = time.monotonic() + 30
        while not (active.exists() and active.read_text().count("\n") >= 1):
            assert proc.poll() is None and time.monotonic() < deadline, "chromium did not start"
            time.sleep(0.1)
        yield int(active.read_text().split()[0])
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def join_all(procs: list, guard: float) -> None:
    """Wait for child processes (`guard` s each: only a hang reaches it), kill what is left, and
    require every one to have exited 0."""
    for p in procs:
        p.join(guard)
    for p in procs:
        if p.is_alive():
            p.kill()
    assert [p.exitcode for p in procs] == [0] * len(procs)


@contextmanager
def reaped(proc):
    """`proc` killed and waited for on the way out, if it still runs (a failed assertion leaves no child)."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def ask_permission(inbox: Path, request_id: str, command: str, description: str) -> None:
    """alice asks, as Claude Code writes it to a lead's inbox, to run a Bash command."""
    entries = json.loads(inbox.read_text()) if inbox.exists() else []
    request = {
        "type": "permission_request",
        "request_id": request_id,
        "agent_id": "alice",
        "tool_name": "Bash",
        "input": {"command": command},
        "description": description,
    }
    entries.append({"from": "alice", "text": json.dumps(request), "timestamp": time.time() * 1000, "read": False})
    inbox.write_text(json.dumps(entries))


# A CLI call in this process: (exit code, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Run:
    from teamtui.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def native_root(tmp_path: Path) -> Path:
    """A project root holding the native example team `refactor-auth`."""
    return copy_example("native", tmp_path / "native")


@pytest.fixture
def claude_root(tmp_path: Path) -> Path:
    """A Claude Code folder holding the example team `work-team`."""
    return copy_example("claude", tmp_path / "claude")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the developer's real config, Claude folder or tmux server."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)  # the journal goes under the private HOME
    for var in ("TEAMTUI_ROOT", "TEAMTUI_TEAM", "TEAMTUI_NAME", "TEAMTUI_AGENT_ID", "TMUX", "TMUX_PANE"):
        monkeypatch.delenv(var, raising=False)
