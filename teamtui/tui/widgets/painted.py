"""Painted: a widget drawn in the dashboard's palette (the screen hands each one its palette)."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widget import Widget

from teamtui.tui.palette import Palette


class Painted(Widget):
    """A widget with a `palette`, set by its screen (a mixin: `class X(Static, Painted)`).

    The screen sets it on every painted widget at once, typed: no widget asks the app for a
    colour, and the screen needs no knowledge of each widget's class."""

    palette: reactive[Palette] = reactive(Palette, init=False)
