"""`S` and `x` on the dashboard: the confirmation, the run's progress as toasts and a view, the
offers to close panes. How the shutdown is carried out is the session's (session/shutdown.py
chooses the one controller); this is only what the person sees and answers."""

from __future__ import annotations

from typing import Any

from teamtui.protocol.changes import ChangeKind
from teamtui.protocol.shutdown import ShutdownRun, said
from teamtui.session.shutdown import ShutdownController, ShutdownNews
from teamtui.tui.controllers.key_guard import writable
from teamtui.tui.controllers.team_screen import TeamScreen, toast
from teamtui.tui.messages import ShutdownProgress
from teamtui.tui.safe import inert


class ShutdownFlow:
    """One dashboard's shutdowns: at most one controller at a time, and the run as last reported."""

    def __init__(self, screen: TeamScreen):
        self.screen = screen
        self.controller: ShutdownController | None = None
        self.run: ShutdownRun | None = None
        self._announced = False
        self._view: Any = None

    # ------------------------------------------------------------------ asking
    def confirm(self, only: str | None) -> None:
        from teamtui.tui.screens.confirm_shutdown import ShutdownConfirm

        screen, session = self.screen, self.screen.session
        if session is None:
            return
        if self.run is not None and not self.run.done:
            self.show()
            return
        if session.lead_gone():
            self._look_for_orphan_panes(only)
            return
        if not writable(screen):
            return
        targets = session.live_teammates(only)
        if not targets:
            who = inert(only) if only else "the team"
            screen.notify(f"Nobody to shut down: {who} has no live teammate.", severity="warning", markup=False)
            return
        title = f"Shut down {inert(only)}" if only else f"Shut down team {inert(session.name)}"
        via = session.state.lead if session.state.traits.shutdown_via_lead else ""
        confirm = ShutdownConfirm(title, targets, cursor_blink=screen.cursor_blink, via=via)
        screen.app.push_screen(confirm, lambda params: self._start(params, only))

    def _start(self, params: Any, only: str | None) -> None:
        screen, session = self.screen, self.screen.session
        if params is None or session is None:
            return
        if self.controller is not None:
            self.controller.stop()
        self._announced = False
        self.controller = session.shutdown(
            only, lambda news: screen.post_message(ShutdownProgress(news)), screen.set_timer, screen.in_background
        )
        try:
            self.controller.start(params.targets, params.reason, params.deadline_seconds)
        except Exception as exc:  # noqa: BLE001 - say it, keep the dashboard
            toast(screen, "Shutdown not started: ", str(exc), "error")

    # ------------------------------------------------------------------ the lead has ended
    def _look_for_orphan_panes(self, only: str | None) -> None:
        """The lead is gone, so nobody can approve a shutdown: say so now, and offer to close the
        panes config.json names that still run their teammates (tmux and /proc: off the loop)."""
        session = self.screen.session
        assert session is not None
        targets = session.live_teammates(only)
        self.screen.in_background(
            lambda: session.orphan_panes(targets) if targets else {}, lambda panes: self._orphan_panes(only, panes)
        )

    def _orphan_panes(self, only: str | None, panes: dict[str, str] | None) -> None:
        from teamtui.tui.screens.confirm_panes import ClosePanesConfirm

        screen, session = self.screen, self.screen.session
        if session is None:
            return
        lead = session.state.lead
        said = f"{inert(lead)} has ended: nobody can approve a shutdown of {inert(only) if only else 'the team'}."
        if not panes:
            why = (
                "Its teammates' panes cannot be looked for (teamtui is not inside the team's tmux)."
                if panes is None
                else "No pane config.json names for them is still open."
            )
            screen.notify(f"{said} {why}", severity="warning", markup=False)
            return
        screen.notify(said, severity="warning", markup=False)

        def answered(yes: bool | None) -> None:
            if yes:
                screen.in_background(
                    lambda: session.close_orphan_panes(panes), lambda result: self._closed(panes, *result)
                )

        why = f"{lead} has ended: nobody can approve a shutdown. Closing a teammate's pane ends it."
        screen.app.push_screen(
            ClosePanesConfirm(panes, title=f"{lead} has ended: close their panes?", why=why), answered
        )

    def _closed(self, panes: dict[str, str], closed: list[str], errors: list[str]) -> None:
        for name in closed:
            toast(self.screen, "Closed the pane of ", name, "information", suffix=f" ({panes[name]})")
        for error in errors:
            toast(self.screen, "", error, "error")

    # ------------------------------------------------------------------ progress
    def progress(self, news: ShutdownNews) -> None:
        screen = self.screen
        if news.changes:
            screen.apply_changes(news.changes)
        if news.asked:
            toast(screen, "", news.asked, "information")
            return
        run = news.run
        if run is None:
            screen.notify("The lead did not start a shutdown (the team may already be stopping).", severity="warning")
            return
        first = self.run is None or self.run.started_at != run.started_at
        self.run = run
        for name in news.changed:
            t = run.teammates[name]
            toast(
                screen,
                "Shutdown: ",
                name,
                "information" if t.outcome.value == "clean" else "warning",
                suffix=f" {t.outcome.said}",
            )
        if news.error:
            toast(screen, "", news.error, "error")
        if first and run.note:  # a run asked of the lead says what was asked
            toast(screen, "Shutdown: ", run.note, "information")
        if news.offer_panes:
            self._offer_panes(news.offer_panes, news.offer_title, news.offer_why)
        if run.done and not self._announced:
            self._announced = True
            counts = ", ".join(f"{n} {said(k)}" for k, n in run.summary()["outcomes"].items())
            screen.notify(f"Shutdown finished: {counts}", severity="information", markup=False)
        if self._view is not None and self._view.is_attached:
            self._view.show_run(run, self._tasks())
        elif first:
            self.show()

    def observe(self, kinds: set[ChangeKind], full: bool) -> None:
        """A batch of changes arrived: the running controller looks if it concerns it."""
        if self.controller is not None and (full or kinds & self.controller.watches):
            self.controller.observe()

    def _offer_panes(self, panes: dict[str, str], title: str = "", why: str = "") -> None:
        """Close the panes of the teammates still there (at the deadline, or left with their pane
        kept), if the person says so."""
        from teamtui.tui.screens.confirm_panes import ClosePanesConfirm

        def answered(yes: bool | None) -> None:
            if yes and self.controller is not None:
                self.controller.close_panes(list(panes))

        words = {"title": title, "why": why} if title else {}
        self.screen.app.push_screen(ClosePanesConfirm(panes, **words), answered)

    def _tasks(self) -> list:
        session = self.screen.session
        return list(session.state.tasks.values()) if session is not None else []

    def show(self, run: ShutdownRun | None = None) -> None:
        """Open the view of the current run (or of `run`, which becomes the current one)."""
        from teamtui.tui.screens.shutdown_view import ShutdownView

        if run is not None:
            self.run = run
        if self.run is None:
            return
        view = ShutdownView(self.run, self._tasks(), clock=self.screen.now, palette=self.screen.palette)
        self._view = view
        self.screen.app.push_screen(view, lambda _r: setattr(self, "_view", None))

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
