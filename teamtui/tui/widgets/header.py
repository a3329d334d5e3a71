"""Team name (and its machine, when another), active/completed, member count, a progress bar and "Tasks 2/5 done"."""

from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import Static

from teamtui.protocol.cost import cost_text
from teamtui.protocol.model import TeamModel
from teamtui.protocol.models import MemberStatus
from teamtui.tui.format import compact_count
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.painted import Painted

BAR_WIDTH = 24
MIN_BAR = 6  # narrower than this, a bar says nothing: leave it out
# A workflow run's status (TeamStore.run_status) and its color; any other (failed, killed, cut off) is an error's.
RUN_ROLE = {"running": "primary", "completed": "success"}


class TeamHeader(Static, Painted):
    """One line: what the team is doing on the left, its progress on the right. In a narrow
    pane the bar shrinks first, then the member count and layout go: "Tasks d/t" stays."""

    _shown: Text | None = None
    _last: tuple | None = None  # show_team's arguments, to fit the line again on resize
    muted_until: float | None = None  # notifications muted (the control room's `z`) until then

    def show_team(
        self,
        state: TeamModel,
        gone: bool = False,
        ended_at: float | None = None,
        run_status: str | None = None,
        host: str = "",
    ) -> None:
        """`host`: the machine the team is on, when not this one."""
        self._last = (state, gone, ended_at, run_status, host)
        palette = self.palette
        done, total = state.board.progress()
        members = state.config.members if state.config else []
        live = [m for m in members if m.status != MemberStatus.SHUTDOWN]
        if ended_at is not None:  # the lead exited: what is shown is the team as it ended
            status, role = f"ended {time.strftime('%H:%M', time.localtime(ended_at))}", "error"
        elif gone:
            status, role = "gone", "error"
        elif (run := run_status) is not None:  # a workflow run: its own word on how it stands
            status, role = f"workflow {run}", RUN_ROLE.get(run, "error")
        elif total and done == total:
            status, role = "completed", "success"
        elif live:
            status, role = "active", "primary"
        else:
            status, role = "inactive", "secondary"
        t = self._badge()
        t.append_text(safe_text(state.name, "bold"))
        if host:  # another machine's team: which one (its name is the config's, or what its subject said)
            t.append(" on ", style=palette.theme_color("secondary"))
            t.append_text(safe_text(host, f"bold {palette.theme_color('secondary')}"))
        t.append("  ")
        t.append("● " + status, style=palette.theme_color(role))
        details = Text(style=palette.theme_color("secondary"))
        details.append(f"  ·  {len(members)} member{'s' if len(members) != 1 else ''}")
        details.append(f" · {state.traits.layout}")
        warning = Text(style=palette.theme_color("warning"))
        if self.muted_until is not None and self.muted_until > time.time():
            warning.append(
                f" · muted until {time.strftime('%H:%M', time.localtime(self.muted_until))}",
                style=palette.theme_color("secondary"),
            )
        errors = len(state.all_errors())
        if errors:
            warning.append(f" · {errors} unreadable file{'s' if errors != 1 else ''}")
        tokens = state.transcripts.total_tokens() if state.transcripts is not None else None
        if tokens is not None:  # the team's tokens, summed from its transcripts
            warning.append(f" · {compact_count(tokens)} tokens", style=palette.theme_color("secondary"))
        cost = state.transcripts.cost() if state.transcripts is not None else None
        if cost is not None:  # what they cost (genai-prices); a model with no price is said, never guessed
            role = "warning" if cost.unknown else "secondary"
            # A model's name comes from the files (or another machine): the safe-text path.
            warning.append_text(safe_text(f" · {cost_text(cost)}", palette.theme_color(role)))
        head_len = t.cell_len + warning.cell_len
        progress = Text(f"  Tasks {done}/{total} done", style="bold")
        width = self.size.width or self.screen.size.width  # before the first layout: the screen's
        if width and head_len + details.cell_len + MIN_BAR + 4 + progress.cell_len > width:
            details = Text()  # the count and layout are also in the team panel
        room = width - head_len - details.cell_len - 4 - progress.cell_len if width else BAR_WIDTH
        t.append_text(details)
        t.append_text(warning)
        bar = min(BAR_WIDTH, room)
        if bar >= MIN_BAR:
            t.append("    ")
            filled = round(bar * done / total) if total else 0
            t.append("━" * filled, style=palette.theme_color("success"))
            t.append("━" * (bar - filled), style=f"dim {palette.theme_color('secondary')}")
        t.append_text(progress)
        if t != self._shown:
            self._shown = t
            self.update(t, layout=False)  # one line whatever it says: no relayout of the screen

    @property
    def shown(self) -> str:
        """The line as drawn, plain (for waiting on it)."""
        return self._shown.plain if self._shown is not None else ""

    def show_message(self, text: str) -> None:
        self._last = None
        t = self._badge()
        t.append_text(safe_text(text))
        self._shown = t
        self.update(t, layout=False)

    def on_resize(self) -> None:
        if self._last is not None:
            self.show_team(*self._last)

    def _badge(self) -> Text:
        t = Text()
        t.append(
            " teamtui ", style=f"bold {self.palette.theme_color('background')} on {self.palette.theme_color('primary')}"
        )
        t.append("  ")
        return t
