"""On a real pseudo-terminal: a child process notifies through TerminalSink writing to its terminal
(plainly, and through a running Textual app's driver), and the master side reads exactly the
bell, the OSC 9 and the OSC 777 bytes; hostile text arrives inert and bounded."""

from __future__ import annotations

import re
import sys
import textwrap

from tests.corpus.ptyrun import PtyProcess

EVENT = "NotifyEvent(NotifyKind.NEEDS_YOU, 'alpha', 'bob asks: may I push?', host='')"
EXPECTED = (
    b"\x07"
    b"\x1b]9;teamtui: alpha: needs you: bob asks: may I push?\x07"
    b"\x1b]777;notify;teamtui: alpha;needs you: bob asks: may I push?\x07"
)


def _run(code: str) -> bytes:
    child = PtyProcess([], program=[sys.executable, "-c", textwrap.dedent(code)])
    try:
        assert child.finish(60) == 0, bytes(child.out)
        return bytes(child.out)
    finally:
        child.close()


def test_the_bell_and_both_oscs_reach_the_terminal_exactly() -> None:
    out = _run(f"""
        import os
        from teamtui.notify import NotifyEvent, NotifyKind, TerminalSink
        TerminalSink(lambda s: os.write(1, s.encode()), codes=(9, 777)).send({EVENT})
        os.write(1, b"END")
    """)
    assert out == EXPECTED + b"END"


def test_hostile_text_reaches_the_terminal_inert_and_bounded() -> None:
    out = _run(r"""
        import os
        from teamtui.notify import Notifier, NotifyEvent, NotifyKind, TerminalSink
        text = "\x1b]0;pwned\x07\x1b[2J[red]x[/]\n#(id)\r\x9c\u202e" + "A" * 100_000
        sink = TerminalSink(lambda s: os.write(1, s.encode()), codes=(9, 777))
        Notifier([sink]).notify(NotifyEvent(NotifyKind.NEEDS_YOU, "t\x1b[31m;x", text, host=""))
        os.write(1, b"END")
    """)
    assert out.endswith(b"END") and len(out) < 1500
    body = out[: -len(b"END")]
    # Only the sequences' own framing: one bell, two OSCs each ended by BEL, no other control byte.
    assert re.fullmatch(
        rb"\x07\x1b\]9;[^\x00-\x1f\x7f]*\x07\x1b\]777;notify;[^\x00-\x1f\x7f;]*;[^\x00-\x1f\x7f]*\x07", body
    ), body[:300]
    assert b"\xc2\x9c" not in body and "\u202e".encode() not in body  # C1 ST, bidi override
    assert b"\\x1b]0;pwned\\x07" in body and b"[red]x[/] #(id)" in body


def test_through_a_running_textual_apps_driver() -> None:
    """How the app wires it: `write` is the driver's (ours, which makes itself known to the app:
    TeamApp.driver_started), so the bytes go through Textual's writer thread between its frames,
    never inside one."""
    out = _run(f"""
        from textual.app import App
        from teamtui.notify import Notifier, NotifyEvent, NotifyKind, TerminalSink
        from teamtui.tui.driver import HangupSafeDriver

        class Probe(App[None]):
            driver = None

            def get_driver_class(self):
                return HangupSafeDriver

            def driver_started(self, driver) -> None:
                self.driver = driver

            def on_mount(self) -> None:
                def write(data: str) -> None:
                    if self.driver is not None:
                        self.driver.write(data)
                Notifier([TerminalSink(write, codes=(9, 777))]).notify({EVENT})
                self.set_timer(0.3, self.exit)

        Probe().run()
    """)
    assert out.count(EXPECTED) == 1, out[-2000:]
