"""What reaches the terminal: the exact OSC 9 / OSC 777 bytes, tmux's wrapping, and hostile team
data (escapes, markup, newlines, 100 KB) made inert and bounded before it gets there."""

from __future__ import annotations

import json
import re

from teamtui.notify import NotifyEvent, NotifyKind, TerminalSink
from teamtui.notify.osc import desktop_codes_for, osc9, osc777, tmux_passthrough
from teamtui.notify.text import MAX_MESSAGE, MAX_NAME, MAX_TEXT, plain
from teamtui.notify.tmux import tmux_message

HOSTILE = (
    "\x1b]0;pwned\x07\x1b[2J\x1bP+q\x1b\\[bold red]boom[/] #(touch /tmp/x) #{pane_id}\n"
    "second line\r\x9c\u202eevil\u2028\ud800;" + "A" * 100_000
)
# Everything a terminal could act on inside an OSC string: C0, DEL, C1 (0x9c ends an OSC too).
CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\ud800-\udfff]")


def _sink(**kw: object) -> TerminalSink:
    out: list[str] = []
    return TerminalSink(out.append, codes=(9, 777), **kw)  # type: ignore[arg-type]


def test_the_sequences_byte_for_byte() -> None:
    assert osc9("hi there") == "\x1b]9;hi there\x07"
    assert osc777("t;i", "b;ody") == "\x1b]777;notify;t,i;b;ody\x07"
    assert tmux_passthrough("\x1b]9;x\x07") == "\x1bPtmux;\x1b\x1b]9;x\x07\x1b\\"


def test_an_event_as_bell_osc9_and_osc777() -> None:
    e = NotifyEvent(NotifyKind.TEAMMATE_CRASHED, "alpha", "bob exited with 1", host="", at=5.0)
    assert _sink().sequences(e) == (
        "\x07"
        "\x1b]9;teamtui: alpha: teammate crashed: bob exited with 1\x07"
        "\x1b]777;notify;teamtui: alpha;teammate crashed: bob exited with 1\x07"
    )
    assert _sink(bell=False, desktop=True).sequences(e).startswith("\x1b]9;")
    assert _sink(bell=True, desktop=False).sequences(e) == "\x07"


def test_a_remote_host_is_named_and_the_local_one_is_not() -> None:
    remote = NotifyEvent(NotifyKind.TEAM_FINISHED, "alpha", host="build-box")
    assert remote.headline() == ("teamtui: alpha on build-box", "finished")
    assert NotifyEvent(NotifyKind.TEAM_FINISHED, "alpha").headline() == ("teamtui: alpha", "finished")


def test_inside_tmux_with_passthrough_every_sequence_is_wrapped() -> None:
    e = NotifyEvent(NotifyKind.NEEDS_YOU, "alpha", "q", host="")
    wrapped = _sink(in_tmux=True, passthrough=True).sequences(e)
    assert wrapped == (
        "\x07"
        "\x1bPtmux;\x1b\x1b]9;teamtui: alpha: needs you: q\x07\x1b\\"
        "\x1bPtmux;\x1b\x1b]777;notify;teamtui: alpha;needs you: q\x07\x1b\\"
    )


def test_inside_tmux_without_passthrough_the_text_goes_to_tmux_and_only_the_bell_is_written() -> None:
    shown: list[str] = []
    written: list[str] = []
    sink = TerminalSink(written.append, in_tmux=True, passthrough=False, display=shown.append)
    sink.send(NotifyEvent(NotifyKind.LEAD_ENDED, "alpha", "2 teammates working", host=""))
    assert written == ["\x07"]
    assert shown == ["teamtui: alpha: lead ended with teammates still working: 2 teammates working"]


def test_hostile_text_is_inert_and_bounded_in_every_sequence() -> None:
    e = NotifyEvent(NotifyKind.NEEDS_YOU, "team\x1b]2;x\x07;\nname" + "T" * 5000, HOSTILE, host="h\x1b[1m")
    for kw in ({}, {"in_tmux": True, "passthrough": True}):
        data = _sink(**kw).sequences(e)
        # Only the bell and the sequences' own framing are controls: the data adds none.
        frames = re.sub(r"\x1bPtmux;|\x1b\\", "", data).replace("\x1b\x1b", "\x1b")
        assert frames.count("\x1b") == 2 and frames.count("\x07") == 3, repr(frames[:200])
        assert frames.startswith("\x07\x1b]9;teamtui: ") and "\x1b]777;notify;teamtui: " in frames
        inner = frames.replace("\x1b]9;", "").replace("\x1b]777;notify;", "").replace("\x07", "")
        assert CONTROLS.search(inner) is None
        # Bounded: a notification line, not 100 KB.
        assert len(data) < 2 * (MAX_MESSAGE + 2 * MAX_NAME + MAX_TEXT)
        # Escapes show as visible codes; markup is left as literal text (no terminal reads it).
        assert "\\x1b]0;pwned\\x07" in inner and "[bold red]boom[/]" in inner
        # The OSC 777 title carries no ';' of the team's: the body's start cannot move.
        title = frames.split("\x1b]777;notify;", 1)[1].split(";", 1)[0]
        assert title.startswith("teamtui: team\\x1b]2,x\\x07,") and ";" not in title


def test_plain_text() -> None:
    assert plain("a\n\tb\r\nc", 50) == "a b c"
    assert plain("x" * 10, 10) == "x" * 10
    assert plain("x" * 11, 10) == "x" * 9 + "…"
    assert plain("\x1b[31m" * 1000, 30) == ("\\x1b[31m" * 4)[:29] + "…"
    once = plain(HOSTILE, MAX_TEXT)
    assert len(once) == MAX_TEXT and plain(once, MAX_TEXT) == once  # idempotent


def test_the_command_json_of_a_hostile_event_is_one_clean_line() -> None:
    line = NotifyEvent(NotifyKind.NEEDS_YOU, "t\nx", HOSTILE, host="h", at=12.5).cleaned().to_json()
    assert line.endswith("\n") and line.count("\n") == 1
    record = json.loads(line)
    assert list(record) == ["kind", "team", "host", "text", "at"]
    assert record["kind"] == "needs_you" and record["team"] == "t x" and record["at"] == 12.5
    assert CONTROLS.search(record["text"]) is None and len(record["text"]) == MAX_TEXT


def test_tmux_message_text_is_literal_for_display_message() -> None:
    assert tmux_message("a #(rm -rf ~) #{pane_id} #[fg=red]") == "a ##(rm -rf ~) ##{pane_id} ##[fg=red]"
    assert tmux_message("ends with;") == "ends with; "  # a trailing ';' would end tmux's command
    assert len(tmux_message("#" * 1000)) <= 2 * MAX_MESSAGE


def test_which_osc_codes_a_terminal_gets() -> None:
    assert desktop_codes_for({"TERM_PROGRAM": "iTerm.app"}) == (9,)
    assert desktop_codes_for({"TERM_PROGRAM": "WezTerm"}) == (777,)
    assert desktop_codes_for({"TERM": "xterm-ghostty"}) == (777,)
    assert desktop_codes_for({"TERM": "foot"}) == (777,)
    assert desktop_codes_for({"TERM": "rxvt-unicode-256color"}) == (777,)
    assert desktop_codes_for({"TERM": "xterm-256color"}) == (9, 777)
    assert desktop_codes_for({"TERM_PROGRAM": "tmux", "TERM": "tmux-256color"}) == (9, 777)
