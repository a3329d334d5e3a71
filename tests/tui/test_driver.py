"""The dashboard's output survives its terminal going away: the first failed write counts as
a hangup, once, and nothing after it raises (Textual's own output thread died of it)."""

from __future__ import annotations

import os
import threading

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
