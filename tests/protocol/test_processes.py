"""teamtui.protocol.processes against real processes: a reused pid, a zombie, another user's
process, the Linux start ticks Claude Code records, and the path macOS takes (no /proc)."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from teamtui.protocol import processes
from teamtui.protocol.claude.leadproc import LeadProcess, lead_environ, lead_state, task_list_id

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534
LINUX_PROC = Path("/proc/self/stat").exists()


def _field_22(pid: int) -> str:
    """What Claude Code records as procStart: field 22 of /proc/<pid>/stat, read by hand."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19]


def _wait(check, what: str, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@contextlib.contextmanager
def _sleeper(**kw) -> Iterator[subprocess.Popen]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **kw)
    try:
        # Popen returns once exec began; the kernel fills in the environment a moment later.
        _wait(lambda: psutil.Process(child.pid).environ(), "the child's environment")
        yield child
    finally:
        child.kill()
        child.wait()


def _zombie(**kw) -> subprocess.Popen:
    """A child that has exited and is not reaped yet (the caller reaps it)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"], **kw)
    _wait(lambda: psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE, "the child to become a zombie")
    return child


# ---------------------------------------------------------------- alive, ended, reused


@pytest.mark.skipif(not LINUX_PROC, reason="clock ticks since boot are Linux's")
def test_the_start_ticks_are_field_22_of_stat_exactly() -> None:
    with _sleeper() as child:
        assert processes.start_of(child.pid) == _field_22(child.pid)
    assert processes.start_of(os.getpid()) == _field_22(os.getpid())
    # Every process it can see, not only young ones: the float round trip must not lose a tick.
    checked = 0
    for pid in psutil.pids():
        try:
            want = _field_22(pid)
        except OSError:
            continue
        got = processes.start_of(pid)
        if got:  # it may have ended between the two reads
            assert got == want, pid
            checked += 1
    assert checked > 1


def test_a_live_process_is_alive_and_its_own_start_matches() -> None:
    with _sleeper() as child:
        start = processes.start_of(child.pid)
        assert start
        assert processes.state(child.pid) == "alive"
        assert processes.state(child.pid, start=start) == "alive"
        assert processes.running(child.pid)


def test_a_reused_pid_is_ended() -> None:
    with _sleeper() as child:
        start = processes.start_of(child.pid)
        # The pid, but another start: another process holds it now.
        other = str(int(start) + 1) if processes.LINUX else repr(float(start) - 5)
        assert processes.state(child.pid, start=other) == "ended"
        now, env = processes.environment(child.pid, start=other)
        assert (now, env) == ("ended", {})
        # Known to run a minute before this process started: this one is not it.
        born = psutil.Process(child.pid).create_time()
        assert processes.state(child.pid, started_by=born - 60) == "ended"
        assert processes.state(child.pid, started_by=born + 5) == "alive"


def test_a_gone_pid_is_ended() -> None:
    with _sleeper() as child:
        pid = child.pid
    assert processes.state(pid) == "ended"
    assert not processes.running(pid)
    assert processes.start_of(pid) == "" and processes.parent(pid) is None and processes.command_line(pid) is None
    assert processes.state(0) == processes.state(-1) == "ended"


def test_a_zombie_is_ended() -> None:
    child = _zombie(start_new_session=True)
    try:
        start = processes.start_of(child.pid)
        assert processes.state(child.pid) == "ended"
        assert processes.state(child.pid, start=start) == "ended"
        assert not processes.running(child.pid)
        assert processes.environment(child.pid) == ("ended", {})
        assert lead_state(LeadProcess(child.pid, "", None, start)) == "ended"
        # Its group holds only the zombie: signalling it still succeeds, yet nothing runs there.
        os.killpg(child.pid, 0)
        assert not processes.group_alive(child.pid)
    finally:
        child.wait()


def test_a_group_is_alive_while_a_member_runs() -> None:
    with _sleeper(start_new_session=True) as child:
        assert processes.group_alive(child.pid)
    assert not processes.group_alive(child.pid)


# ---------------------------------------------------------------- the tree, the command line, the environment


def test_parent_ancestors_children_and_family() -> None:
    code = "import subprocess, sys, time; subprocess.Popen(['sleep', '60']); time.sleep(60)"
    outer = subprocess.Popen([sys.executable, "-c", code, "--agent-id", "bob@team"], start_new_session=True)
    try:
        _wait(lambda: processes.children().get(outer.pid), "the grandchild")
        inner = processes.children()[outer.pid][0]
        _wait(lambda: processes.command_line(inner) == ["sleep", "60"], "the grandchild to exec sleep")
        assert processes.parent(inner) == outer.pid
        assert processes.ancestors(inner, 2) == [outer.pid, os.getpid()]
        assert processes.ancestors(inner, 1) == [outer.pid]
        assert list(processes.family(outer.pid, 3)) == [outer.pid, inner]
        assert list(processes.family(outer.pid, 0)) == [outer.pid]
        assert processes.command_line(outer.pid)[-2:] == ["--agent-id", "bob@team"]
    finally:
        os.killpg(outer.pid, signal.SIGKILL)
        outer.wait()


def test_a_live_processs_environment_is_read() -> None:
    env = {**os.environ, "CLAUDE_CODE_TASK_LIST_ID": "shared-list"}
    with _sleeper(env=env) as child:
        now, seen = processes.environment(child.pid, start=processes.start_of(child.pid))
        assert now == "alive" and seen["CLAUDE_CODE_TASK_LIST_ID"] == "shared-list"


# ---------------------------------------------------------------- another user's process

# Run as another user: what the module says of a root-owned process's environment and state.
AS_NOBODY = """
import json, sys
from teamtui.protocol import processes
from teamtui.protocol.claude.leadproc import LeadProcess, lead_environ, lead_state, task_list_id
pid = int(sys.argv[1])
lead = LeadProcess(pid, "", None, processes.start_of(pid))
print(json.dumps({"environment": processes.environment(pid)[0], "state": processes.state(pid),
                  "lead_state": lead_state(lead), "lead_environ": lead_environ(lead), "task_list": task_list_id(lead)}))
