"""The views a team's dashboard opens over itself: what each teammate changed, the team's
timeline, a task's detail, the help, and the item a search hit names. Each is a screen of its
own (tui/screens/); this is only where the dashboard opens them, and what it keeps of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

from teamtui.tui.controllers.panels import Panels
from teamtui.tui.controllers.team_screen import TeamScreen
from teamtui.tui.keys import DASHBOARD_KEYS, ROOM_HELP, config_of, unlisted_keys, user_keymap

if TYPE_CHECKING:
    from teamtui.protocol.history.search import SearchHit
    from teamtui.tui.screens.changes import ChangesScreen


class Views:
    def __init__(self, screen: TeamScreen, panels: Panels):
        self.screen = screen
        self.panels = panels
        self.changes_view: ChangesScreen | None = None  # the ChangesScreen open over the dashboard, told of each batch

    def changes(self, focus: str | None = None) -> None:
        """What each teammate changed (screens/changes.py), over the dashboard until escape; the
        needs strip again once it is gone (a collision dismissed there leaves it)."""
        from teamtui.tui.screens.changes import ChangesScreen

        screen = self.screen
        if screen.session is None or not screen.is_active:
            return
        view = ChangesScreen(
            screen.session, screen.palette, clock=screen.now, focus=focus, dark=screen.app.current_theme.dark
        )
        self.changes_view = view

        def gone(_: object) -> None:
            if self.changes_view is view:
                self.changes_view = None
            if screen.session is not None and screen.session.state.transcripts is not None:
                self.panels.redraw_needs()

        screen.app.push_screen(view, gone)

    def timeline(self) -> None:
        from teamtui.tui.screens.timeline import TimelineScreen, session_history

        screen = self.screen
        if screen.session is not None:
            screen.app.push_screen(TimelineScreen(screen.session.name, session_history(screen.session), screen.palette))

    def task(self, task_id: str) -> None:
        from teamtui.tui.screens.task_detail import TaskDetail

        session = self.screen.session
        if session is not None and task_id in session.state.board.tasks:
            self.screen.app.push_screen(TaskDetail(session.state.board, task_id, self.screen.palette))

    def hit(self, hit: SearchHit) -> None:
        """A search hit's item, where the dashboard has a view of it (a task's detail, a changed
        file's diff); its teammate is selected by the caller."""
        if hit.kind == "task":
            self.task(hit.ref)
        elif hit.kind == "change":
            from teamtui.tui.screens.changes import SEP

            self.changes(focus=f"f{SEP}{hit.who}{SEP}{hit.text}{SEP}seen")

    def help(self, keys: list[tuple[str, str, str]]) -> None:
        """The keys of the dashboard (`keys`) and the app's (they work here too), as remapped."""
        from teamtui.tui.screens.help import HelpScreen

        app = self.screen.app
        keymap = user_keymap(app)
        listed = {bid for _key, _desc, bid in keys}
        # The app's ctrl+c is the dashboard's own (one line for it): it is bound there for the dialogs.
        app_keys = [b for b in app.BINDINGS if isinstance(b, Binding) and b.id not in listed]
        keys = keys + [
            (keymap.get(b.id or "", b.key), ROOM_HELP.get(b.id or "", b.description), b.id or "") for b in app_keys
        ]
        unlisted = unlisted_keys([*DASHBOARD_KEYS, *app_keys], keymap, leave_out={"interrupt"})
        app.push_screen(HelpScreen(keys, config_of(app), self.screen.palette, unlisted))
