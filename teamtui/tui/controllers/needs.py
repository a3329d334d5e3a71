"""What needs the person, on a team's dashboard: the strip's items (the team's own, and what the
room found for it: its hooks' requests, held tasks, teammates gone) and where choosing one leads:
the answering dialog (the room's), the changed file of a collision, or the request and its pane."""

from __future__ import annotations

from collections.abc import Callable

from teamtui.protocol.claude.transcripts import NeedsYou
from teamtui.session.items import Need
from teamtui.tui.controllers.panels import Panels
from teamtui.tui.controllers.team_screen import TeamScreen
from teamtui.tui.messages import AnswerRequested
from teamtui.tui.widgets.needs_you import NeedsYouStrip


class NeedsFlow:
    def __init__(self, screen: TeamScreen, panels: Panels, open_request: Callable[[NeedsYou], None]):
        self.screen = screen
        self.panels = panels
        self.open_request = open_request  # a request in full, then its pane (controllers/pane_jumps.py)

    def room_needs(self, needs: list[Need]) -> None:
        """The room's needs of this team: in the strip (redrawn only when they changed)."""
        screen = self.screen
        if needs == screen.room_needs:
            return  # the same (the room looks on every batch): nothing to redraw
        screen.room_needs = needs
        self.panels.redraw_needs()

    def answer(self) -> None:
        """`a`: answer the item highlighted in the strip (else the first that takes an answer)."""
        screen = self.screen
        strip = screen.query_one(NeedsYouStrip)
        by_key = {n.key: n for n in screen.room_needs}
        chosen = strip.highlighted_option.id if strip.highlighted_option is not None and strip.has_focus else None
        need = by_key.get(chosen or "") or next((by_key[i.key] for i in strip.items if i.key in by_key), None)
        if need is None:
            screen.notify("Nothing needs you.")
            return
        screen.post_message(AnswerRequested(need))

    def chosen(self, item: NeedsYou) -> None:
        """An item of the strip chosen (enter)."""
        screen = self.screen
        if item.kind in ("ask", "held", "disappeared"):  # the room's: answered in its dialog
            need = next((n for n in screen.room_needs if n.key == item.key), None)
            if need is not None:
                screen.post_message(AnswerRequested(need))
            return
        if item.kind == "collision":
            screen.action_changes(focus=item.key)  # the file, with both teammates' edits
            return
        self.panels.select(item.member)
        self.open_request(item)

    def go_to(self, member: str, kind: str) -> None:
        """Opened from the control room's "needs you": at that teammate, and where it waits."""
        screen = self.screen
        self.panels.select(member)
        item = next((i for i in screen.query_one(NeedsYouStrip).items if i.member == member and i.kind == kind), None)
        if kind == "collision":  # a git or declared one is the room's only: the view lists it too
            screen.action_changes(focus=item.key if item is not None else None)
        elif item is not None:
            self.open_request(item)

    def focus(self) -> None:
        strip = self.screen.query_one(NeedsYouStrip)
        if not strip.items:
            self.screen.notify("Nothing needs you.")
            return
        strip.focus()
