from rich.console import Console

from teamtui.tui.safe import inert, safe_text


def render(text) -> str:
    c = Console(width=200, force_terminal=True, color_system="truecolor", record=True)
    with c.capture() as cap:
        c.print(text)
    return cap.get()


def test_markup_stays_literal():
    t = safe_text("[bold red]x[/]")
    assert t.plain == "[bold red]x[/]"
    assert not t.spans


def test_csi_osc52_osc8_and_bidi_become_visible_codes():
    s = "a\x1b[2Jb\x1b]52;c;ZXZpbA==\x07c\x1b]8;;http://evil\x1b\\link\u202edcba\x9bz\x00"
    plain = safe_text(s).plain
    assert "\x1b" not in plain and "\x07" not in plain and "\u202e" not in plain and "\x9b" not in plain
    assert "\\x1b[2J" in plain and "\\x1b]52;c;ZXZpbA==\\x07" in plain and "\\u202e" in plain and "\\x00" in plain
    # What reaches the terminal holds no escape introduced by the data.
    out = render(safe_text(s))
    assert "\x1b]52" not in out and "\x1b]8;;http" not in out and "\x1b[2J" not in out


def test_newlines_only_when_asked():
    assert inert("a\nb") == "a\\nb"
    assert inert("a\nb", newlines=True) == "a\nb"
    assert safe_text("tab\there").plain == "tab here"


def test_one_inert_for_every_layer():
    from teamtui.cli import common
    from teamtui.protocol import text
    from teamtui.tui import safe

    assert common.inert is text.inert and safe.inert is text.inert
    # What only the CLI's copy escaped before: lone surrogates, U+2028/U+2029, U+061C.
    s = safe_text("a\ud800b\u2028c\u2029d\u061ce").plain
    assert s == "a\\ud800b\\u2028c\\u2029d\\u061ce"
    s.encode("utf-8")
