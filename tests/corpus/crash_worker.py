"""A process that writes through teamtui as fast as it can until it is SIGKILLed (crash-safety trials).

Usage: crash_worker.py NATIVE_ROOT CLAUDE_ROOT READY_FILE SEED
Each step is one of: the CLI's send / task create / claim / complete / team add / log (through the
CLI's main(), in this process), or a library writer (drain, update_member, claude send, ...)."""

from __future__ import annotations

import contextlib
import io
import random
import sys
from pathlib import Path

from teamtui.cli import main
from teamtui.protocol import ClaudeTeam, NativeTeam
from teamtui.protocol.errors import ProtocolError

TEAM = "refactor-auth"


def run() -> None:
    native_root, claude_root, ready, seed = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    store = NativeTeam(Path(native_root), TEAM)
    claude = ClaudeTeam(Path(claude_root), "work-team")
    r = ["--root", native_root]
    n = 0

    def cli(*argv: str) -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main([*argv, *r])

    ops = [
        lambda: cli("send", rng.choice(["hunter", "scout", "lead"]), f"msg {n} " + "x" * rng.randint(0, 3000)),
        lambda: cli("task", "create", f"task {n}", "--files", f"f{n % 7}"),
        lambda: cli("task", "claim", "--as", rng.choice(["hunter", "scout"])),
        lambda: cli("task", "complete", str(rng.randint(1, 12))),
        lambda: cli("team", "add", f"m{seed}-{n}"),
        lambda: cli("log", "hunter", f"line {n}"),
        lambda: store.drain("scout"),
        lambda: store.update_member("hunter", status=rng.choice(["active", "idle"]), last_seen=float(n)),
        lambda: store.update_task(str(rng.randint(1, 5)), result=f"r{n}"),
        lambda: store.release_owner("scout"),
        lambda: claude.send("writer", f"c{n}", "teamtui"),
    ]
    ready.write_text("ready")
    while True:
        n += 1
        try:
            rng.choice(ops)()
        except (ProtocolError, SystemExit):
            pass


if __name__ == "__main__":
    run()
