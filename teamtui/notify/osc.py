"""The bytes that make a terminal ring or show a desktop notification, and tmux's passthrough."""

from __future__ import annotations

from collections.abc import Mapping

BEL = "\a"
ESC = "\x1b"
# The OSC codes a terminal may show a notification for.
OSC_9 = 9  # iTerm2's: one line of text
OSC_777 = 777  # rxvt-unicode's `notify`: a title and a body
DESKTOP_CODES = (OSC_9, OSC_777)


def osc9(message: str) -> str:
    """ESC ] 9 ; message BEL. `message` must be plain text (notify.text.plain): it must not
    start with a digit and ';' either, which ConEmu and Windows Terminal read as a command."""
    return f"{ESC}]9;{message}{BEL}"


def osc777(title: str, body: str) -> str:
    """ESC ] 777 ; notify ; title ; body BEL. A ';' in the title would move the body's start."""
    return f"{ESC}]777;notify;{title.replace(';', ',')};{body}{BEL}"


def tmux_passthrough(sequence: str) -> str:
    """`sequence` wrapped so tmux hands it to the terminal outside: ESC P tmux; ... ESC \\,
    with every ESC inside doubled (tmux only passes it on when allow-passthrough is on)."""
    return f"{ESC}Ptmux;{sequence.replace(ESC, ESC + ESC)}{ESC}\\"


# Terminals known to show both OSC 9 and OSC 777 (WezTerm's and Ghostty's documentation): one
# is enough, and 777 carries a title. iTerm2 shows OSC 9; foot and rxvt-unicode only know 777.
_ONLY_9_BY_PROGRAM = ("iTerm.app",)
_ONLY_777_BY_PROGRAM = ("WezTerm", "ghostty")
_ONLY_777_BY_TERM = ("xterm-ghostty", "foot", "rxvt-unicode")


def desktop_codes_for(env: Mapping[str, str]) -> tuple[int, ...]:
    """Which OSC codes to send to the terminal `env` names: the one it reads when it is known
    (two would show two notifications), both when it is not (e.g. inside tmux, over ssh)."""
    program = env.get("TERM_PROGRAM", "")
    if program in _ONLY_9_BY_PROGRAM:
        return (OSC_9,)
    if program in _ONLY_777_BY_PROGRAM or env.get("TERM", "").startswith(_ONLY_777_BY_TERM):
        return (OSC_777,)
    return DESKTOP_CODES
