"""A live graceful shutdown: each teammate's state, a countdown, then the verification summary.

It only renders a ShutdownRun (teamtui.protocol.shutdown); Esc or q hides it (as q closes the help
and the timeline) and the run goes on; ctrl+c quits, as on every screen (the app's binding).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import DataTable, Static

from teamtui.protocol.shutdown import Outcome, ShutdownRun, said
from teamtui.tui.keys import INTERRUPT
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text

OUTCOME_ROLE = {
    Outcome.REQUESTED: "accent",
    Outcome.CLEAN: "success",
    Outcome.IN_PROGRESS: "warning",
    Outcome.ERROR: "error",
    Outcome.REJECTED: "warning",
    Outcome.TIMED_OUT: "error",
}
OUTCOME_ICON = {Outcome.REQUESTED: "…", Outcome.CLEAN: "✓", Outcome.TIMED_OUT: "⏱"}


class ShutdownView(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "Hide", id="shutdown.hide"), INTERRUPT]

    def __init__(self, run: ShutdownRun, tasks: list, *, clock: Callable[[], float], palette: Palette):
        super().__init__()
        self.palette = palette
        self.run = run
        self.tasks = tasks  # the board's tasks, for the verification summary
        self.clock = clock
        self._ticker: Timer | None = None
        self._ready = False
        # Held, not queried: news can arrive while the app closes and the parts are already gone.
        self._title = Static(id="shutdown-title", classes="dialog-title")
        self._countdown = Static(id="shutdown-countdown", classes="dialog-sub")
        self._table: DataTable = DataTable(id="shutdown-table", cursor_type="none", show_cursor=False)
        self._summary = Static(id="shutdown-summary")
        self._hint = Static(self._hint_text(), classes="dialog-hint")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="shutdown-dialog"):
            yield self._title
            yield self._countdown
            yield self._table
            yield self._summary
            yield self._hint

    def _hint_text(self) -> Text:
        # Once the run is finished there is nothing left to go on behind the view.
        return Text("esc/q close" if self.run.done else "esc/q hide (the shutdown goes on)", style="dim")

    @property
    def _drawable(self) -> bool:
        """Mounted, and not being taken down (a removed part is no longer attached)."""
        return self._ready and self._table.is_attached and self._summary.is_attached

    def on_mount(self) -> None:
        table = self._table
        table.add_column("Teammate", key="name")
        table.add_column("State", key="state")
        table.add_column("Detail", key="detail")
        self._ready = True
        self.refresh_run()
        if not self.run.done:
            # Redraws the countdown only; the run's changes arrive through show_run.
            self._ticker = self.set_interval(1.0, self.refresh_countdown)

    def refresh_countdown(self) -> None:
        if not self._drawable:
            return
        palette = self.palette
        w = self._countdown
        self._hint.update(self._hint_text())
        if self.run.done:
            if self._ticker is not None:
                self._ticker.stop()
            w.update(Text(f"finished · reason {self.run.reason}", style=palette.theme_color("secondary")))
            return
        left = self.run.remaining(self.clock())
        open_ = sum(1 for t in self.run.teammates.values() if not t.outcome.final)
        t = Text(f"{left:4.0f}s left", style=f"bold {palette.theme_color('accent')}")
        t.append(
            f" · waiting on {open_} of {len(self.run.teammates)} · reason ", style=palette.theme_color("secondary")
        )
        t.append_text(safe_text(self.run.reason, palette.theme_color("secondary")))
        w.update(t)

    def show_run(self, run: ShutdownRun, tasks: list) -> None:
        """The run as it stands now (the same run, or the lead's newer snapshot of it)."""
        self.run, self.tasks = run, tasks
        if self._ticker is None and not run.done and self._ready:
            self._ticker = self.set_interval(1.0, self.refresh_countdown)
        self.refresh_run()

    def refresh_run(self) -> None:
        if not self._drawable:
            return  # on_mount draws the first state; a closing view draws nothing
        palette = self.palette
        title = Text("Graceful shutdown · ", style="bold")
        title.append_text(safe_text(self.run.team, "bold"))
        self._title.update(title)
        table = self._table
        table.clear()
        for t in self.run.teammates.values():
            role = OUTCOME_ROLE[t.outcome]
            state = Text(
                f"{OUTCOME_ICON.get(t.outcome, '●')} {t.outcome.said}", style=f"bold {palette.theme_color(role)}"
            )
            detail = Text()
            if t.pending_work:
                detail.append("pending: ", style=palette.theme_color("warning"))
                detail.append_text(safe_text("; ".join(t.pending_work)))
            elif t.detail:
                detail.append_text(safe_text(t.detail, palette.theme_color("secondary")))
            elif t.outcome is Outcome.REQUESTED:
                detail.append("waiting for a reply", style=palette.theme_color("secondary"))
            name = safe_text(t.name, f"bold {palette.member_color(t.name)}")
            name.truncate(24, overflow="ellipsis")  # the detail (last) is never pushed off by a long name
            table.add_row(name, state, detail, key=t.name)
        self.refresh_countdown()
        note = getattr(self.run, "note", "")  # what teamtui did, when the lead carries the shutdown out
        waiting = safe_text(note, self.palette.theme_color("secondary")) if note else ""
        self._summary.update(self.summary_text() if self.run.done else waiting)

    def summary_text(self) -> Text:
        palette = self.palette
        s = self.run.summary(self.tasks)
        t = Text("Verification\n", style="bold")
        counts = ", ".join(f"{n} {said(k)}" for k, n in s["outcomes"].items())
        t.append(f"  all teammates accounted for: {counts}\n", style=palette.theme_color("secondary"))
        for mate in s["teammates"]:
            t.append("  ")
            t.append_text(safe_text(mate["teammate"], "bold"))
            t.append(f": {said(mate['outcome'])}")
            steps = getattr(self.run, "steps", {}).get(mate["teammate"])
            if steps:  # a shutdown the lead carried out: what was seen of it, in order
                t.append(" · ", style=palette.theme_color("secondary"))
                t.append_text(safe_text(" → ".join(steps), palette.theme_color("secondary")))
            if mate["pending_work"]:
                t.append(" · pending work: ", style=palette.theme_color("warning"))
                t.append_text(safe_text("; ".join(mate["pending_work"])))
            t.append("\n")
        tasks = s["tasks_in_progress"]
        if tasks:
            t.append("  tasks still in progress: ", style=palette.theme_color("warning"))
            t.append_text(
                safe_text(", ".join(f"#{x['id']} {x['subject']} ({x['owner'] or 'no owner'})" for x in tasks))
            )
        else:
            t.append("  no task left in progress", style=palette.theme_color("success"))
        if self.run.results_written:
            t.append(
                f"\n  result written to {len(self.run.results_written)} file(s) under shutdown/",
                style=palette.theme_color("secondary"),
            )
        return t

    def action_close(self) -> None:
        self.dismiss(None)
