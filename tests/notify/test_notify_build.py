"""build_notifier: the channels the [notify] settings turn on, for the terminal teamtui runs in."""

from __future__ import annotations

from teamtui.notify import CommandSink, TerminalSink, build_notifier
from teamtui.protocol.settings import NotifySettings

OUTSIDE_TMUX = {"TERM": "xterm-256color", "PATH": "/usr/bin:/bin"}


def test_defaults_ring_and_show_a_desktop_notification_and_run_no_command() -> None:
    written: list[str] = []
    n = build_notifier(NotifySettings(), written.append, env=OUTSIDE_TMUX)
    assert len(n.sinks) == 1 and isinstance(n.sinks[0], TerminalSink)
    sink = n.sinks[0]
    assert (sink.bell, sink.desktop, sink.in_tmux, sink.passthrough, sink.codes) == (True, True, False, False, (9, 777))


def test_the_terminal_picks_the_osc_unless_the_settings_name_one() -> None:
    ghostty = {**OUTSIDE_TMUX, "TERM_PROGRAM": "ghostty"}
    sink = build_notifier(NotifySettings(), print, env=ghostty).sinks[0]
    assert isinstance(sink, TerminalSink) and sink.codes == (777,)
    sink = build_notifier(NotifySettings(desktop_osc=[9]), print, env=ghostty).sinks[0]
    assert isinstance(sink, TerminalSink) and sink.codes == (9,)


def test_a_command_and_no_terminal_channel() -> None:
    n = build_notifier(
        NotifySettings(bell=False, desktop=False, command=["notify-send", "teamtui"], command_timeout=3),
        print,
        env=OUTSIDE_TMUX,
    )
    assert len(n.sinks) == 1 and isinstance(n.sinks[0], CommandSink)
    assert n.sinks[0].argv == ("notify-send", "teamtui") and n.sinks[0].timeout == 3
    n.close()
