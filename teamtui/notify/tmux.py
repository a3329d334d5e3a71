"""tmux between teamtui and the terminal: whether it passes escape sequences on, and its message line."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping

from teamtui.notify.problems import Problem
from teamtui.notify.proc import CommandQueue
from teamtui.notify.text import bounded
from teamtui.tmux.server import socket_from_env

TMUX_TIMEOUT = 5.0  # seconds; a tmux call is milliseconds unless the server hangs


def _tmux_argv(env: Mapping[str, str]) -> list[str] | None:
    """`tmux -S SOCKET` for the server in $TMUX, or None outside tmux."""
    socket = socket_from_env(env)
    return ["tmux", "-S", socket] if socket else None


def _pane_target(env: Mapping[str, str]) -> list[str]:
    pane = env.get("TMUX_PANE", "")
    return ["-t", pane] if pane else []


def allows_passthrough(env: Mapping[str, str] | None = None, timeout: float = TMUX_TIMEOUT) -> bool:
    """Whether tmux hands this pane's `ESC P tmux; ... ESC \\` on to the terminal outside.

    Asked as the format `#{allow-passthrough}` of our pane rather than `show -gv`: a format
    resolves the option as tmux will (the pane's own value, else the window's, else the
    global one). It reads 1/0 (tmux 3.3) or on/all/off (3.4+); tmux before 3.3 has no such
    option (the format is empty) and always passed sequences on. Blocks up to `timeout`."""
    env = os.environ if env is None else env
    tmux = _tmux_argv(env)
    if tmux is None or shutil.which("tmux") is None:
        return False
    try:
        out = subprocess.run(
            [*tmux, "display-message", "-p", *_pane_target(env), "#{allow-passthrough}"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    value = out.stdout.strip()
    return out.returncode == 0 and value in ("", "1", "on", "all")


def tmux_message(text: str) -> str:
    """Plain text as display-message's argument, shown literally: it expands its argument as a
    format ('#(cmd)' would run a command, '#{...}' expand; '##' is one '#'), and a trailing ';'
    would end the tmux command."""
    message = bounded(text).replace("#", "##")
    return message + " " if message.endswith(";") else message


class TmuxDisplay:
    """Shows a notification on tmux's message line (display-message), from a thread of its own:
    the caller never waits for tmux. Failures go to `on_problem` once."""

    def __init__(
        self, env: Mapping[str, str] | None = None, on_problem: Problem | None = None, timeout: float = TMUX_TIMEOUT
    ) -> None:
        env = dict(os.environ if env is None else env)
        self._argv = _tmux_argv(env)
        self._target = _pane_target(env)
        self._queue = CommandQueue(
            "teamtui-notify-tmux", "tmux message", timeout, on_problem, label="tmux display-message"
        )

    def __call__(self, text: str) -> None:
        if self._argv is not None:
            self._queue.submit([*self._argv, "display-message", *self._target, "--", tmux_message(text)])

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._queue.wait_idle(timeout)

    def close(self) -> None:
        self._queue.close()
