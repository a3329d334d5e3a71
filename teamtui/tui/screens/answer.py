"""Answering what needs you: the request in full (who asks, the tool, what it would do) and a key
for each answer it takes; a reason asked for where one goes with the answer (deny, block, a
message). Dismissed with (answer, text) for the caller to carry out, or None.

Every word of the request came from a file or another machine: shown through the safe-text path,
never as markup or terminal escapes.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from teamtui.session.alerts import names_member
from teamtui.session.requests import Item
from teamtui.tui.keys import INTERRUPT
from teamtui.tui.palette import Palette
from teamtui.tui.safe import safe_text

# Each answer: its key, and how the key line says it.
ANSWER_KEYS = {
    "allow": ("a", "allow"),
    "deny": ("d", "deny…"),
    "lead": ("l", "leave it to the lead's terminal"),
    "retry": ("r", "retry"),
    "block": ("b", "block…"),
    "message": ("m", "message…"),
    "release": ("e", "release its tasks"),
    "restart": ("s", "restart"),
}
# The answers that take a text, what it is asked as, and whether it may be left empty.
ASKS_TEXT = {
    "deny": ("Why (Claude Code tells the model; empty: just denied)", False),
    "block": ("Why it stays off the board", True),
    "message": ("The message", True),
}
# The items about one teammate: the dialog names it and the task it holds.
ABOUT_TEAMMATE = ("stuck", "gone")
_ICON = {"permission": "?", "perm": "?", "held": "⏸", "stuck": "!", "gone": "⚠", "wait": "…"}
_WHAT_ORDER = (
    "command",
    "file_path",
    "notebook_path",
    "path",
    "url",
    "pattern",
    "glob",
    "query",
    "description",
    "prompt",
)


def render_item(item: Item, palette: Palette) -> Text:
    """What the request would do, for a person to decide on: the tool and its command, the file and
    its edit, the path; a team's need as it is said, with its note."""
    t = Text()
    detail = item.detail
    found = detail.get("what")
    what: dict[str, Any] = found if isinstance(found, dict) else {}
    tool = detail.get("tool") if isinstance(detail.get("tool"), str) else ""
    soft = palette.theme_color("secondary")
    if item.kind != "permission":
        t.append_text(safe_text(item.text, newlines=True))
        if item.note:
            t.append("\n\n")
            t.append_text(safe_text(item.note, soft))
        return t
    t.append_text(safe_text(tool or "a tool", "bold"))
    for key in _WHAT_ORDER:
        value = what.get(key)
        if isinstance(value, str) and value:
            t.append(f"\n{key.replace('_', ' ')}: ", style=soft)
            t.append_text(safe_text(value, "bold" if key == "command" else "", newlines=True))
    edits = (
        [{"old_string": what.get("old_string"), "new_string": what.get("new_string")}] if "old_string" in what else []
    )
    edits += [e for e in what.get("edits", []) if isinstance(e, dict)] if isinstance(what.get("edits"), list) else []
    for edit in edits:
        for sign, key, role in (("-", "old_string", "error"), ("+", "new_string", "success")):
            value = edit.get(key)
            if isinstance(value, str):
                for line in value.splitlines() or [""]:
                    t.append(f"\n{sign} ", style=palette.theme_color(role))
                    t.append_text(safe_text(line, palette.theme_color(role)))
    content = what.get("content") or what.get("new_source")
    if isinstance(content, str):
        t.append("\ncontent:\n", style=soft)
        t.append_text(safe_text(content, newlines=True))
    if not any(isinstance(what.get(k), str) for k in (*_WHAT_ORDER, "content", "old_string")):
        raw = what.get("input")
        t.append("\ninput: ", style=soft)
        t.append_text(safe_text(raw if isinstance(raw, str) else item.text, newlines=True))
    return t


