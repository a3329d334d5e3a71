"""A real tmux server on a private socket for each test, killed in teardown.

The socket lives in a fresh short directory (a unix socket path is limited to ~100 bytes)
and TMUX_TMPDIR points there, so nothing here can reach the developer's own tmux.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_support import TmuxServer

from teamtui.protocol.processes import running
from teamtui.tmux.server import Tmux


@pytest.fixture
def tmux_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[TmuxServer]:
    tmux_bin = shutil.which("tmux")
    if tmux_bin is None:
        pytest.skip("tmux is not installed")
    tmpdir = tempfile.mkdtemp(prefix="tt-")
    monkeypatch.setenv("TMUX_TMPDIR", tmpdir)
    socket = str(Path(tmpdir) / f"teamtui-test-{uuid.uuid4().hex[:8]}")
    subprocess.run(
        [tmux_bin, "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "220", "-y", "60", "sleep 3600"],
        check=True,
    )
    tmux = Tmux(socket)
    dashboard = tmux.run("list-panes", "-a", "-F", "#{pane_id}")[0]
    server_pid = int(tmux.run("display-message", "-p", "#{pid}")[0])
    try:
        yield TmuxServer(socket, tmux, dashboard)
    finally:
        subprocess.run([tmux_bin, "-S", socket, "kill-server"], capture_output=True, check=False, timeout=10)
        # Never leave a server behind, even if kill-server could not reach it.
        if running(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        shutil.rmtree(tmpdir, ignore_errors=True)
