"""A command in a real pseudo-terminal, timed from exec until its screen shows a needle (rows 6 and 11)."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

_ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")


def exec_until(
    argv: list[str],
    needle: bytes,
    *,
    size: tuple[int, int],
    what: str,
    timeout: float,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> float:
    """Seconds from exec of `argv` (size columns × rows, outside tmux) until `needle` is on its
    screen; then `q`, and the process is waited for (killed after 5 s)."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    full = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    full.update(TERM="xterm-256color", COLUMNS=str(size[0]), LINES=str(size[1]), **(env or {}))
    t0 = time.time()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env=full, close_fds=True, start_new_session=True
    )
    os.close(slave)
    buf, found = b"", None
    try:
        while time.time() - t0 < timeout:
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    buf += os.read(master, 1 << 16)
                except OSError:
                    break
                if needle in _ANSI.sub(b"", buf):
                    found = time.time() - t0
                    break
        os.write(master, b"q")
        deadline = time.time() + 5
        while proc.poll() is None and time.time() < deadline:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    os.read(master, 1 << 16)
                except OSError:
                    break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
    if found is None:
        raise RuntimeError(f"no {what} within {timeout}s: {_ANSI.sub(b'', buf)[-400:]!r}")
    return found