"""


def _as_nobody(code: str, *args: str) -> str:
    """`code` run by user nobody with setpriv or runuser; by a forked child that drops to nobody
    when this interpreter cannot be started by nobody (one installed under /root)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(REPO)}
    for tool in (
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"],
        ["runuser", "-u", "nobody", "--"],
    ):
        if shutil.which(tool[0]) is None:
            continue
        res = subprocess.run(
            [*tool, sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd="/",
            timeout=60,
            check=False,
        )
        if res.returncode == 0:
            return res.stdout
        if (
            "No module named" in res.stderr
            or "error while loading shared libraries" in res.stderr
            or res.returncode == 127
        ):
            return _forked_as_nobody(code, *args)
        raise AssertionError(res.stderr)
    pytest.skip("neither setpriv nor runuser to run as another user")


def _forked_as_nobody(code: str, *args: str) -> str:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to nobody, run the code, hand back what it printed
        status = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
            out: list[str] = []
            sys.argv = ["-c", *args]
            exec(code, {"print": lambda *a: out.append(" ".join(map(str, a)))})  # noqa: S102 - the test's own code
            os.write(write, "\n".join(out).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read) as fh:
        text = fh.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return text


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="running as another user needs root")
def test_another_users_process_is_unknown_not_ended() -> None:
    env = {**os.environ, "CLAUDE_CODE_TASK_LIST_ID": "shared-list"}
    with _sleeper(env=env) as child:  # root's
        said = json.loads(_as_nobody(AS_NOBODY, str(child.pid)))
    # Its environment is not nobody's to read: unknown, never "ended"; the task list is not guessed.
    assert said["environment"] == "unknown"
    assert said["lead_environ"] is None and said["task_list"] is None
    # Whether it runs is public (on Linux and macOS): it is alive.
    assert said["state"] == said["lead_state"] == "alive"


def test_what_psutil_may_not_read_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self):
        raise psutil.AccessDenied(self.pid)

    with _sleeper() as child:
        monkeypatch.setattr(psutil.Process, "status", denied)
        assert processes.state(child.pid) == "unknown"
        assert processes.running(child.pid)
        assert lead_state(LeadProcess(child.pid)) == "unknown"
        monkeypatch.setattr(psutil.Process, "environ", denied)
        assert processes.environment(child.pid) == ("unknown", {})


# ---------------------------------------------------------------- where there are no clock ticks (macOS)


