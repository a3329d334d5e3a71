"""The dashboard's keys: its bindings (the keymap in config.toml renames them by id) and the
longer words the help screen and the command palette show for each."""

from __future__ import annotations

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
    Binding("h", "timeline", "Timeline", id="timeline", show=False),
    Binding("question_mark", "help", "Help", id="help"),
    Binding("q", "quit", "Quit", id="quit"),
    # A terminal tool ends on Ctrl-C (Textual's default only hints at Ctrl-Q); inputs keep it for copy.
    Binding("ctrl+c", "quit", "Quit", show=False, id="interrupt"),
]
DASHBOARD_HELP = {
    "message": "Message the selected teammate",
    "broadcast": "Broadcast to every teammate",
    "focus_teammate": "Focus the selected teammate (and its pane)",
    "filter_tasks": "Filter tasks",
    "shutdown_teammate": "Shut down the selected teammate",
    "shutdown_team": "Shut down the whole team",
    "toggle_panes": "Hide / show teammate panes",
    "needs_you": "Go to what needs you (Claude Code teams)",
    "timeline": "The team's timeline: who worked when, tasks, messages (zoom with + and -)",
    "help": "Help: keys",
    "quit": "Quit",
    "interrupt": "Quit",
}