class AnswerScreen(ModalScreen[tuple[str, str] | None]):
    """The request in full, and the answers it takes."""

    BINDINGS = [
        *(
            Binding(key, f"answer('{answer}')", said, id=f"answer.{answer}")
            for answer, (key, said) in ANSWER_KEYS.items()
        ),
        Binding("escape", "cancel", "Cancel", id="answer.cancel"),
        INTERRUPT,
    ]

    def __init__(
        self, item: Item, palette: Palette, *, team: str, where: str = "", task: str = "", cursor_blink: bool = True
    ):
        super().__init__()
        self.item, self.palette, self.team, self.where = item, palette, team, where
        self.held_task = task  # a stuck or gone teammate's: the task it holds ("#2 Write tests"), "" for none
        self.cursor_blink = cursor_blink

    def compose(self) -> ComposeResult:
        item = self.item
        with VerticalScroll(classes="dialog wide", id="answer-dialog"):
            title = Text(f"{_ICON.get(item.kind, '!')} ", style=f"bold {self.palette.theme_color('warning')}")
            if item.kind in ABOUT_TEAMMATE and item.who and not names_member(item.who, item.text):
                title.append_text(safe_text(f"{item.who}: ", "bold"))  # "no activity …" alone says not whose
            title.append_text(safe_text(item.text, "bold"))
            yield Static(title, classes="dialog-title", id="answer-title")
            yield Static(self._sub(), classes="dialog-sub")
            yield Static(render_item(item, self.palette), id="answer-body")
            yield Static(self._keys(), classes="dialog-hint", id="answer-keys")

    def _sub(self) -> Text:
        t = Text()
        t.append("team ", style="dim")
        t.append_text(safe_text(self.item.team or "none listed"))
        if self.item.kind in ABOUT_TEAMMATE and self.item.who:
            t.append(" · teammate ", style="dim")
            t.append_text(safe_text(self.item.who, "bold"))
            t.append(" · task ", style="dim")
            t.append_text(safe_text(self.held_task) if self.held_task else Text("none held", style="dim"))
        if self.where:
            t.append(" · on ", style="dim")
            t.append_text(safe_text(self.where))
        deadline = self.item.detail.get("deadline")
        if self.item.kind == "permission" and isinstance(deadline, (int, float)) and deadline:
            until = time.strftime("%H:%M:%S", time.localtime(deadline))
            t.append(f" · waits until {until}, then Claude Code's own dialog decides", style="dim")
        elif self.item.kind == "perm":
            t.append(" · " + self.item.note, style="dim")
        return t

    def _keys(self) -> Text:
        t = Text()
        for answer in self.item.answers:
            key, said = ANSWER_KEYS.get(answer, ("", answer))
            if key:
                t.append(key, style="bold")
                t.append(f" {said} · ")
        t.append("esc", style="bold")
        t.append(" cancel")
        return t

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer":
            return bool(parameters) and parameters[0] in self.item.answers
        return True

    def action_answer(self, answer: str) -> None:
        asked = ASKS_TEXT.get(answer)
        if asked is None:
            self.dismiss((answer, ""))
            return
        prompt, required = asked

        def given(text: str | None) -> None:
            if text is not None:
                self.dismiss((answer, text))

        self.app.push_screen(
            ReasonScreen(self.item.text, prompt, required=required, cursor_blink=self.cursor_blink), given
        )

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReasonScreen(ModalScreen[str | None]):
    """The reason for a denial or a block, or a message: enter gives it, escape goes back."""

    BINDINGS = [Binding("escape", "cancel", "Back", id="reason.cancel")]

    def __init__(self, about: str, prompt: str, *, required: bool, cursor_blink: bool = True):
        super().__init__()
        self.about, self.prompt, self.required, self.cursor_blink = about, prompt, required, cursor_blink

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="reason-dialog"):
            yield Static(safe_text(self.prompt, "bold"), classes="dialog-title")
            yield Static(safe_text(self.about), classes="dialog-sub")
            yield Input(placeholder=self.prompt, id="reason-input", select_on_focus=False)
            yield Static(Text("enter give it · esc back", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.cursor_blink = self.cursor_blink
        field.focus()

    def on_key(self, event: events.Key) -> None:
        # Typed right after the answer's key (fast, or pasted): it belongs in the reason.
        if event.is_printable and event.character and self.focused is not self.query_one(Input):
            event.stop()
            event.prevent_default()
            self.query_one(Input).insert_text_at_cursor(event.character)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = " ".join(event.value.split())
        if self.required and not text:
            self.notify("It needs a few words: type them, or press Esc.", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["ANSWER_KEYS", "AnswerScreen", "ReasonScreen", "render_item"]
