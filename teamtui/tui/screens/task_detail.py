"""One task in full: description, owner, the blocks / blocked-by chain and its files."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from teamtui.protocol.board import Board
from teamtui.tui.keys import INTERRUPT
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text
from teamtui.tui.widgets.tasks import LABEL


def chain(board: Board, task_id: str, seen: set[str] | None = None, depth: int = 0) -> list[tuple[int, str, str]]:
    """(depth, id, state) along blocked_by, cycle-safe; a missing id says so."""
    seen = set() if seen is None else seen
    out: list[tuple[int, str, str]] = []
    t = board.tasks.get(task_id)
    if t is None:
        return out
    for b in t.blocked_by:
        dep = board.tasks.get(b)
        if dep is None:
            out.append((depth, b, "missing dependency"))
            continue
        if b in seen:
            out.append((depth, b, "cycle"))
            continue
        seen.add(b)
        out.append((depth, b, dep.status.value.replace("_", " ") + " · " + dep.subject))
        out += chain(board, b, seen, depth + 1)
    return out


class TaskDetail(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter", "close", "Close", id="modal.close"), INTERRUPT]

    def __init__(self, board: Board, task_id: str, palette: Palette):
        super().__init__()
        self.palette = palette
        self.board = board
        self.task_id = task_id

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog wide"):
            yield Static(self.render_task())
            yield Static(Text("esc close", style="dim"), classes="dialog-hint")

    def render_task(self) -> Text:
        palette = self.palette
        t = self.board.tasks[self.task_id]
        view = self.board.view(t)
        out = Text(f"#{t.id} ", style=palette.theme_color("secondary"))
        out.append_text(safe_text(t.subject, "bold"))
        out.append("\n\n")
        state = view.blocked_reason or LABEL.get(view.state, view.state.value)
        out.append("State   ", style=palette.theme_color("secondary"))
        out.append(state + "\n")
        out.append("Owner   ", style=palette.theme_color("secondary"))
        out.append_text(safe_text(t.owner or "—"))
        out.append("\n")
        if t.active_form:
            out.append("Doing   ", style=palette.theme_color("secondary"))
            out.append_text(safe_text(t.active_form))
            out.append("\n")
        out.append("\n")
        out.append_text(safe_text(t.description or "(no description)", newlines=True))
        out.append("\n\n")
        out.append("Blocked by\n", style="bold")
        links = chain(self.board, t.id)
        if not links:
            out.append("  nothing\n", style=palette.theme_color("secondary"))
        for depth, b, what in links:
            out.append("  " + "  " * depth + f"#{b} ")
            out.append_text(
                safe_text(what, palette.theme_color("warning") if what in ("missing dependency", "cycle") else "")
            )
            out.append("\n")
        out.append("Blocks\n", style="bold")
        dependents = sorted(set(t.blocks) | set(self.board.dependents(t.id)), key=lambda i: (len(i), i))
        out.append("  " + (", ".join(f"#{d}" for d in dependents) or "nothing") + "\n")
        out.append("Files\n", style="bold")
        if t.files:
            for f in t.files:
                out.append("  ")
                out.append_text(safe_text(f))
                out.append("\n")
        else:
            out.append("  none listed\n", style=palette.theme_color("secondary"))
        if t.result:
            out.append("Result\n", style="bold")
            out.append_text(safe_text(t.result, newlines=True))
        return out

    def action_close(self) -> None:
        self.dismiss(None)
