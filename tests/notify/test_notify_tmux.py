"""Inside a real tmux: with allow-passthrough on, the OSC sequences go out wrapped and reach the
terminal outside as they were; with it off, tmux's message line shows the text, literally (tmux
formats in team data do not run), and no OSC reaches the terminal."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.notify.attached import AttachedTmux

pytestmark = pytest.mark.tmux

CHILD = """
import json, os, sys, time
from teamtui.notify import NotifyEvent, NotifyKind, build_notifier
from teamtui.protocol.settings import NotifySettings

problems = []
notifier = build_notifier(NotifySettings(desktop_osc=[9, 777]), lambda s: os.write(1, s.encode()), on_problem=problems.append)
notifier.notify(NotifyEvent(NotifyKind.NEEDS_YOU, "alpha", sys.argv[1], host=""))
idle = notifier.wait_idle(10)
terminal = notifier.sinks[0]
with open(sys.argv[2] + ".tmp", "w") as f:
    json.dump({"idle": idle, "problems": problems, "in_tmux": terminal.in_tmux, "passthrough": terminal.passthrough}, f)
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(600)
"""


def _notify_in_a_pane(tmux: AttachedTmux, tmp_path: Path, text: str) -> dict[str, object]:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    result = tmp_path / "result.json"
    tmux.python_window(script, text, str(result))
    deadline = time.monotonic() + 30
    while not result.exists():
        assert time.monotonic() < deadline, "the child in the pane never reported"
        time.sleep(0.05)
    report: dict[str, object] = json.loads(result.read_text(encoding="utf-8"))
    return report


def test_passthrough_on_the_wrapped_sequences_reach_the_terminal(attached_tmux: AttachedTmux, tmp_path: Path) -> None:
    attached_tmux.run("set-option", "-g", "allow-passthrough", "on")
    report = _notify_in_a_pane(attached_tmux, tmp_path, "bob asks: may I push?")
    assert report == {"idle": True, "problems": [], "in_tmux": True, "passthrough": True}
    osc9 = b"\x1b]9;teamtui: alpha: needs you: bob asks: may I push?\x07"
    osc777 = b"\x1b]777;notify;teamtui: alpha;needs you: bob asks: may I push?\x07"
    attached_tmux.client.read_until(lambda out: osc9 in out and osc777 in out, "both OSCs unwrapped by tmux", limit=20)
    out = bytes(attached_tmux.client.out)
    assert out.count(osc9) == 1 and out.count(osc777) == 1
    assert b"Ptmux;" not in out  # tmux took the wrapping off; the terminal sees the plain sequence
    # No message line: the notification went through the terminal.
    assert "message: teamtui: alpha" not in attached_tmux.run("show-messages")


def test_passthrough_off_tmux_shows_the_text_literally(attached_tmux: AttachedTmux, tmp_path: Path) -> None:
    attached_tmux.run("set-option", "-g", "allow-passthrough", "off")
    marker = tmp_path / "ran"
    text = f"bob asks #[fg=red] #{{pane_id}} #(touch {marker})\x1b[31m;"
    report = _notify_in_a_pane(attached_tmux, tmp_path, text)
    assert report == {"idle": True, "problems": [], "in_tmux": True, "passthrough": False}
    # tmux keeps '##[' in its log (and draws it as a literal '#['): no style, no command, no variable.
    shown = f"message: teamtui: alpha: needs you: bob asks ##[fg=red] #{{pane_id}} #(touch {marker})\\x1b[31m;"
    deadline = time.monotonic() + 10
    while shown not in (log := attached_tmux.run("show-messages")):
        assert time.monotonic() < deadline, log
        time.sleep(0.05)
    assert log.count(shown) == 1
    assert not marker.exists(), "a tmux format in team data ran a command"
    # The client drew it on the status line; no OSC reached the terminal.
    attached_tmux.client.read_until(
        lambda out: b"needs you: bob asks #[fg=red] #{pane_id} #(touch" in out,
        "the message line drawn literally",
        limit=10,
    )
    out = bytes(attached_tmux.client.out)
    assert b"\x1b]9;" not in out and b"\x1b]777;" not in out


def test_the_bell_reaches_the_terminal_through_tmux(attached_tmux: AttachedTmux, tmp_path: Path) -> None:
    attached_tmux.run("set-option", "-g", "allow-passthrough", "off")
    attached_tmux.run("set-option", "-g", "bell-action", "any")
    before = bytes(attached_tmux.client.out).count(b"\x07")
    _notify_in_a_pane(attached_tmux, tmp_path, "done")
    attached_tmux.client.read_until(
        lambda out: out.count(b"\x07") > before, "a bell on the client's terminal", limit=10
    )