def test_off_linux_claimed_at_tells_a_reused_pid_and_proc_start_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "LINUX", False)
    env = {**os.environ, "CLAUDE_CODE_TASK_LIST_ID": "shared-list"}
    with _sleeper(env=env) as child:
        born = psutil.Process(child.pid).create_time()
        # procStart means clock ticks on Linux only: whatever it holds, it is not compared here.
        claimed = LeadProcess(child.pid, "", born + 0.5, "1")
        assert lead_state(claimed) == "alive"
        assert task_list_id(claimed) == "shared-list"
        assert lead_state(LeadProcess(child.pid, "", None, "1")) == "alive"
        # Claimed a minute before this process started: the pid was reused.
        reused = LeadProcess(child.pid, "", born - 60, "1")
        assert lead_state(reused) == "ended" and lead_environ(reused) is None
        # teamtui's own start tokens are the create time there.
        token = processes.start_of(child.pid)
        assert float(token) == pytest.approx(born)
        assert processes.state(child.pid, start=token) == "alive"
        assert processes.state(child.pid, start=repr(born + 30)) == "ended"
    assert lead_state(claimed) == "ended"


class _MacPsutil:
    """psutil as it answers on macOS: no /proc behind it, create time in seconds since the epoch,
    another user's environment denied. `table`: pid -> what psutil would say of it."""

    STATUS_ZOMBIE, STATUS_DEAD = psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD
    Error, NoSuchProcess, AccessDenied = psutil.Error, psutil.NoSuchProcess, psutil.AccessDenied

    def __init__(self, table: dict[int, dict]):
        mac = self

        class Process:
            def __init__(self, pid: int):
                if pid not in mac.table:
                    raise psutil.NoSuchProcess(pid)
                self.pid, self._facts = pid, mac.table[pid]

            def oneshot(self):
                return contextlib.nullcontext()

            def status(self):
                return self._facts["status"]

            def create_time(self):
                return self._facts["create_time"]

            def environ(self):
                if self._facts["environ"] is None:
                    raise psutil.AccessDenied(self.pid)
                return self._facts["environ"]

            def ppid(self):
                return self._facts["ppid"]

        self.table, self.Process = table, Process

    def boot_time(self) -> float:
        return 1_700_000_000.0


def _no_proc(monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc is not there, as on macOS: any look at it fails."""
    real_open, real_readlink, real_exists = builtins.open, os.readlink, os.path.exists

    def is_proc(path) -> bool:
        return str(path) == "/proc" or str(path).startswith("/proc/")

    def fail(path):
        raise FileNotFoundError(2, "No such file or directory", str(path))

    monkeypatch.setattr(
        builtins, "open", lambda path, *a, **kw: fail(path) if is_proc(path) else real_open(path, *a, **kw)
    )
    monkeypatch.setattr(
        os, "readlink", lambda path, *a, **kw: fail(path) if is_proc(path) else real_readlink(path, *a, **kw)
    )
    monkeypatch.setattr(os.path, "exists", lambda path: False if is_proc(path) else real_exists(path))


def test_on_macos_a_missing_proc_does_not_make_the_lead_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    mac = _MacPsutil(
        {
            501: {
                "status": "running",
                "create_time": now - 100,
                "environ": {"CLAUDE_CODE_TASK_LIST_ID": "mac-list"},
                "ppid": 1,
            },
            502: {"status": "running", "create_time": now - 100, "environ": None, "ppid": 501},  # another user's
            503: {"status": psutil.STATUS_ZOMBIE, "create_time": now - 100, "environ": {}, "ppid": 501},
        }
    )
    monkeypatch.setattr(processes, "LINUX", False)
    monkeypatch.setattr(processes, "_psutil", lambda: mac)
    _no_proc(monkeypatch)
    claimed = now - 90  # Claude Code claims the lead after its process started
    lead = LeadProcess(501, "", claimed, "")
    assert lead_state(lead) == "alive"
    assert task_list_id(lead) == "mac-list"
    assert lead_state(LeadProcess(502, "", claimed, "")) == "alive"
    assert processes.environment(502) == ("unknown", {})
    assert lead_state(LeadProcess(503, "", claimed, "")) == "ended"  # a zombie
    assert lead_state(LeadProcess(504, "", claimed, "")) == "ended"  # no such process
    assert lead_state(LeadProcess(501, "", now - 200, "")) == "ended"  # claimed before it started: a reused pid
    assert processes.pid_space() == ""
    assert processes.ancestors(502, 4) == [501]
