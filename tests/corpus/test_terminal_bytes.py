"""The exact bytes that reach the terminal: the real dashboard (`teamtui watch`) and `teamtui follow`
run on a pseudo-terminal over a team whose names, subjects, messages and log lines carry Rich markup,
ANSI CSI, OSC 0/2 titles, OSC 8 links, OSC 52 clipboard writes, bidi overrides, C0/C1 controls, lone
surrogates and newlines. None of it may reach the terminal raw; all of it must be visible, escaped."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from teamtui.protocol.text import inert
from tests.conftest import EXAMPLES
from tests.corpus.ptyrun import PtyProcess
from tests.corpus.test_injection import PAYLOADS

TEAM = "refactor-auth"
# Each payload's dangerous part, as raw bytes: none may appear in the output.
RAW = {
    "rich": [],  # markup is only dangerous if interpreted: checked by its visible literal form
    "csi": [b"\x1b[2J\x1b[31mCSI", b"\x1b[31mCSI"],
    "osc0": [b"\x1b]0;TITLE0"],
    "osc2": [b"\x1b]2;TITLE2"],
    "osc8": [b"\x1b]8;;http://evil"],
    "osc52": [b"\x1b]52;", b"]52;c;ZXZpbA==\x07"],
    "bidi": [
        "\u202e".encode(),
        "\u2066".encode(),
        "\u2067".encode(),
        "\u2068".encode(),
        "\u2069".encode(),
        "\u200f".encode(),
        "\u061c".encode(),
    ],
    "c0": [b"a\x01b", b"\x08c", b"\x7fe"],
    "c1": ["\x9b".encode(), "\x9d".encode(), "\x9c".encode(), "\x85".encode()],
    "surrogate": [b"\xed\xa0\x80"],
    "newline": [b"N\n", b"N\r\n"],
}
# Bytes a dashboard's own drawing uses: CSI sequences, and Textual's OSC 22 (pointer shape) ended by BEL.
OWN_OSC = re.compile(rb"\x1b\]22;[a-z-]*(\x07|\x1b\\)")
CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
BAD_TEXT = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _line(key: str) -> str:
    return f"P-{key}: {PAYLOADS[key]}"


def visible(key: str) -> bytes:
    """How a payload line must show: escaped by the one inert, as UTF-8."""
    return inert(_line(key)).encode("utf-8")


def assert_terminal_safe(out: bytes, what: str) -> None:
    for key, needles in RAW.items():
        for n in needles:
            assert n not in out, f"{what}: raw {key} payload {n!r} reached the terminal"
    # Take out the program's own sequences: what is left is text, and text holds no control of any kind.
    text = CSI.sub(b"", OWN_OSC.sub(b"", out))
    esc = text.find(b"\x1b")
    assert esc < 0, f"{what}: an escape that is not the program's own: {text[esc : esc + 40]!r}"
    decoded = text.decode("utf-8")  # strict: no lone surrogate, no stray byte
    bad = sorted({hex(ord(c)) for c in BAD_TEXT.findall(decoded)})
    assert not bad, f"{what}: control or bidi code points in the text: {bad}"


@pytest.fixture
def hostile_root(tmp_path: Path) -> Path:
    """The example team, plus every payload in a member name, a task subject, messages and log lines."""
    root = tmp_path / "native"
    shutil.copytree(EXAMPLES / "native", root)
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
    team = root / ".teams" / TEAM
    config = json.loads((team / "config.json").read_text())
    config["members"].append({"name": "[bold red]R[/]", "status": "idle", "agent_type": PAYLOADS["osc52"]})
    config["members"].append({"name": "x" + PAYLOADS["osc0"], "status": "idle"})
    (team / "config.json").write_text(json.dumps(config, indent=2))
    task = {
        "id": "6",
        "subject": PAYLOADS["osc8"] + PAYLOADS["bidi"],
        "description": " ".join(PAYLOADS.values()),
        "status": "in_progress",
        "active_form": "",
        "owner": "scout",
        "blocks": [],
        "blocked_by": [],
    }
    (root / ".tasks" / "task_6.json").write_text(json.dumps(task))
    task2 = json.loads((root / ".tasks" / "task_2.json").read_text())  # hunter's current task
    task2["subject"] = "tests " + PAYLOADS["osc8"] + PAYLOADS["csi"]
    (root / ".tasks" / "task_2.json").write_text(json.dumps(task2))
    with open(team / "hunter_inbox.jsonl", "a", encoding="utf-8") as fh:
        for i, key in enumerate(PAYLOADS):
            msg = {"type": "message", "sender": "lead", "content": _line(key), "timestamp": 1763712100.0 + i}
            fh.write(json.dumps(msg) + "\n")  # ensure_ascii: the lone surrogate travels as \ud800
        fh.write(
            json.dumps({"type": PAYLOADS["osc2"], "sender": PAYLOADS["c1"], "content": "x", "timestamp": 1763712200.0})
            + "\n"
        )
    with open(team / "logs" / "hunter.jsonl", "ab") as fh:  # times no clock can show: 1e400 reads as inf
        fh.write(
            b'{"ts": 1e400, "level": "info", "text": "TS-inf"}\n{"ts": 1e300, "level": "info", "text": "TS-big"}\n'
        )
    _log(root, list(PAYLOADS))
    return root


def _log(root: Path, keys: list[str], prefix: str = "") -> None:
    with open(root / ".teams" / TEAM / "logs" / "hunter.jsonl", "a", encoding="utf-8") as fh:
        for key in keys:
            fh.write(json.dumps({"ts": 1763712100.0, "level": "info", "text": prefix + _line(key)}) + "\n")


def test_dashboard_writes_no_hostile_byte_to_the_terminal(hostile_root: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = PtyProcess(
        ["watch", "--root", str(hostile_root), "--team", TEAM, "--layout", "native", "--teammate-mode", "in-process"],
        env={"HOME": str(home)},
    )
    try:
        # The first screen: hunter's log (the selected teammate) shows every payload line, escaped.
        for key in PAYLOADS:
            proc.read_until(lambda out, k=key: visible(k) in out, f"log line {key} shown escaped")
        # Written while the dashboard watches: the live path escapes the same way.
        _log(hostile_root, list(PAYLOADS), prefix="live ")
        for key in PAYLOADS:
            proc.read_until(lambda out, k=key: b"live " + visible(k) in out, f"live log line {key} shown escaped")
        proc.read_until(lambda out: b"[bold red]R[/]" in out, "a member named with Rich markup shown literally")
        proc.write(b"q")
        code = proc.finish()
    finally:
        proc.close()
    out = bytes(proc.out)
    assert code == 0, out[-2000:]
    assert b"Traceback" not in out
    assert_terminal_safe(out, "teamtui watch")
    print(f"\nwatch: {len(out)} bytes from the pty, {len(PAYLOADS)} payloads x 2 log lines shown escaped, exit {code}")
    # Markup is text: its brackets reach the screen, and no link or style was made of it.
    assert b"[link=http://evil]L[/link]" in out and b"\x1b]8;" not in out


def test_follow_writes_no_hostile_byte_to_the_terminal(hostile_root: Path) -> None:
    proc = PtyProcess(
        ["follow", "hunter", "--root", str(hostile_root), "--team", TEAM, "--layout", "native", "--backlog", "100"]
    )
    try:
        proc.read_until(lambda out: b"TS-inf" in out and b"TS-big" in out, "log lines with impossible times")
        for key in PAYLOADS:
            proc.read_until(lambda out, k=key: out.count(visible(k)) >= 2, f"{key}: log line and message shown escaped")
        _log(hostile_root, list(PAYLOADS), prefix="live ")
        for key in PAYLOADS:
            proc.read_until(lambda out, k=key: b"live " + visible(k) in out, f"live log line {key} shown escaped")
        proc.write(b"\x03")  # Ctrl-C, as a person ends it
        code = proc.finish()
    finally:
        proc.close()
    out = bytes(proc.out)
    assert b"Traceback" not in out, out[-3000:]
    assert code in (0, 130), code
    assert_terminal_safe(out.replace(b"^C", b""), "teamtui follow")
    print(f"\nfollow: {len(out)} bytes from the pty, {len(PAYLOADS)} payloads x 3 lines shown escaped, exit {code}")
    lines = out.decode("utf-8").replace("\r\n", "\n").split("\n")
    # A newline in a field is shown as \n: nothing can print a line of its own.
    assert not [s for s in lines if s.lstrip().startswith("\u2713 #99 FAKE LINE")]
    assert "task   #2 tests \\x1b]8;;http://evil\\x1b\\LINK" in out.decode("utf-8"), "the task line, escaped"
