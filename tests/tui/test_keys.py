"""Keys as a person meets them: the help screen shows them as typed, under a header for each
column; its remap example works when copied into config.toml; a remap to a key the terminal sends as
another (ctrl+m is enter) is refused with a config problem, not left to break messaging."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Static

from teamtui.tui.app import TeamTUI
from teamtui.tui.keys import key_label
from teamtui.tui.widgets.filter import FilterInput
from teamtui.tui.widgets.footer import KeyFooter

from .conftest import SIZE, help_rows, make


async def _help_text(app: TeamTUI, pilot) -> str:
    await pilot.press("question_mark")
    assert type(app.screen).__name__ == "HelpScreen"
    return "\n".join(str(w.content) for w in app.screen.query("#help Static").results(Static))


async def test_the_help_shows_keys_as_typed_under_a_header(frozen_native: Path, config_file: Path) -> None:
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = {k.description: k.display for k in app.screen.query_one(KeyFooter).slots}
        text = await _help_text(app, pilot)
        rows = help_rows(app.screen)
    assert footer["Filter"] == "/" and footer["Help"] == "?"  # the footer, as the help
    assert rows["In [keymap]"] == ["Key", "Action", "In [keymap]"]  # every column has a header
    assert rows["filter_tasks"][0] == "/" and rows["help"][0] == "?"
    assert rows["focus_teammate"][0] == "enter" and rows["interrupt"][0] == "ctrl+c"
    assert "slash" not in text and "question_mark" not in text


async def test_the_helps_remap_example_works_when_copied(frozen_native: Path, config_file: Path) -> None:
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        text = await _help_text(app, pilot)
    example = re.search(r'e\.g\. (\w+ = "[^"]+")', text)
    assert example, text
    binding, key = example.group(1).split(" = ")
    assert binding == "filter_tasks", "the test presses the example's key and looks for the filter"
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(f"[keymap]\n{example.group(1)}\n")
    again = make(frozen_native, config_file)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press(key.strip('"'))
        assert isinstance(again.focused, FilterInput)
        assert not again._notifications, [str(n.message) for n in again._notifications]
        await pilot.press(*"review")
        assert again.dashboard.query_one(FilterInput).value == "review"


async def test_a_key_the_terminal_sends_as_another_is_refused(frozen_native: Path, config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('[keymap]\nmessage = "ctrl+m"\nbroadcast = "w"\n')
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert any(
            'message = "ctrl+m" is ignored: a terminal sends ctrl+m as enter' in s and str(config_file) in s
            for s in said
        ), said
        # Enter still focuses the teammate; m still writes a message, and its enter sends it.
        await pilot.press("enter")
        assert type(app.screen).__name__ == "DashboardScreen"
        await pilot.press("m", *"hello", "enter")
        assert type(app.screen).__name__ == "DashboardScreen"
        assert any("Message written to hunter" in str(n.message) for n in app._notifications)
        await pilot.press("w")  # the rest of the keymap is kept
        assert type(app.screen).__name__ == "MessageModal"


def test_key_labels_are_what_a_person_types() -> None:
    assert key_label("slash") == "/"
    assert key_label("question_mark") == "?"
    assert key_label("right_square_bracket,left_square_bracket") == "] / ["
    assert key_label("ctrl+c") == "ctrl+c"
    assert key_label("escape") == "escape" and key_label("enter") == "enter" and key_label("space") == "space"
    assert key_label("ctrl+slash") == "ctrl+/"


async def test_a_click_on_a_key_of_the_bar_presses_it(frozen_native, config_file):
    app = make(frozen_native, config_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyFooter)
        start = next(start for start, _end, k in bar.drawn if k.action == "help")
        await pilot.click(KeyFooter, offset=(start + 1, 0))
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
