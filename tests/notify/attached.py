"""The attached tmux of conftest.py: a server on a private socket and a client on a pseudo-terminal."""

from __future__ import annotations

import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.corpus.ptyrun import PtyProcess

REPO = Path(__file__).resolve().parents[2]


@dataclass
class AttachedTmux:
    socket: str
    client: PtyProcess  # `tmux attach` on a pseudo-terminal: its output is the terminal's input

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=10, check=True)
        return out.stdout

    def python_window(self, script: Path, *args: str) -> None:
        """Run `python SCRIPT ARGS` in a new window, which becomes the one the client shows."""
        command = shlex.join([sys.executable, str(script), *args])
        self.run("new-window", "-e", f"PYTHONPATH={REPO}", command)
