"""The first frame is drawn in the theme's colours, whatever order Textual's start-up events take.

A data binding starts a moment after its widget mounts; on Python 3.12+ the screen's own mount
runs first, and the header once drew with an empty palette and crashed ("bold  on ")."""

from __future__ import annotations

import pytest
from rich.color import Color
from textual.dom import DOMNode

from teamtui.tui.app import TeamTUI
from teamtui.tui.palette import Palette
from teamtui.tui.widgets.header import TeamHeader

from .conftest import SIZE, until


@pytest.fixture
def late_bindings(monkeypatch: pytest.MonkeyPatch):
    """Every data binding starts 0.3 s after its widget asks: the order 3.13 takes, made certain."""
    start = DOMNode._initialize_data_bind

    def later(node: DOMNode) -> None:
        node.set_timer(0.3, lambda: start(node))

    monkeypatch.setattr(DOMNode, "_initialize_data_bind", later)


async def test_the_header_draws_in_the_theme_before_its_binding_starts(frozen_native, config_file, late_bindings):
    app = TeamTUI.watching(frozen_native, None, None, config_path=config_file, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        header = app.dashboard.query_one(TeamHeader)
        await until(pilot, lambda: header._shown is not None, "the header drawn")
        badge = header._shown.get_style_at_offset(app.console, 1)
        assert badge.bgcolor == Color.parse(app.current_theme.primary)
        # Once the binding has started, a new theme still reaches the panels.
        await pilot.pause(0.4)
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await until(pilot, lambda: header.palette.theme == app.theme, "the new theme reached the header")


def test_a_palette_without_a_role_gives_a_colour_rich_can_parse():
    from rich.style import Style

    assert Style.parse(f"bold {Palette().theme_color('background')} on {Palette().theme_color('primary')}")


def test_every_teammate_colour_parses_under_a_theme_without_a_teammates_table():
    from rich.color import Color as RichColor
    from textual.theme import BUILTIN_THEMES

    from teamtui.protocol.colors import TEAMMATE_COLORS

    palette = Palette.of(BUILTIN_THEMES["nord"], {})
    for name in TEAMMATE_COLORS:
        RichColor.parse(palette.teammate_color(name, "x"))  # raises on a colour Rich does not know
