"""The panes on the dashboard: teamtui's own `follow` panes beside it (kept in step with the
team, within the pane budget) and jumps to the team's own panes (a teammate's, or the lead's,
where a request waits for a person)."""

from __future__ import annotations

from teamtui.protocol.claude.transcripts import NeedsYou
from teamtui.tmux.api import PaneNews, TeammatePanes
from teamtui.tmux.commands import follow_command, pane_specs
from teamtui.tui.controllers.team_screen import TeamScreen, toast


class PaneJumps:
    def __init__(self, screen: TeamScreen, panes: TeammatePanes, sync: bool):
        self.screen = screen
        self.panes = panes
        self.sync_enabled = sync  # off in tests and screenshots that must not touch tmux

    def sync(self) -> None:
        """teamtui's panes after a change of members: one per teammate, as far as the budget goes."""
        session = self.screen.session
        if not self.sync_enabled or not self.panes.active or session is None or not self.screen.is_current:
            return  # a team not on screen (the fleet keeps several) leaves the panes to the one that is
        follow = session.actions.panes.follow if session.actions.panes is not None else None
        if follow is None:
            return  # `teamtui follow` here cannot follow another machine's files
        root, team = follow
        try:
            self.panes.sync(pane_specs(session.state, lambda name: follow_command(name, root, team), self.screen.now()))
        except Exception as exc:  # noqa: BLE001 - panes are a convenience: report, keep the dashboard
            self.screen.notify(f"Panes: {exc}", severity="warning", markup=False)

    def news(self, news: PaneNews) -> bool:
        """What the panes' thread said; True when the teammates waiting for a pane changed."""
        screen = self.screen
        if news.problem:
            toast(screen, "Panes: ", news.problem, "warning")
        if news.waiting == screen.panes_waiting:
            return False
        if news.waiting and not screen.panes_waiting:
            screen.notify(
                f"{len(news.waiting)} teammates have no pane until selected (enter): at most {news.limit} "
                "panes at once (--max-panes, or max_panes in the config file).",
                markup=False,
            )
        screen.panes_waiting = news.waiting
        return True

    def focus(self, name: str) -> None:
        """`enter` on a teammate: its teamtui pane selected (or opened, past the budget)."""
        opening = name in self.screen.panes_waiting
        try:
            has_pane = self.panes.select(name)
        except Exception as exc:  # noqa: BLE001
            toast(self.screen, "Pane: ", str(exc), "warning")
            has_pane = False
        suffix = (" (opening its pane)" if opening else " (pane selected)") if has_pane else ""
        toast(self.screen, "Focused ", name, "information", suffix=suffix)

    def toggle(self) -> None:
        session = self.screen.session
        if session is not None and session.panes_on:  # a remote team: its panes are that machine's
            toast(self.screen, "", f"this team's panes are on {session.panes_on}: none are opened here", "information")
            return
        try:
            shown = self.panes.toggle()
        except Exception as exc:  # noqa: BLE001
            toast(self.screen, "Panes: ", str(exc), "warning")
            return
        if not self.panes.active:
            self.screen.notify("No teammate panes: in-process mode (start teamtui inside tmux for panes).")
        else:
            self.screen.notify("Panes shown" if shown else "Panes hidden")

    def open_request(self, item: NeedsYou) -> None:
        """A "needs you" item: a request shown whole first (its pane on confirm), else the pane."""
        session = self.screen.session
        if item.kind not in ("permission", "plan") or session is None:
            self.go_to(item.member)
            return
        away = session.panes_on  # another machine's panes: which one answers is not known here
        if away:
            self._detail(item, "the team's panes", away)
            return
        # Which pane answers: asked of tmux and /proc, off the loop.
        self.screen.in_background(
            lambda: session.pane_of(item.member, lead=False),
            lambda pane: self._detail(item, f"{item.member}'s pane" if pane else "the lead's pane", ""),
        )

    def _detail(self, item: NeedsYou, where: str, away: str) -> None:
        from teamtui.tui.screens.request import RequestDetail

        detail = RequestDetail(item, self.screen.palette, where, away)
        self.screen.app.push_screen(detail, lambda go: self.go_to(item.member) if go else None)

    def go_to(self, name: str) -> None:
        """Bring the team's own pane of `name` (else its lead's) forward: tmux, off the loop."""
        session = self.screen.session
        assert session is not None
        if session.panes_on:
            toast(self.screen, "", f"{name}'s pane is on {session.panes_on}: select it there", "warning")
            return

        def select() -> str | Exception | None:
            try:
                return session.select_pane(name)
            except Exception as exc:  # noqa: BLE001 - tmux is a convenience: said, the dashboard kept
                return exc

        def selected(pane: str | Exception | None) -> None:
            if isinstance(pane, Exception):
                toast(self.screen, "Pane: ", str(pane), "warning")
            elif pane is not None:
                toast(self.screen, "Selected the pane of ", name, "information", suffix=f" ({pane})")
            else:
                toast(
                    self.screen,
                    "No tmux pane to select for ",
                    name,
                    "warning",
                    suffix=" (is teamtui inside the team's tmux?)",
                )

        self.screen.in_background(select, selected)
