"""Several teams were found: pick one."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from teamtui.tui.format import ago
from teamtui.tui.safe import safe_text


def describe_team(root: Path, name: str, now: float) -> Text:
    """A second line for one team: its lead alive, ended or unknown, members, working directory and age."""
    from teamtui.protocol.errors import ProtocolError
    from teamtui.protocol.layout import open_team
    from teamtui.protocol.models import TeamConfig

    t = Text("\n    ", style="dim")
    try:
        store = open_team(root, name, None)
        cfg = store.load_config()
    except ProtocolError as exc:
        t.append_text(safe_text(f"unreadable: {exc}", "dim"))
        return t
    if not isinstance(cfg, TeamConfig):
        t.append_text(safe_text(f"unreadable: {cfg.reason}", "dim"))
        return t
    parts = []
    run = store.run_status()
    lead = store.lead_state() if run is None else None  # a workflow run: its status says more than its lead
    if run is not None:
        parts.append(f"workflow run {run}")
    elif lead is not None:
        # "unknown" (another user's process, another pid namespace) is said, never shown as ended.
        parts.append({"alive": "lead alive", "ended": "lead ended"}.get(lead, "lead state unknown"))
    names = [m.name for m in cfg.members]
    parts.append(
        f"{len(names)} member{'s' if len(names) != 1 else ''}"
        + (f" ({', '.join(names[:4])}{', …' if len(names) > 4 else ''})" if names else "")
    )
    raw = getattr(cfg, "raw", None) or {}
    cwd = next(
        (m.get("cwd") for m in raw.get("members", []) if isinstance(m, dict) and isinstance(m.get("cwd"), str)), ""
    )
    if cwd:
        parts.append(cwd)
    if cfg.created_at:
        parts.append("started " + ago(cfg.created_at, now))
    t.append_text(safe_text(" · ".join(parts), "dim"))
    return t


class TeamPicker(Screen[tuple[Path, str] | None]):
    BINDINGS = [Binding("escape,q", "cancel", "Quit", id="picker.quit")]

    def __init__(self, found: list[tuple[Path, str]]):
        super().__init__()
        self.found = found

    def compose(self) -> ComposeResult:
        options = []
        now = time.time()
        for i, (root, name) in enumerate(self.found):
            label = safe_text(name, "bold")
            label.append_text(safe_text(f"   {root}", "dim"))
            label.append_text(describe_team(root, name, now))
            options.append(Option(label, id=str(i)))
        with Vertical(classes="dialog"):
            yield Static(Text(f"{len(self.found)} teams found: choose one", style="bold"), classes="dialog-title")
            yield OptionList(*options, id="team-options")
            yield Static(Text("enter open · esc quit", style="dim"), classes="dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.found[int(event.option.id or 0)])

    def action_cancel(self) -> None:
        self.dismiss(None)
