"""Unreadable files, each with where it is and why: shown under the header, hidden when there are none."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from teamtui.protocol.errors import ReadError
from teamtui.tui.safe import safe_text

SHOWN = 4  # at most this many lines; `teamtui status` lists every one


def problem_line(error: ReadError, root: Path) -> Text:
    try:
        where = str(error.path.relative_to(root))
    except ValueError:
        where = str(error.path)
    if error.line is not None:
        where += f":{error.line}"
    t = Text("⚠ unreadable ", style="bold")
    t.append_text(safe_text(where, "bold"))
    t.append(": ")
    t.append_text(safe_text(error.reason))
    return t


def said_line(problem: str) -> Text:
    """A problem the control room says (a root, a teams folder, a host): one line, made safe."""
    t = Text("⚠ ", style="bold")
    t.append_text(safe_text(problem))
    return t


class ProblemList(Static):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.problems: list[Text] = []  # every problem, for the count and for tests; the first SHOWN are drawn

    def show(self, errors: list[ReadError], root: Path) -> None:
        self.show_lines([problem_line(e, root) for e in errors], "teamtui status")

    def show_lines(self, lines: list[Text], lister: str) -> None:
        """Every problem's line: the first SHOWN drawn, then how many more and what lists them all."""
        self.problems = lines
        self.display = bool(self.problems)
        if not self.problems:
            self.update("")
            return
        shown = self.problems[:SHOWN]
        if len(self.problems) > SHOWN:
            shown = [
                *shown[: SHOWN - 1],
                Text(f"… and {len(self.problems) - SHOWN + 1} more ({lister} lists them all)"),
            ]
        body = Text("\n").join(shown)
        body.no_wrap = True
        body.overflow = "ellipsis"
        self.update(body)
