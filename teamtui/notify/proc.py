"""Running a notification's program with a deadline: what went wrong, as one line, or ""."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence

from teamtui.notify.problems import OnceReporter, Problem
from teamtui.notify.text import plain
from teamtui.tmux.worker import PaneWorker

MAX_STDERR = 200  # characters of a failed command's last error line kept in its problem


def run_command(argv: Sequence[str], stdin: bytes, timeout: float, label: str = "") -> str:
    """Run `argv` with `stdin`; "" when it exits 0, else why not, naming it `label` (by default
    "notify command 'PROGRAM'"). A command still running at `timeout` is killed with its whole
    process group (a shell script's children too)."""
    label = label or f"notify command {plain(argv[0] if argv else '?', 80)!r}"
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
    except FileNotFoundError:
        return f"{label}: not found"
    except OSError as exc:
        return f"{label} could not start: {exc.strerror or exc}"
    try:
        _, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return f"{label} still ran after {timeout:g} s and was stopped"
    if proc.returncode == 0:
        return ""
    code = proc.returncode
    how = f"was ended by signal {-code}" if code < 0 else f"exited with status {code}"
    last = err.decode("utf-8", "replace").strip().splitlines()[-1:] if err else []
    return f"{label} {how}" + (f": {plain(last[0], MAX_STDERR)}" if last else "")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    # Not communicate(): a grandchild outside the group could hold stderr open for ever.
    proc.wait()
    for stream in (proc.stdin, proc.stderr):
        if stream is not None:
            stream.close()


class CommandQueue:
    """Programs run one at a time, in order, on a thread of its own (the caller never waits), each
    with a deadline; a failure is told to `on_problem` once, until a run works again."""

    def __init__(self, thread: str, what: str, timeout: float, on_problem: Problem | None, label: str = "") -> None:
        self._timeout, self._label = timeout, label
        self._reporter = OnceReporter(on_problem)
        self._worker = PaneWorker(thread, on_error=lambda exc: self._reporter.failed(f"{what}: {exc}"))

    def submit(self, argv: Sequence[str], stdin: bytes = b"") -> None:
        self._worker.submit(lambda: self._run(argv, stdin))

    def _run(self, argv: Sequence[str], stdin: bytes) -> None:
        problem = run_command(argv, stdin, self._timeout, label=self._label)
        if problem:
            self._reporter.failed(problem)
        else:
            self._reporter.succeeded()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every run submitted so far has been handed over; False on timeout."""
        return self._worker.wait_idle(timeout)

    def close(self) -> None:
        """Drop the runs not yet started; the one running finishes (or meets its deadline)."""
        self._worker.stop()
