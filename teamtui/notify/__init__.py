"""Notifications: telling a person that a team needs them, through the terminal's bell, a desktop
notification the terminal shows (OSC 9 / OSC 777, or tmux's message line) and a command of their own.

No Textual here: the app hands a `write` for terminal bytes (its driver's) to `build_notifier`.
"""

from teamtui.notify.build import build_notifier
from teamtui.notify.command import CommandSink
from teamtui.notify.events import NotifyEvent, NotifyKind
from teamtui.notify.notifier import Notifier, Sink
from teamtui.notify.terminal import TerminalSink
from teamtui.notify.tmux import TmuxDisplay, allows_passthrough

__all__ = [
    "CommandSink",
    "Notifier",
    "NotifyEvent",
    "NotifyKind",
    "Sink",
    "TerminalSink",
    "TmuxDisplay",
    "allows_passthrough",
    "build_notifier",
]
