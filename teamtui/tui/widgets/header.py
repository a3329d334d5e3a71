"""Team name, active/completed, member count, a progress bar and "Tasks 2/5 done"."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from teamtui.protocol.models import MemberStatus
from teamtui.tui.safe import safe_text

BAR_WIDTH = 24


class TeamHeader(Static):
    _shown: Text | None = None

    def show_team(self, state, gone: bool = False) -> None:
        app = self.app
        done, total = state.board.progress()
        members = state.config.members if state.config else []
        live = [m for m in members if m.status != MemberStatus.SHUTDOWN]
        if gone:
            status, role = "gone", "error"
        elif total and done == total:
            status, role = "completed", "success"
        elif live:
            status, role = "active", "primary"
        else:
            status, role = "inactive", "secondary"
        t = Text()
        t.append(" teamtui ", style=f"bold {app.role('background')} on {app.role('primary')}")
        t.append("  ")
        t.append_text(safe_text(state.name, "bold"))
        t.append("  ")
        t.append("● " + status, style=app.role(role))
        t.append(f"  ·  {len(members)} member{'s' if len(members) != 1 else ''}", style=app.role("secondary"))
        t.append(f" · {state.store.layout}", style=app.role("secondary"))
        errors = len(state.all_errors())
        if errors:
            t.append(f" · {errors} unreadable file{'s' if errors != 1 else ''}", style=app.role("warning"))
        t.append("    ")
        filled = round(BAR_WIDTH * done / total) if total else 0
        t.append("━" * filled, style=app.role("success"))
        t.append("━" * (BAR_WIDTH - filled), style=f"dim {app.role('secondary')}")
        t.append(f"  Tasks {done}/{total} done", style="bold")
        if t != self._shown:
            self._shown = t
            self.update(t, layout=False)  # one line whatever it says: no relayout of the screen

    def show_message(self, text: str) -> None:
        t = Text()
        t.append(" teamtui ", style=f"bold {self.app.role('background')} on {self.app.role('primary')}")
        t.append("  ")
        t.append_text(safe_text(text))
        self._shown = t
        self.update(t, layout=False)
