"""The dashboard's output survives its terminal going away: the first failed write counts as
a hangup, once, and nothing after it raises (Textual's own output thread died of it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from teamtui.tui.driver import QUEUED_FRAMES, OutputThread, TerminalOutput


def test_a_hung_up_terminal_is_reported_once_and_later_writes_are_dropped():
    master, slave = os.openpty()
    terminal = os.fdopen(slave, "w", buffering=1)
    hangups = []
    out = TerminalOutput(terminal, lambda: hangups.append(1))
    out.write("frame 1\n")
    out.flush()
    assert os.read(master, 100).replace(b"\r", b"") == b"frame 1\n" and not out.gone
    os.close(master)  # the terminal closes: the next write to it fails with EIO
    for n in range(2, 40):  # more than the 30 frames Textual queues before it blocks
        out.write(f"frame {n}\n")
        out.flush()
    assert hangups == [1] and out.gone
    try:
        terminal.close()
    except OSError:
        pass  # its buffer still holds a frame for the dead terminal


def test_the_output_thread_never_blocks_on_a_terminal_that_is_gone():
    """Textual's writer dies of the first failed write and then blocks the app once 30 frames wait;
    ours drops them, says so once, and still stops when the app closes."""
    master, slave = os.openpty()
    terminal = os.fdopen(slave, "w", buffering=1)
    hangups = []
    thread = OutputThread(TerminalOutput(terminal, lambda: hangups.append(1)))
    thread.start()
    thread.write("frame 1\n")
    assert os.read(master, 100).replace(b"\r", b"") == b"frame 1\n"
    os.close(master)
    done = threading.Event()

    def app() -> None:
        for n in range(2, 10 * QUEUED_FRAMES):
            thread.write(f"frame {n}\n")
        thread.stop()
        done.set()

    threading.Thread(target=app, daemon=True).start()
    assert done.wait(10), "the app's writes blocked on the dead terminal"
    assert hangups == [1] and not thread.is_alive()
    thread.write("a bell after the app left the terminal\n")  # dropped, never queued for no one
    assert thread.frames.empty()
    try:
        terminal.close()
    except OSError:
        pass


def test_a_stop_that_comes_during_a_write_is_handled_after_it(tmp_path):
    """SIGTSTP arrives while the app holds its output queue's lock: the stop is handled in the
    app's loop after the write, the process stops, and SIGCONT brings it back."""
    master, slave = os.openpty()
    out = tmp_path / "out"
    with out.open("w") as stdout:
        app = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("stop_in_a_write.py"))],
            stdin=slave,
            stdout=stdout,
            stderr=slave,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        )
    os.close(slave)
    drain = threading.Thread(target=_drain, args=(master,), daemon=True)  # the terminal reads what it is sent
    drain.start()
    try:
        deadline = time.monotonic() + 20
        while psutil.Process(app.pid).status() != psutil.STATUS_STOPPED:
            assert app.poll() is None, "the app ended instead of stopping"
            assert time.monotonic() < deadline, "the app never stopped: the stop waited on the lock its write held"
            time.sleep(0.05)
        app.send_signal(signal.SIGCONT)
        assert app.wait(20) == 0
        assert out.read_text() == "resumed\n"
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        os.close(master)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
