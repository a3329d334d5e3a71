"""The dashboard's output survives its terminal going away: the first failed write counts as
a hangup, once, and nothing after it raises (Textual's own output thread died of it)."""

from __future__ import annotations

import os

from teamtui.tui.driver import TerminalOutput


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
    assert hangups == [1] and out.gone and not out.isatty()
    try:
        terminal.close()
    except OSError:
        pass  # its buffer still holds a frame for the dead terminal
