"""The one command palette provider: every dashboard action and every theme."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from teamtui.tui.keys import key_label


class _Controls(Protocol):
    """What the palette offers of the app (TeamTUI): named here, not imported (the app imports this)."""

    dashboard: Any

    def theme_names(self) -> list[str]: ...
    def switch_theme(self, name: str) -> None: ...


class TeamCommands(Provider):
    def _commands(self) -> Iterator[tuple[str, Callable[[], Any], str]]:
        app = cast(_Controls, self.app)
        dashboard = app.dashboard  # the palette may open over a dialog: the actions are the dashboard's
        for key, desc, bid in dashboard.action_keys():
            yield f"{desc}", partial(dashboard.run_action, dashboard.ACTION_OF[bid]), f"{key_label(key)} · {bid}"
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
