"""The key bar: Textual's Footer, without rebuilding its keys on every focus change."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# Keys left out of a narrow screen's bar (its keys would not all fit): still bound, and in the help.
WIDE_ONLY = {"overview"}


class KeyFooter(Footer):
    """The dashboard's keys. Textual's Footer builds a new widget per key on every focus change
    ("/" and escape each move the focus), about 10 ms of a key press plus a relayout of the
    screen, and each rebuild leaves the old keys alive (its `data_bind` keeps them). The letter
    keys really are unavailable while the task filter is edited: this one dims them in place
    (same width, so no relayout), and rebuilds only for a key it has never shown. It has no
    groups of keys: the dashboard uses none."""

    def on_mount(self) -> None:
        self._composed: dict[str, tuple] = {}  # action -> (key, description, enabled, tooltip) of each key widget
        self._shown: tuple | None = None  # the actions available, in order
        self._narrow = self.screen.has_class("-narrow")  # the screen's breakpoint the keys were built for
        super().on_mount()

    def _keys(self, screen: Screen) -> list[tuple]:
        """(binding, enabled, tooltip) of each key to show, one per action, the palette's last."""
        keys, actions, palette = [], set(), None
        narrow = screen.has_class("-narrow")
        for _node, binding, enabled, tooltip in screen.active_bindings.values():
            if narrow and binding.id in WIDE_ONLY:
                continue
            if binding.action == "command_palette":
                if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:  # as Textual's Footer asks
                    palette = (binding, enabled, binding.tooltip or binding.description)
            elif binding.show and binding.action not in actions:
                actions.add(binding.action)
                keys.append((binding, enabled, tooltip))
        return keys + [palette] if palette else keys

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        keys = self._keys(self.screen)
        self._composed = {b.action: (b.key, b.description, enabled, tip) for b, enabled, tip in keys}
        self._shown = tuple(self._composed)
        self.styles.grid_size_columns = len(keys)
        for binding, enabled, tooltip in keys:
            palette = binding.action == "command_palette"
            key = FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,  # the keymap's display
                disabled=not enabled,
                tooltip=tooltip,
                classes="-command-palette" if palette else "",
            )
            if not palette:  # as Textual's Footer: the palette key keeps its own (compact) look
                key.set_reactive(FooterKey.compact, self.compact)  # before mount: no class flips, no restyles
            yield key

    def on_resize(self) -> None:
        # Across the narrow breakpoint the keys' padding changes (app.tcss), but a key keeps the
        # width it was laid out at: build the keys again, once the new styles are in.
        narrow = self.screen.has_class("-narrow")
        if narrow != self._narrow:
            self._narrow = narrow
            self.call_after_refresh(self.recompose)

    def bindings_changed(self, screen: Screen) -> None:
        # Unfocused (screen.app.app_focus), as with nothing to compare with: Textual's Footer redraws.
        if not (screen.app.app_focus and self.is_attached and screen is self.screen and self._composed):
            super().bindings_changed(screen)  # the first time, or nothing to compare with: Textual's way
            return
        keys = self._keys(screen)
        if any(self._composed.get(b.action) != (b.key, b.description, enabled, tip) for b, enabled, tip in keys):
            super().bindings_changed(screen)  # a key not built yet, or one that changed: rebuild
            return
        shown = tuple(b.action for b, _e, _t in keys)
        if shown != self._shown:
            self._shown = shown
            for key in self.query_children(FooterKey):
                off = key.action not in shown or not self._composed[key.action][2]
                if off != key.has_class("-disabled"):
                    key.set_class(off, "-disabled")  # Textual's look for a key that does nothing now
                    key._disabled = off  # ... and a click on it rings the bell instead of typing a letter
