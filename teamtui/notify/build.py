"""A Notifier from the user's [notify] settings and the terminal teamtui runs in."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from teamtui.notify.command import CommandSink
from teamtui.notify.notifier import Notifier, Sink
from teamtui.notify.osc import desktop_codes_for
from teamtui.notify.problems import Problem
from teamtui.notify.terminal import TerminalSink
from teamtui.notify.tmux import TmuxDisplay, allows_passthrough
from teamtui.protocol.settings import NotifySettings
from teamtui.tmux.server import socket_from_env


def build_notifier(
    settings: NotifySettings,
    write: Callable[[str], None],
    *,
    on_problem: Problem | None = None,
    env: Mapping[str, str] | None = None,
    clock: Callable[[], float] = time.time,
) -> Notifier:
    """The channels `settings` turn on: the bell and the desktop notification written with
    `write`, and the user's command. Inside tmux it asks tmux once whether passthrough is on
    (a subprocess of a few milliseconds, up to 5 s when tmux hangs): call it off the UI loop."""
    env = os.environ if env is None else env
    sinks: list[Sink] = []
    if settings.bell or settings.desktop:
        in_tmux = socket_from_env(env) is not None
        passthrough = in_tmux and settings.desktop and allows_passthrough(env)
        display = TmuxDisplay(env, on_problem) if in_tmux and settings.desktop and not passthrough else None
        codes = tuple(settings.desktop_osc) or desktop_codes_for(env)
        sinks.append(
            TerminalSink(
                write,
                in_tmux=in_tmux,
                passthrough=passthrough,
                bell=settings.bell,
                desktop=settings.desktop,
                codes=codes,
                display=display,
            )
        )
    if settings.command:
        sinks.append(CommandSink(settings.command, timeout=settings.command_timeout, on_problem=on_problem))
    return Notifier(sinks, clock=clock, on_problem=on_problem)
