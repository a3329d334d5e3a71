"""The "Needs you" strip: what waits for a person (a permission or plan request, a teammate
interrupted or failed, a silent task owner, two teammates on one file), one line each, above the panels; hidden when empty.
`enter` on a line posts `NeedsYouStrip.Chosen`: the dashboard takes the person there."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from teamtui.protocol.claude.transcripts import NeedsYou
from teamtui.tui.format import short_ago
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.painted import Painted

_ICON = {
    "permission": "?",
    "plan": "?",
    "interrupted": "!",
    "failed": "✗",
    "silent": "…",
    "collision": "⇄",
    "ask": "?",
    "waiting": "…",
    "held": "⏸",
    "disappeared": "⚠",
    "lead_ended": "✗",
}
_HINT = {
    "ask": "a: answer (allow, deny …)",
    "waiting": "enter: its pane",
    "held": "a: retry or block",
    "disappeared": "a: release its tasks",
    "permission": "enter: full request",
    "plan": "enter: full plan",
    "interrupted": "enter: its pane",
    "failed": "enter: its pane",
    "silent": "enter: its pane",
    "collision": "enter: the file's changes",
}


class NeedsYouStrip(OptionList, Painted):
    # At most four lines show at once; the rest scroll.
    DEFAULT_CSS = """
    NeedsYouStrip {
        display: none;
        height: auto;
        max-height: 4;
        border: none;
        padding: 0 1;
        background: $surface;
        text-wrap: nowrap;  /* one line each, cut at the right: the hint goes first */
        text-overflow: ellipsis;
    }
    NeedsYouStrip:focus {
        background-tint: $accent 10%;
    }
    """

    @dataclass
    class Chosen(Message):
        """Enter on an item."""

        item: NeedsYou

    def __init__(self, **kw):
        super().__init__(**kw)
        self.items: list[NeedsYou] = []
        self._shown: tuple | None = None  # what is drawn, to skip an unchanged redraw

    def show(self, items: list[NeedsYou], now: float, color: Callable[[str], str] | None = None) -> None:
        """Show `items` (hidden when there are none); an unchanged list redraws nothing."""
        sig = (self.palette.theme, tuple((i.key, i.text, short_ago(i.since, now)) for i in items))
        if sig == self._shown:
            return
        self._shown = sig
        keep = self.highlighted_option.id if self.highlighted_option is not None else None
        self.items = list(items)
        self.clear_options()
        self.add_options([Option(self._line(i, now, color), id=i.key) for i in items])
        if items:  # the same item stays highlighted, else the first: enter always has one
            self.highlighted = self.get_option_index(keep) if keep in {i.key for i in items} else 0
        self.display = bool(items)

    def _line(self, item: NeedsYou, now: float, color: Callable[[str], str] | None) -> Text:
        palette = self.palette
        role = "error" if item.kind in ("failed", "silent", "disappeared", "lead_ended") else "warning"
        t = Text(f"{_ICON.get(item.kind, '!')} ", style=f"bold {palette.theme_color(role)}")
        t.append("needs you ", style="bold")
        t.append_text(safe_text(item.text, color(item.member) if color else ""))
        if item.since:
            t.append(f" · {short_ago(item.since, now)} ago", style=palette.theme_color("secondary"))
        t.append(f"  {_HINT.get(item.kind, '')}", style=f"dim {palette.theme_color('secondary')}")
        t.no_wrap = True
        t.overflow = "ellipsis"
        return t

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        item = next((i for i in self.items if i.key == event.option.id), None)
        if item is not None:
            self.post_message(self.Chosen(item))
