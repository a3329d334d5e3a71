"""The key bar: the screen's keys on one line, drawn from Textual's public bindings API.

Textual's Footer builds a widget per key on every focus change ("/" and escape each move the
focus): about 10 ms of a key press plus a relayout of the screen, and each rebuild left the old
keys alive. This bar is one line of text: a focus change that only makes some keys unusable
(the letter keys while the task filter is edited) dims them in place, same width, and a key it
has never shown only redraws the line."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from teamtui.tui.keys import described

# Keys left out of a narrow screen's bar (its keys would not all fit): still bound, and in the help.
WIDE_ONLY = {"overview"}
DIM = Style(dim=True)


@dataclass(frozen=True, slots=True)
class Slot:
    """One key as the bar shows it."""

    key: str  # what pressing it sends (the binding's first key, after the keymap)
    display: str  # how the key is written (the app's key display: "^p", "?")
    description: str
    action: str
    usable: bool  # usable now; otherwise dimmed in place (same width: nothing moves)


class KeyFooter(Widget):
    """The screen's keys, one per action, the command palette's at the right."""

    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
    }
    KeyFooter > .keybar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyFooter > .keybar--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    """
    COMPONENT_CLASSES = {"keybar--key", "keybar--description"}

    def __init__(self) -> None:
        super().__init__()
        self._slots: list[Slot] = []  # every key shown, in order: usable or dimmed
        self._palette: Slot | None = None
        self._spans: list[tuple[int, int, Slot]] = []  # where each key is on the line, for a click

    @property
    def slots(self) -> list[Slot]:
        """The keys on the bar now (the palette's last), usable or dimmed."""
        return [*self._slots, *([self._palette] if self._palette else [])]

    @property
    def drawn(self) -> list[tuple[int, int, Slot]]:
        """Where each key drawn on the line is (start and end column): a key that does not fit is not drawn."""
        return list(self._spans)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self._bindings_changed, self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self) -> None:
        self._bindings_changed(self.screen)  # across the narrow breakpoint the keys differ

    def _current(self, screen: Screen) -> tuple[list[Slot], Slot | None]:
        """The keys usable now, one per action, and the palette's key."""
        keys: list[Slot] = []
        actions: set[str] = set()
        palette = None
        narrow = screen.has_class("-narrow")
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if narrow and binding.id in WIDE_ONLY:
                continue
            said = described(self.app, binding.id, binding.description, how="narrow" if narrow else "bar")
            slot = Slot(binding.key, self.app.get_key_display(binding), said, binding.action, enabled)
            if binding.action == "command_palette":
                if self.app.ENABLE_COMMAND_PALETTE and not narrow:
                    palette = slot
            elif binding.show and binding.action not in actions:
                actions.add(binding.action)
                keys.append(slot)
        return keys, palette

    def _bindings_changed(self, screen: Screen) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        now, palette = self._current(screen)
        usable = {s.action: s for s in now}
        known = {s.action for s in self._slots}
        if usable.keys() <= known and all(s.action not in usable or usable[s.action].key == s.key for s in self._slots):
            # Only some keys became unusable (or usable again): dim them in place.
            slots = [
                usable.get(s.action) or Slot(s.key, s.display, s.description, s.action, False) for s in self._slots
            ]
        else:
            slots = now  # a key it never showed: the bar as the screen has it now
        if slots != self._slots or palette != self._palette:
            self._slots, self._palette = slots, palette
            self.refresh()

    def render(self) -> Text:
        key_style = self.get_component_rich_style("keybar--key")
        description_style = self.get_component_rich_style("keybar--description")
        narrow = self.screen.has_class("-narrow")
        line = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []

        def put(slot: Slot, key: str, description: str) -> None:
            start = line.cell_len
            off = DIM if not slot.usable else Style()
            line.append(key, key_style + off)
            line.append(description, description_style + off)
            self._spans.append((start, line.cell_len, slot))

        for slot in self._slots:
            pad = "" if narrow else " "
            key, description = f"{pad}{slot.display}{pad}", f"{' ' if narrow else ''}{slot.description} "
            if line.cell_len + len(key) + len(description) > self.size.width:
                break  # a key cut in half reads as another key: the rest are in the help
            put(slot, key, description)
        if self._palette is not None:
            right = f"{self._palette.display} {self._palette.description} "
            gap = self.size.width - line.cell_len - len(right)
            if gap > 0:
                line.append(" " * gap)
                put(self._palette, self._palette.display, f" {self._palette.description} ")
        return line

    def on_click(self, event: events.Click) -> None:
        for start, end, slot in self._spans:
            if start <= event.x < end:
                if slot.usable:
                    self.app.simulate_key(slot.key)  # as a key press: the focused widget's binding first
                else:
                    self.app.bell()  # a dimmed key does nothing now
                return
