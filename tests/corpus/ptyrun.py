"""Run a real `python -m teamtui ...` on a pseudo-terminal and collect the exact bytes it writes."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

from tests.sigint import sigint_default

REPO = Path(__file__).resolve().parents[2]
GUARD = 90.0  # seconds; only a hang reaches it


def _own_terminal() -> None:
    # A session of its own with the pty as its controlling terminal: Ctrl-C written to the pty is SIGINT.
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    sigint_default()  # the Ctrl-C written to the pty must reach it


class PtyProcess:
    def __init__(
        self,
        argv: list[str],
        *,
        cols: int = 200,
        rows: int = 50,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        program: list[str] | None = None,
    ):
        """Runs `python -m teamtui ARGV`, or `program + argv` when a program is given."""
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        base = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMTUI_", "TMUX"))}
        base.update(TERM="xterm-256color", LC_ALL="C.UTF-8", PYTHONPATH=str(REPO), COLUMNS=str(cols), LINES=str(rows))
        base.update(env or {})
        self.proc = subprocess.Popen(
            [*(program or [sys.executable, "-m", "teamtui"]), *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=base,
            cwd=cwd,
            preexec_fn=_own_terminal,
            close_fds=True,
        )
        os.close(slave)
        self.out = bytearray()

    def _read(self, timeout: float) -> bool:
        """Read what is there (waiting up to `timeout`); False once the other side is closed."""
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every writer closed the slave
            return False
        if not data:
            return False
        self.out += data
        return True

    def read_until(self, cond: Callable[[bytes], bool], what: str, limit: float = GUARD) -> None:
        end = time.monotonic() + limit
        while not cond(bytes(self.out)):
            if time.monotonic() > end:
                raise AssertionError(f"never happened: {what}; last output: {bytes(self.out[-3000:])!r}")
            if not self._read(0.2) and not cond(bytes(self.out)):
                raise AssertionError(
                    f"exited before: {what}; code {self.proc.poll()}; output: {bytes(self.out[-3000:])!r}"
                )

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def finish(self, limit: float = GUARD) -> int:
        """Read to the end and wait for the exit code."""
        end = time.monotonic() + limit
        while self._read(0.2):
            if self.proc.poll() is not None and not select.select([self.master], [], [], 0)[0]:
                break
            if time.monotonic() > end:
                self.kill()
                raise AssertionError("did not exit")
        return self.proc.wait(timeout=max(1.0, end - time.monotonic()))

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def close(self) -> None:
        self.kill()
        try:
            os.close(self.master)
        except OSError:
            pass
