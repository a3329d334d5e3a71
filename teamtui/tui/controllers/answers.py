"""Answering what needs you, in the room and in each team's dashboard (the same flow for a team
here, one on another machine, and in a browser): the need's item from its team's answers
capability (session/actions.py Answers), the request shown in full (screens/answer.py), the answer
carried out by the machine the team is on (a worker thread here: files, tmux; a request over the
stream elsewhere), and what became of it said as a notification: taken, already answered, moved to
the lead's terminal, or why not.

How it was answered, for the journal: `room` from a terminal, `browser` from a session of `teamtui
serve` (it sets TEAMTUI_ANSWER_VIA=browser and where it listens in TEAMTUI_ANSWER_WHERE).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.notifications import SeverityLevel

from teamtui.session.alerts import Need
from teamtui.session.items import Answered, Outcome
from teamtui.session.requests import Item
from teamtui.tui.palette import Palette
from teamtui.tui.safe import inert
from teamtui.tui.screens.answer import AnswerScreen

if TYPE_CHECKING:
    from teamtui.session.actions import Answers

VIA_ENV, WHERE_ENV = "TEAMTUI_ANSWER_VIA", "TEAMTUI_ANSWER_WHERE"


def answer_origin(env: dict[str, str] | None = None) -> tuple[str, str]:
    """(via, where) of the answers this app gives: a browser's when `teamtui serve` runs it."""
    env = dict(os.environ) if env is None else env
    host = os.uname().nodename
    if env.get(VIA_ENV) == "browser":
        return "browser", f"a browser of teamtui serve on {host}" + (
            f" at {inert(env[WHERE_ENV])[:100]}" if env.get(WHERE_ENV) else ""
        )
    return "room", host


class AnswerFlow:
    """`a` on a need (or enter on a request of no team): its item, the modal, the answer, the outcome."""

    def __init__(
        self,
        app: App[object],
        answers_for: Callable[[Need], Answers | None],
        *,
        palette: Callable[[], Palette],
        changed: Callable[[], None],
        task_of: Callable[[Need], str] = lambda need: "",
        cursor_blink: bool = True,
    ):
        self.app = app
        self.answers_for = answers_for  # the capability that answers a need (its team's, or its machine's)
        self.task_of = task_of  # the task the need's teammate holds, as its team's board has it ("" for none)
        self.palette = palette
        self.changed = changed  # after an outcome: the needs looked at again
        self.cursor_blink = cursor_blink
        self.via, self.where = answer_origin()
        self.outcomes: list[Outcome] = []  # every outcome said (the tests read them)

    def start(self, need: Need) -> None:
        answers = self.answers_for(need)
        if answers is None:
            self._say(f"{need.team_name}: nothing can be answered from here (the team takes no answer)", "warning")
            return
        item = answers.item_for(need)
        if item is None or not item.answers:
            why = item.note if item is not None and item.note else "nothing to answer from here"
            self._say(f"{need.team_name}: {need.text}: {why}", "information")
            return
        self.show(answers, item, self.task_of(need))

    def show(self, answers: Answers, item: Item, task: str = "") -> None:
        screen = AnswerScreen(
            item, self.palette(), team=item.team, where=answers.where, task=task, cursor_blink=self.cursor_blink
        )

        def chosen(choice: tuple[str, str] | None) -> None:
            if choice is not None:
                self.carry_out(answers, item, *choice)

        self.app.push_screen(screen, chosen)

    def carry_out(self, answers: Answers, item: Item, decision: str, message: str) -> None:
        def report(outcome: Outcome | None) -> None:
            self.reported(item, outcome)

        answers.answer(
            item.id, decision, message, via=self.via, where=self.where, report=report, background=self._background
        )

    def _background(self, work: Callable[[], object], done: Callable[[object], None]) -> None:
        """`work` (files, tmux) in a thread worker; `done` back on the app's loop."""

        def run() -> None:
            try:
                result = work()
            except Exception as exc:  # noqa: BLE001 - said as the outcome, never a silent worker
                result = Outcome(False, f"{type(exc).__name__}: {exc}", Answered.REFUSED)
            self.app.call_from_thread(done, result)

        self.app.run_worker(run, thread=True, group="answers", exit_on_error=False)

    def reported(self, item: Item, outcome: Outcome | None) -> None:
        if outcome is None:
            outcome = Outcome(False, "the answer could not be carried out", Answered.REFUSED)
        self.outcomes.append(outcome)
        who = f"{item.team} · " if item.team else ""
        self._say(who + outcome.text, "information" if outcome.state in (Answered.TAKEN, Answered.MOVED) else "warning")
        if self.app.is_running:
            self.changed()

    def _say(self, text: str, severity: SeverityLevel) -> None:
        self.app.notify(inert(text), severity=severity, markup=False)


HOOKS_HINT = (
    "Claude Code asks for permission in its lead's terminal. With teamtui's hooks installed, this room "
    "answers those requests (allow, deny with a reason) from here, over ssh and in a browser: run "
    "`teamtui hooks install` (`teamtui hooks status` says what is installed). Said once."
)


def hooks_hint(state: Path | None = None, project: Path | None = None) -> str | None:
    """HOOKS_HINT, once per user (the flag kept in their state folder), and only while no
    settings.json Claude Code reads here holds teamtui's hooks; None otherwise. Reads files: off the loop."""
    from teamtui.protocol.hooks.install import project_settings, status, user_settings
    from teamtui.protocol.hooks.place import state_home

    flag = (state or state_home() / "teamtui") / "said" / "hooks-hint"
    if flag.exists():
        return None
    where = [user_settings(), project_settings(project or Path.cwd())]
    if any(status(p, check=False).events for p in where):
        return None  # installed: nothing to say (and said later, should they go)
    try:
        flag.parent.mkdir(parents=True, exist_ok=True)
        flag.write_text(f"said {time.strftime('%Y-%m-%d %H:%M')}\n")
    except OSError:
        return None  # not remembered: better unsaid than said every time
    return HOOKS_HINT


__all__ = ["AnswerFlow", "HOOKS_HINT", "answer_origin", "hooks_hint", "VIA_ENV", "WHERE_ENV"]
