"""Answering a pane teammate's permission request the one way Claude Code allows from outside:
in the lead's own dialog (FORMATS.md §4). teamtui never writes a `permission_response` itself —
only the lead can sign one.

The steps: find the lead's tmux pane (its session file's `tmux` field, else the pane its process
runs in, on the tmux server of the lead's own $TMUX); read the screen; check that the dialog
there is this very request (the teammate, the tool, the command text); read which number is Yes
and which is No (they vary with the request); send that one key; confirm from the signed
`permission_response` that reaches the teammate's inbox (protocol/claude/responses.py), or say
that it could not be confirmed. When the dialog shows another request, or the lead is in no
pane teamtui can reach, nothing is sent and the reason is given.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from teamtui.protocol.store import LeadsInTmux, RecordsLead, TeamStore
from teamtui.tmux.server import Tmux, TmuxError
from teamtui.tmux.team_panes import team_socket

_HEADER = re.compile(r"^\s*(?P<title>\S.*?)\s+·\s+from the (?P<who>\S+) agent\s*$")
_OPTION = re.compile(r"^\s*(?:❯\s*)?(?P<n>\d)\.\s+(?P<text>\S.*?)\s*$")
_RULE = re.compile(r"^\s*╌{8,}\s*$")
_PROCEED = "Do you want to proceed?"
# How a dialog's title names each tool (Bash seen on 2.1.332; the others as Claude Code words them).
_TITLES = {
    "Bash": ("Bash command",),
    "Edit": ("Edit file",),
    "MultiEdit": ("Edit file",),
    "Write": ("Create file", "Write file", "Overwrite file"),
    "NotebookEdit": ("Edit notebook",),
    "Read": ("Read file",),
    "WebFetch": ("Fetch",),
}


@dataclass(frozen=True, slots=True)
class PaneAsk:
    """A pane teammate's permission request, as teamtui knows it."""

    team: str
    teammate: str
    tool: str
    command: str  # what the dialog shows between its rules: the command (Bash), else the path or input
    request_id: str = ""  # the `perm-…` id, when its inbox entry was seen (confirms the right response)

    @property
    def id(self) -> str:
        """`pane:<team>:<12 hex>`, the same for the same teammate, tool and command wherever it is seen."""
        key = "\0".join((self.teammate, self.tool, _flat(self.command)))
        return f"pane:{self.team}:{hashlib.sha256(key.encode()).hexdigest()[:12]}"


@dataclass(frozen=True, slots=True)
class Dialog:
    """A worker-permission dialog as the lead's screen shows it."""

    teammate: str
    title: str
    body: str  # between the dashed rules
    yes: str  # the key of "Yes"
    no: str  # the key of "No"

    def ask(self, team: str) -> PaneAsk:
        return PaneAsk(team, self.teammate, _tool_of(self.title), self.body)


@dataclass(frozen=True, slots=True)
class DialogAnswer:
    taken: bool  # the key was sent to the very dialog of this request
    confirmed: bool | None  # the teammate got the lead's signed response (None: could not be told)
    text: str  # one line for the person


def _flat(text: str) -> str:
    """Text with every run of whitespace removed: the dialog wraps a long command over lines."""
    return "".join(text.split())


def _tool_of(title: str) -> str:
    for tool, titles in _TITLES.items():
        if title in titles:
            return tool
    return title.split(" ", 1)[0]


def parse_dialog(screen: str) -> Dialog | None:
    """The worker-permission dialog on `screen` (the lead's pane), or None when there is none."""
    lines = screen.splitlines()
    start = None
    for i, line in enumerate(lines):
        if _HEADER.match(line):
            start = i  # the last one on screen is the live one
    if start is None:
        return None
    m = _HEADER.match(lines[start])
    assert m is not None
    rest = lines[start + 1 :]
    rules = [i for i, line in enumerate(rest) if _RULE.match(line)]
    body = "\n".join(s.strip() for s in rest[rules[0] + 1 : rules[1]]) if len(rules) >= 2 else ""
    try:
        ask_at = next(i for i, line in enumerate(rest) if line.strip() == _PROCEED)
    except StopIteration:
        return None
    options = {}
    for line in rest[ask_at + 1 :]:
        o = _OPTION.match(line)
        if o:
            options[o.group("n")] = o.group("text")
    yes = next((n for n, t in options.items() if t == "Yes"), "")
    no = next((n for n, t in options.items() if t == "No" or t.startswith("No,") or t.startswith("No ")), "")
    if not yes or not no:
        return None
    return Dialog(m.group("who"), m.group("title"), body, yes, no)


