"""Terminal injection through the CLI: hostile names, subjects, messages and log lines written by
peers (or given on the command line) reach the terminal inert. Runs `python -m teamtui` as a real
subprocess and checks the exact bytes on stdout and stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEAM = "inj"

PAYLOADS = {
    "rich": "[bold red]R[/] [link=http://evil]L[/link]",
    "csi": "\x1b[2J\x1b[31mCSI\x1b[0m",
    "osc0": "\x1b]0;TITLE0\x07",
    "osc2": "\x1b]2;TITLE2\x1b\\",
    "osc8": "\x1b]8;;http://evil\x1b\\LINK\x1b]8;;\x1b\\",
    "osc52": "\x1b]52;c;ZXZpbA==\x07",
    "bidi": "A\u202eB\u2066C\u2067D\u2068E\u2069F\u200fG\u061cH",
    "c0": "a\x01b\x08c\x0dd\x7fe",
    "c1": "x\x9b31my\x9d0;t\x9cz\x85w",
    "surrogate": "s\ud800t",
    "newline": "N\n  \u2713 #99 FAKE LINE",
}
EVIL = " ".join(PAYLOADS.values())
# argv cannot carry NUL or lone surrogates: those arrive through files only.
EVIL_ARGV = " ".join(v for k, v in PAYLOADS.items() if k != "surrogate")
BAD_CODEPOINTS = {
    *range(0x00, 0x09),
    *range(0x0B, 0x20),
    *range(0x7F, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    *range(0x2028, 0x202F),
    *range(0x2066, 0x206A),
}


def run(*argv: str, root: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEAMTUI_")}
    env.update(LC_ALL="C.UTF-8", PYTHONPATH=str(REPO), TEAMTUI_ROOT=str(root), TEAMTUI_TEAM=TEAM)
    return subprocess.run([sys.executable, "-m", "teamtui", *argv], capture_output=True, env=env, timeout=120)


def assert_inert(data: bytes, what: str) -> str:
    assert b"\x1b" not in data and b"\x07" not in data and b"\x00" not in data, what
    text = data.decode("utf-8")  # strict
    bad = sorted({hex(ord(c)) for c in text if ord(c) in BAD_CODEPOINTS or 0xD800 <= ord(c) <= 0xDFFF})
    assert not bad, f"{what}: {bad}"
    return text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A native team whose files carry every payload (as peers could write them)."""
    team = tmp_path / ".teams" / TEAM
    (team / "logs").mkdir(parents=True)
    (tmp_path / ".tasks").mkdir()
    config = {
        "name": TEAM,
        "description": EVIL,
        "lead": "lead",
        "members": [
            {"name": "hunter", "status": "active", "agent_type": EVIL},
            {"name": "evil " + EVIL, "status": "idle"},
        ],
    }
    (team / "config.json").write_text(json.dumps(config))  # ensure_ascii: lone surrogates as \ud800
    task = {
        "id": "1",
        "subject": EVIL,
        "description": EVIL,
        "status": "in_progress",
        "active_form": "",
        "owner": "hunter",
        "blocks": [],
        "blocked_by": ["2" + EVIL],
    }
    (tmp_path / ".tasks" / "task_1.json").write_text(json.dumps(task))
    msg = {"type": "message", "sender": "s " + EVIL, "content": EVIL, "timestamp": 1.0}
    proto = {"type": "x " + EVIL, "sender": "lead", "content": EVIL, "timestamp": 2.0}
    (team / "hunter_inbox.jsonl").write_text(json.dumps(msg) + "\n" + json.dumps(proto) + "\n")
    (team / "logs" / "hunter.jsonl").write_text(json.dumps({"ts": 1, "level": "info", "text": EVIL}) + "\n")
    (team / "logs" / "hunter.log").write_text(EVIL.replace("\ud800", "") + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("status", "--json"),
        ("tasks",),
        ("tasks", "--json"),
        ("inbox", "hunter"),
        ("inbox", "hunter", "--json"),
        ("inbox", "hunter", "--drain"),
    ],
    ids=" ".join,
)
def test_file_text_reaches_the_terminal_inert(root: Path, argv: tuple[str, ...]) -> None:
    res = run(*argv, root=root)
    assert res.returncode == 0, res.stderr
    out = assert_inert(res.stdout, "stdout")
    assert_inert(res.stderr, "stderr")
    if "--json" in argv:
        json.loads(out)  # still valid JSON: escapes are JSON's own \u001b
        assert "\\u001b]0;TITLE0\\u0007" in out
    else:
        # Still visible, in escaped form; Rich markup shown as the literal text it is.
        assert "\\x1b]0;TITLE0\\x07" in out and "\\x1b]52;c;ZXZpbA==\\x07" in out
        assert "\\u202e" in out and "\\x9b31m" in out and "\\ud800" in out
        assert PAYLOADS["rich"] in out
        # A newline inside a field cannot forge a line of output.
        assert not any("FAKE LINE" in line and "N\\n" not in line for line in out.splitlines())


def test_written_text_round_trips_and_stays_inert(root: Path) -> None:
    """Hostile text given on the command line is stored as is and shown inert."""
    for argv in (
        ("send", "hunter", EVIL_ARGV),
        ("log", "hunter", EVIL_ARGV),
        ("task", "create", EVIL_ARGV),
        ("broadcast", EVIL_ARGV, "--from", "hunter"),
    ):
        res = run(*argv, root=root)
        assert res.returncode == 0, (argv, res.stderr)
        assert_inert(res.stdout, f"{argv} stdout")
        assert_inert(res.stderr, f"{argv} stderr")
    lines = (root / ".teams" / TEAM / "hunter_inbox.jsonl").read_bytes().split(b"\n")[:-1]
    assert json.loads(lines[-1])["content"] == EVIL_ARGV  # the data is kept exactly
    for argv in (("tasks",), ("inbox", "hunter")):
        out = assert_inert(run(*argv, root=root).stdout, str(argv))
        assert "\\x1b]8;;http://evil\\x1b\\LINK" in out


@pytest.mark.parametrize(
    "argv",
    [
        ("team", "add", EVIL_ARGV),
        ("send", EVIL_ARGV, "hi"),
        ("send", "hunter", "hi", "--from", EVIL_ARGV),
        ("inbox", EVIL_ARGV),
        ("task", "claim", "--as", EVIL_ARGV),
        ("task", "complete", EVIL_ARGV),
        ("status", "--team", EVIL_ARGV),
        ("status", "--root", EVIL_ARGV),
    ],
    ids=lambda a: a[0] + "-" + ("opt" if a[-1] != EVIL_ARGV else "arg"),
)
def test_hostile_arguments_are_refused_with_one_inert_line(root: Path, argv: tuple[str, ...]) -> None:
    res = run(*argv, root=root)
    assert res.returncode in (1, 2)
    err = assert_inert(res.stderr, "stderr")
    assert_inert(res.stdout, "stdout")
    assert "Traceback" not in err and err.count("\n") == 1, err
