"""A real tmux server on a private socket with a client attached on a pseudo-terminal (what the
client's terminal receives is what a person's terminal would), killed in teardown."""

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

from teamtui.protocol.processes import running
from tests.corpus.ptyrun import PtyProcess
from tests.notify.attached import AttachedTmux


@pytest.fixture
def attached_tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[AttachedTmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    tmpdir = tempfile.mkdtemp(prefix="tn-")
    monkeypatch.setenv("TMUX_TMPDIR", tmpdir)
    socket = str(Path(tmpdir) / f"teamtui-notify-{uuid.uuid4().hex[:8]}")
    subprocess.run(
        ["tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "40", "sleep 3600"],
        check=True,
    )
    server_pid = int(
        subprocess.run(
            ["tmux", "-S", socket, "display-message", "-p", "#{pid}"], capture_output=True, text=True, check=True
        ).stdout
    )
    client = PtyProcess(["-u", "-S", socket, "attach"], cols=160, rows=40, program=[shutil.which("tmux") or "tmux"])
    try:
        client.read_until(lambda out: b"[0] " in out, "the client draws the status line", limit=20)
        yield AttachedTmux(socket, client)
    finally:
        client.close()
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True, check=False, timeout=10)
        # Never leave a server behind, even if kill-server could not reach it.
        if running(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        shutil.rmtree(tmpdir, ignore_errors=True)
