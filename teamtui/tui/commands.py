"""The one command palette provider: the team's actions, the control room's, and every theme."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Protocol, cast

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from teamtui.tui.keys import ROOM_HELP, action_keys, key_label, user_keymap


class _Controls(Protocol):
    """What the palette offers of the app (TeamTUI): named here, not imported (the app imports this)."""

    dashboard: Any
    overview: Any  # the control room's screen (FleetScreen)
    BINDINGS: list[object]

    def theme_names(self) -> list[str]: ...
    def switch_theme(self, name: str) -> None: ...
    def run_action(self, action: str) -> object: ...


class TeamCommands(Provider):
    def _commands(self) -> Iterator[tuple[str, Callable[[], object], str]]:
        app = cast(_Controls, self.app)
        keymap = user_keymap(self.app)
        dashboard = app.dashboard  # the palette may open over a dialog: the actions are the dashboard's
        if dashboard is not None:  # None: only the control room has been shown yet
            for key, desc, bid in action_keys(self.app):
                yield f"{desc}", partial(dashboard.run_action, dashboard.ACTION_OF[bid]), f"{key_label(key)} · {bid}"
        on_team = type(self.screen).__name__ == "DashboardScreen"  # escape's "back" means nothing elsewhere
        for b in app.BINDINGS:
            if isinstance(b, Binding) and b.id in ROOM_HELP and (on_team or b.id != "overview"):
                key = key_label(keymap.get(b.id, b.key))
                yield ROOM_HELP[b.id], partial(app.run_action, b.action), f"{key} · {b.id}"
        room = app.overview
        search = key_label(keymap.get("search", "slash"))
        yield ROOM_HELP["search"], room.action_search, f"{search} on the control room · search"
        yield ROOM_HELP["cost"], room.say_cost, "today's spend and each team's, as the control room has them"
        for name in app.theme_names():
            yield f"Theme: {name}", partial(app.switch_theme, name), "switch theme and remember it"

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