def mismatch(dialog: Dialog, ask: PaneAsk) -> str:
    """'' when `dialog` is this very request; else what differs."""
    if dialog.teammate != ask.teammate:
        return f"the lead's dialog is {dialog.teammate}'s request, not {ask.teammate}'s"
    if _tool_of(dialog.title) != ask.tool and dialog.title not in _TITLES.get(ask.tool, ()):
        return f"the lead's dialog asks for {dialog.title}, not {ask.tool}"
    shown, wanted = _flat(dialog.body), _flat(ask.command)
    if shown.endswith("…"):
        shown, wanted = shown[:-1], wanted[: len(shown) - 1]
    if shown != wanted:
        return f"the lead's dialog is another {ask.tool} request of {ask.teammate}'s"
    return ""


# ------------------------------------------------------------------ the lead's pane


def _session_pane(root: Path, pid: int) -> str | None:
    """The pane id of `sessions/<pid>.json`'s `tmux` field ("session:@window.%pane")."""
    try:
        data = json.loads((root / "sessions" / f"{pid}.json").read_bytes()[: 64 * 1024])
    except (OSError, ValueError):
        return None
    where = data.get("tmux") if isinstance(data, dict) else None
    if not isinstance(where, str):
        return None
    pane = where.rsplit(".", 1)[-1]
    return pane if re.fullmatch(r"%\d+", pane) else None


def lead_pane(store: TeamStore) -> tuple[Tmux, str] | str:
    """(the lead's tmux server, its pane), or why it cannot be reached."""
    store.load_config()  # config.json's leadProcess, as it is now
    if not isinstance(store, RecordsLead) or (pid := store.lead_pid()) is None or store.lead_state() == "ended":
        return "the team's lead is not running"
    socket = team_socket(store.lead_environment() if isinstance(store, LeadsInTmux) else None)
    if socket is None:
        return "the lead does not run in tmux (or its environment cannot be read), and teamtui is not inside tmux"
    try:
        tmux = Tmux(socket)
        pane = _session_pane(store.root, pid)
        if pane is None or not tmux.pane_exists(pane):
            from teamtui.tmux.jump import pane_of_process

            pane = pane_of_process(pid, {"TMUX": f"{socket},0,0"})
    except (TmuxError, OSError) as exc:
        return f"the lead's tmux server cannot be asked ({exc})"
    if pane is None:
        return "the lead's pane was not found on its tmux server"
    return tmux, pane


def read_dialog(store: TeamStore) -> Dialog | str:
    """The worker-permission dialog in the lead's pane, or why there is none to read."""
    where = lead_pane(store)
    if isinstance(where, str):
        return where
    tmux, pane = where
    screen = _screen(tmux, pane)
    if screen is None:
        return f"the lead's pane {pane} cannot be read"
    return parse_dialog(screen) or "no teammate's permission dialog is on the lead's screen"


def _screen(tmux: Tmux, pane: str) -> str | None:
    out = tmux.try_run("capture-pane", "-p", "-t", pane)
    return "\n".join(out) if out is not None else None


def answer_in_dialog(store: TeamStore, ask: PaneAsk, allow: bool, *, confirm_within: float = 15.0) -> DialogAnswer:
    """Press Yes or No in the lead's dialog if, and only if, it shows `ask`; then wait (on file
    events) up to `confirm_within` seconds for the lead's signed response in the teammate's inbox."""
    from teamtui.protocol.claude.responses import ResponseWatch

    where = lead_pane(store)
    if isinstance(where, str):
        return DialogAnswer(False, None, f"not sent: {where}")
    tmux, pane = where
    screen = _screen(tmux, pane)
    dialog = parse_dialog(screen) if screen is not None else None
    if dialog is None:
        return DialogAnswer(
            False, None, f"not sent: no teammate's permission dialog is on the lead's screen (pane {pane})"
        )
    why = mismatch(dialog, ask)
    if why:
        return DialogAnswer(False, None, f"not sent: {why} (pane {pane})")
    key = dialog.yes if allow else dialog.no
    with ResponseWatch(store, ask.teammate, ask.request_id) as watch:
        try:
            tmux.run("send-keys", "-t", pane, key)
        except TmuxError as exc:
            return DialogAnswer(False, None, f"not sent: {exc}")
        response = watch.wait(confirm_within)
    said = "Yes" if allow else "No"
    if response is None:
        return DialogAnswer(
            True,
            None,
            f"pressed {key} ({said}) in the lead's dialog (pane {pane}); no response reached {ask.teammate}'s inbox within {confirm_within:g} s",
        )
    approved = response.get("subtype") == "success"
    if approved != allow:
        return DialogAnswer(True, False, f"pressed {key} ({said}), but the lead answered {ask.teammate} the other way")
    return DialogAnswer(
        True,
        True,
        f"{'allowed' if allow else 'denied'} in the lead's dialog (pane {pane}): the lead's signed response reached {ask.teammate}",
    )


__all__ = [
    "PaneAsk",
    "Dialog",
    "DialogAnswer",
    "parse_dialog",
    "mismatch",
    "lead_pane",
    "read_dialog",
    "answer_in_dialog",
]
