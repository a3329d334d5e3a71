"""The dashboard's keys: its bindings (the keymap in config.toml renames them by id) and the
longer words the help screen and the command palette show for each."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, cast

from textual.app import App
from textual.binding import Binding

# The keys that start typing are priority: handled where the app reads its keys, before
# the keys typed next (fast, or pasted) are routed to the widget that had focus so far.
DASHBOARD_KEYS = [
    Binding("m", "message", "Message", id="message", priority=True),
    Binding("b", "broadcast", "Broadcast", id="broadcast", priority=True),
    Binding("enter", "focus_teammate", "Focus", id="focus_teammate"),
    Binding("slash", "filter_tasks", "Filter", id="filter_tasks", priority=True),
    Binding("x", "shutdown_teammate", "Stop mate", id="shutdown_teammate"),
    Binding("S", "shutdown_team", "Stop team", id="shutdown_team"),
    Binding("t", "toggle_panes", "Panes", id="toggle_panes"),
    Binding("n", "needs_you", "Needs you", id="needs_you", show=False),
    Binding("a", "answer", "Answer", id="answer", show=False),
    Binding("c", "changes", "Changes", id="changes", show=False),
    Binding("h", "timeline", "Timeline", id="timeline", show=False),
    Binding("question_mark", "help", "Help", id="help"),
    Binding("q", "app.quit", "Quit", id="quit"),
    # A terminal tool ends on Ctrl-C (Textual's default only hints at Ctrl-Q); inputs keep it for copy.
    Binding("ctrl+c", "app.quit", "Quit", show=False, id="interrupt"),
]
# Ctrl-C quits on every screen, and on the dialogs one does not type in (an app's bindings do not
# reach past a modal screen); a dialog with a text field keeps it, so a message half typed is not lost.
INTERRUPT = Binding("ctrl+c", "app.quit", "Quit", show=False, id="interrupt")
DASHBOARD_HELP = {
    "message": "Message the selected teammate",
    "broadcast": "Broadcast to every teammate",
    "focus_teammate": "Focus the selected teammate (and its pane)",
    "filter_tasks": "Filter tasks",
    "shutdown_teammate": "Shut down the selected teammate",
    "shutdown_team": "Shut down the whole team",
    "toggle_panes": "Hide / show teammate panes",
    "needs_you": "Go to what needs you",
    "answer": "Answer what needs you: allow, deny with a reason, leave it to the lead; retry or block a task …",
    "changes": "What each teammate changed: files, diffs, collisions",
    "timeline": "The team's timeline: who worked when, tasks, messages (zoom with + and -)",
    "help": "Help: keys",
    "quit": "Quit",
    "interrupt": "Quit",
}
# The control room's actions in the palette and a team's help (the app's keys, and the overview's search).
ROOM_HELP = {
    "overview": "Overview: the control room, every team",
    "next_team": "Next team",
    "previous_team": "Previous team",
    "mute": "Mute notifications for a while (again: unmute)",
    "search": "Search every team's history",
    "cost": "Cost: today's spend and each team's",
}
# What the help screen offers as a remap that works: a key no other action has, typed as itself.
REMAP_EXAMPLE = ("filter_tasks", "f")


def key_label(keys: str) -> str:
    """A binding's keys as a person types them: "/" and "?", not "slash" and "question_mark"; ctrl+c,
    enter and escape by name."""
    from textual.keys import format_key

    labels = []
    for key in keys.split(","):
        *modifiers, name = key.strip().split("+")
        shown = format_key(name)
        if not (len(shown) == 1 and shown.isascii() and shown.isprintable() and shown != " "):
            shown = name  # a named key (enter, escape, f2), not Textual's symbol for it
        labels.append("+".join([*modifiers, shown]))
    return " / ".join(labels)


class _KeyedApp(Protocol):
    user_keymap: Mapping[str, str]
    config_path: Path


def user_keymap(app: App) -> Mapping[str, str]:
    """The [keymap] the app applied (binding id -> key): TeamTUI keeps it; another app has none."""
    return cast(_KeyedApp, app).user_keymap if hasattr(app, "user_keymap") else {}


def described(app: App, binding_id: str | None, default: str, *, how: str = "bar") -> str:
    """What a key does in this app, for the key bar ("bar", "narrow") or the help ("help"): q and
    ctrl+c end the demo (TeamTUI.key_words: binding id -> {how: words}); else `default`."""
    words = cast(dict[str, dict[str, str]], getattr(app, "key_words", {})).get(binding_id or "", {})
    return words.get(how, default)


def config_of(app: App) -> Path | None:
    """Where the app's config.toml is (said under the help's keys), when it reads one."""
    return cast(_KeyedApp, app).config_path if hasattr(app, "config_path") else None


def unlisted_keys(bindings: list[Binding], keymap: Mapping[str, str], leave_out: set[str]) -> list[tuple[str, str]]:
    """(key, short name) of the bindings the key bar does not show, as remapped: the help says them
    first (n, a, c, h are found nowhere else). A binding id seen twice counts once, the first."""
    seen: set[str] = set()
    said = []
    for b in bindings:
        bid = b.id or ""
        if b.show or bid in leave_out or bid in seen:
            seen.add(bid)
            continue
        seen.add(bid)
        said.append((keymap.get(bid, b.key), b.description))
    return said


def action_keys(app: App) -> list[tuple[str, str, str]]:
    """(key, description, binding id) of every dashboard action, after the user's keymap: the help
    and the command palette list them."""
    keymap = user_keymap(app)
    return [
        (
            keymap.get(b.id or "", b.key),
            described(app, b.id, DASHBOARD_HELP.get(b.id or "", b.description), how="help"),
            b.id or "",
        )
        for b in DASHBOARD_KEYS
    ]
